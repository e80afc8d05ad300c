"""The quick fixes of PAL404 / PAL405 decide safe or choice by where the value goes (the
JAX oracle of these fixes on whole kernels: tests/oracle/test_body_ops_oracle.py)."""

from __future__ import annotations

import textwrap

from pallas_lsp.analysis.engine import analyze_source
from pallas_lsp.analysis.fixes import apply_edits, split_lines, suggestion_fixes

_CALL = '''
def run(x, w):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((128, 128), jnp.{out}),
                          scratch_shapes=[pltpu.VMEM((128, 128), jnp.{acc})])(x, w)


run(jnp.zeros((128, 256), jnp.{dtype}), jnp.zeros((256, 128), jnp.{dtype}))
'''


def _source(body: str, dtype: str = "bfloat16", out: str = "bfloat16", acc: str = "float32") -> str:
    """`body` as `kernel(x_ref, w_ref, o_ref, acc_ref)`, called on known shapes."""
    return ("import jax\nimport jax.numpy as jnp\nfrom jax.experimental import pallas as pl\n"
              "from jax.experimental.pallas import tpu as pltpu\n\n\ndef kernel(x_ref, w_ref, o_ref, acc_ref):\n"
              + textwrap.indent(textwrap.dedent(body), "    ") + _CALL.format(dtype=dtype, out=out, acc=acc))


def _fixes(body: str, **dtypes: str):
    """(code, safe, fixed line) of each fix offered on PAL404 / PAL405 findings."""
    source = _source(body, **dtypes)
    out_ = []
    for finding in (f for f in analyze_source(source, "k.py") if f.code in ("PAL404", "PAL405")):
        for fix in suggestion_fixes(finding, split_lines(source)):
            line = apply_edits(source, fix.edits).splitlines()[finding.span.line]
            out_.append((finding.code, fix.safe, line.strip()))
    return out_


def test_a_product_stored_into_the_wide_ref_takes_the_plain_fix():
    assert _fixes("acc_ref[...] = jnp.dot(x_ref[...], w_ref[...])\n") == [
        ("PAL404", True, "acc_ref[...] = jnp.dot(x_ref[...], w_ref[...], preferred_element_type=jnp.float32)")]


def test_an_int8_product_stored_into_any_integer_ref_is_accepted():
    found = _fixes("o_ref[...] = jnp.dot(x_ref[...], w_ref[...])\n", dtype="int8", out="int16")
    assert found == [("PAL404", True, "o_ref[...] = jnp.dot(x_ref[...], w_ref[...], preferred_element_type=jnp.int32)")]


def test_a_name_bound_twice_is_not_followed():
    found = _fixes("""\
        acc = jnp.dot(x_ref[...], w_ref[...])
        acc = acc * 2
        o_ref[...] = acc.astype(o_ref.dtype)
        """)
    assert [(safe, "astype(jnp.bfloat16)" in line) for _, safe, line in found] == [(True, True), (False, False)]


def test_a_read_that_breaks_leaves_only_the_cast_back():
    found = _fixes("""\
        acc = jnp.dot(x_ref[...], w_ref[...])
        acc_ref[...] += acc.astype(jnp.float32)
        o_ref[...] = acc
        """)
    assert [safe for _, safe, _ in found] == [True]
    assert found[0][2].endswith("preferred_element_type=jnp.float32).astype(jnp.bfloat16)")


def test_keepdims_on_a_method_with_a_positional_axis_and_on_several_axes():
    found = _fixes("""\
        x = x_ref[...].astype(jnp.float32)
        acc_ref[...] = (x - x.sum(-1))[:, :128]
        t = x.reshape(128, 4, 64)
        o_ref[:, :64] = (t - t.max(axis=(1, 2)))[:, 0, :].astype(o_ref.dtype)
        """)
    assert found == [
        ("PAL405", True, "acc_ref[...] = (x - x.sum(-1, keepdims=True))[:, :128]"),
        ("PAL405", True, "o_ref[:, :64] = (t - t.max(axis=(1, 2), keepdims=True))[:, 0, :].astype(o_ref.dtype)")]


def test_no_keepdims_where_the_kept_axis_does_not_broadcast_either():
    body = """\
        x = x_ref[...].astype(jnp.float32)
        acc_ref[...] = (x - x.sum(axis=0)[:128])[:, :128]
        o_ref[...] = (x - jnp.sum(x[:64, :128], axis=0)).astype(o_ref.dtype)[:, :128]
        """
    assert [f.code for f in analyze_source(_source(body), "k.py")] == ["PAL405", "PAL405"]
    assert _fixes(body) == []
