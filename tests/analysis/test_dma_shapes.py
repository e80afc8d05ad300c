"""PAL305, a DMA whose source and destination differ: Mosaic's verifier wants the same
element type and exactly the same shape (`DMA source and target element type mismatch`,
`DMA source and target shape mismatch.`).  Shapes come from scratch types, block specs,
`out_shape` and static `.at[...]` views; where a side is not static the rule is silent.
The protocol corpus (`tests/protocol/pal305_*`) has kernels JAX's TPU interpreter fails."""

from __future__ import annotations

import pytest

from .helpers import IMPORTS, analyze, found, line_of

KERNEL = IMPORTS + """
import jax.numpy as jnp

def kernel(x_hbm, o_ref, buf, sem):
    copy = pltpu.make_async_copy({src}, {dst}, sem)
    copy.start()
    copy.wait()
    o_ref[...] = buf[...]

def run(x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((16, 128), jnp.float32),
                          in_specs=[{in_spec}],
                          out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
                          scratch_shapes=[pltpu.VMEM({buf}), pltpu.SemaphoreType.DMA])(x)
"""

ANY = "pl.BlockSpec(memory_space=pl.ANY)"


def kernel(src="x_hbm", dst="buf", in_spec=ANY, buf="(16, 128), jnp.float32") -> str:
    return KERNEL.replace("{src}", src).replace("{dst}", dst).replace("{in_spec}", in_spec).replace("{buf}", buf)


def pal305(src: str) -> list[int]:
    return [line for line, code, _ in found(src) if code == "PAL305"]


@pytest.mark.parametrize("src, buf", [
    ("x_hbm.at[pl.ds(0, 8)]", "(16, 128), jnp.float32"),        # a shorter slice of an input of unknown shape
    ("x_hbm.at[pl.ds(0, 32)]", "(16, 128), jnp.float32"),       # a longer one (Mosaic wants equal shapes)
    ("x_hbm.at[:, pl.ds(0, 256)]", "(16, 128), jnp.float32"),   # the second dim
    ("x_hbm.at[0, pl.ds(0, 8)]", "(8, 128), jnp.float32"),      # the integer drops a dim: (8, ...) against 8 x 128 ok,
])
def test_input_views_against_a_scratch_buffer(src, buf):
    text = kernel(src=src, buf=buf)
    expected = [] if src.startswith("x_hbm.at[0,") else [line_of(text, "make_async_copy(")]
    assert pal305(text) == expected


def test_the_message_names_both_sides_and_their_shapes():
    text = kernel(src="x_hbm.at[pl.ds(0, 8)]")
    f = next(f for f in analyze(text) if f.code == "PAL305")
    assert f.message.startswith("DMA source and target shape mismatch: `x_hbm.at[pl.ds(0, 8)]` is (8, ...), "
                                "`buf` is (16, 128) float32")
    assert f.severity == "error"
    assert [r.span.line + 1 for r in f.related] == [line_of(text, "scratch_shapes=")]


def test_a_block_against_a_scratch_buffer_of_another_shape_and_dtype():
    block = "pl.BlockSpec((8, 128), lambda: (0, 0))"
    assert pal305(kernel(in_spec=block)) == [line_of(kernel(in_spec=block), "make_async_copy(")]
    assert pal305(kernel(in_spec=block, buf="(8, 128), jnp.float32")) == []


def test_the_element_type_is_checked_first():
    text = kernel(src="o_ref", buf="(16, 128), jnp.bfloat16")   # the output is float32
    f = next(f for f in analyze(text) if f.code == "PAL305")
    assert f.message.startswith("DMA source and target element type mismatch: `o_ref` is (16, 128) float32, "
                                "`buf` is (16, 128) bfloat16")
    assert pal305(kernel(src="o_ref", buf="(16, 128), jnp.float32")) == []


@pytest.mark.parametrize("src, in_spec, buf", [
    ("x_hbm", ANY, "(16, 128), jnp.float32"),                    # the input's shape is not static
    ("x_hbm.at[..., pl.ds(0, 8)]", ANY, "(16, 128), jnp.float32"),   # `...` over an unknown rank
    ("x_hbm.at[idx]", ANY, "(16, 128), jnp.float32"),            # an index of unknown kind
    ("x_hbm", "pl.BlockSpec((pl.Squeezed(), 128), lambda: (0, 0))", "(128,), jnp.float32"),
    ("x_hbm", "pl.BlockSpec((None, 128), lambda: (0, 0))", "(128,), jnp.float32"),   # squeezed: (128,)
    ("o_ref", ANY, "(16, 128), dtype"),                          # a dtype held in a variable
    ("x_hbm.at[pl.ds(0, n)]", ANY, "(16, 128), jnp.float32"),    # a length that is not static
])
def test_silent_where_a_side_is_not_static_or_they_match(src, in_spec, buf):
    assert pal305(kernel(src=src, in_spec=in_spec, buf=buf)) == []


def test_a_slice_whose_length_depends_on_the_path():
    text = kernel(src="x_hbm.at[rows]").replace(
        "    copy = pltpu", "    rows = pl.ds(0, 8) if pl.program_id(0) == 0 else pl.ds(0, 16)\n    copy = pltpu")
    assert pal305(text) == []


def test_run_scoped_buffers_and_remote_copies():
    text = IMPORTS + """
import jax.numpy as jnp

def kernel(x_hbm, o_hbm):
    def body(buf, send, recv):
        copy = pltpu.make_async_remote_copy(buf, o_hbm.at[pl.ds(0, 8)], send, recv, device_id=(1,))
        copy.start()
        copy.wait()
    pl.run_scoped(body, pltpu.VMEM((16, 128), jnp.float32), pltpu.SemaphoreType.DMA, pltpu.SemaphoreType.DMA)

def run(x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((16, 128), jnp.float32),
                          in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
                          out_specs=pl.BlockSpec(memory_space=pl.ANY))(x)
"""
    assert pal305(text) == [line_of(text, "make_async_remote_copy(")]
    assert pal305(text.replace("pl.ds(0, 8)", "pl.ds(0, 16)")) == []


def test_refs_keep_their_shape_for_the_semaphore_checks():
    # `buf.shape` is the scratch type's shape
    text = kernel(src="x_hbm.at[pl.ds(0, 16)]", dst="buf.at[pl.ds(0, buf.shape[0])]")
    assert pal305(text) == []
    text = kernel(src="x_hbm.at[pl.ds(0, 16)]", dst="buf.at[pl.ds(0, buf.shape[0] // 2)]")
    assert pal305(text) == [line_of(text, "make_async_copy(")]
