"""Item 3: how declared semaphores reach kernel parameters.

Kernels here are written so that a binding off by one position would move a semaphore
array onto a parameter used whole (a false alarm) or a scalar onto one that is flagged
(a miss), so the exact positional mapping is what is tested.
"""

import pytest

from .helpers import found, line_of

HEAD = """
import functools
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

DMA = pltpu.SemaphoreType.DMA
REGULAR = pltpu.SemaphoreType.REGULAR
VMEM = pltpu.VMEM((8, 128), jnp.float32)
OUT = jax.ShapeDtypeStruct((8, 128), jnp.float32)
"""


def test_prefetch_inputs_tuple_outputs_then_scratch():
    src = HEAD + """
def kernel(idx_ref, off_ref, x_hbm, y_hbm, o1_ref, o2_ref, buf, sems, one):
    slot = idx_ref[0]
    pltpu.async_copy(x_hbm, buf, sems.at[slot]).wait()
    pltpu.async_copy(y_hbm, buf, one).wait()
    pltpu.async_copy(x_hbm, buf, sems).wait()

def run(idx, off, x, y):
    return pl.pallas_call(
        kernel,
        out_shape=(OUT, OUT),
        grid_spec=pltpu.PrefetchScalarGridSpec(
            num_scalar_prefetch=2,
            grid=(4,),
            in_specs=[pl.BlockSpec(memory_space=pl.ANY)] * 2,
            scratch_shapes=[VMEM, DMA((2,)), DMA],
        ),
    )(idx, off, x, y)
"""
    assert found(src) == [(line_of(src, "buf, sems).wait()"), "PAL001", (2,))]


def test_list_out_shape_gives_one_parameter_per_output():
    src = HEAD + """
def kernel(x_hbm, o1, o2, o3, sems, one):
    pltpu.async_copy(x_hbm, o1, one).wait()
    pltpu.async_copy(x_hbm, o2, sems).wait()

def run(x):
    return pl.pallas_call(kernel, out_shape=[OUT, OUT, OUT],
                          scratch_shapes=(DMA((4,)), DMA))(x)
"""
    assert found(src) == [(line_of(src, "o2, sems"), "PAL001", (4,))]


def test_single_out_shape_gives_one_parameter():
    src = HEAD + """
def kernel(x_hbm, o_ref, one, sems):
    pltpu.async_copy(x_hbm, o_ref, one).wait()
    pltpu.async_copy(x_hbm, o_ref, sems).wait()

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA, DMA((3,))])(x)
"""
    assert found(src) == [(line_of(src, "o_ref, sems"), "PAL001", (3,))]


def test_plain_grid_spec_scratch():
    src = HEAD + """
def kernel(x_hbm, o_ref, buf, sems):
    pltpu.make_async_copy(x_hbm, buf, sems).start()

def run(x):
    return pl.pallas_call(
        kernel, out_shape=OUT,
        grid_spec=pl.GridSpec(grid=(2,), in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
                              scratch_shapes=[VMEM, DMA((2,))]),
    )(x)
"""
    assert found(src) == [(line_of(src, "make_async_copy(x_hbm, buf, sems)"), "PAL001", (2,))]


def test_nested_tuples_arrive_nested():
    src = HEAD + """
def kernel(x_hbm, o_ref, buf, pair, nested):
    pltpu.async_copy(x_hbm, buf, pair[0]).wait()
    pltpu.async_copy(x_hbm, buf, pair[1].at[0]).wait()
    pl.semaphore_signal(nested[0])
    pltpu.async_copy(x_hbm, buf, nested[1][0]).wait()
    pltpu.async_copy(x_hbm, buf, pair[1]).wait()

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT,
                          scratch_shapes=[VMEM, (DMA, DMA((2,))), [REGULAR, (DMA,)]])(x)
"""
    assert found(src) == [(line_of(src, "buf, pair[1]).wait()"), "PAL001", (2,))]


def test_nested_tuple_unpacked_in_the_kernel():
    src = HEAD + """
def kernel(x_hbm, o_ref, sems):
    (send_a, send_b), (recv_a, recv_b) = sems
    pltpu.async_copy(x_hbm, o_ref, send_a).wait()
    pltpu.async_copy(x_hbm, o_ref, recv_b.at[1]).wait()
    pltpu.async_copy(x_hbm, o_ref, recv_a).wait()

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT,
                          scratch_shapes=[((DMA, DMA), (DMA((2,)), DMA((2,))))])(x)
"""
    assert found(src) == [(line_of(src, "o_ref, recv_a"), "PAL001", (2,))]


def test_dict_scratch_arrives_as_keywords():
    src = HEAD + """
def kernel(x_hbm, o_ref, *, buf, sems, done):
    pltpu.async_copy(x_hbm, buf, sems.at[0]).wait()
    pl.semaphore_signal(done)
    pltpu.async_copy(x_hbm, buf, sems).wait()

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT,
                          scratch_shapes=dict(sems=DMA((2,)), buf=VMEM, done=REGULAR))(x)
"""
    assert found(src) == [(line_of(src, "buf, sems).wait()"), "PAL001", (2,))]


def test_dict_literal_scratch_with_wrong_kernel_order_still_binds_by_name():
    src = HEAD + """
def kernel(x_hbm, o_ref, done, sems):
    pl.semaphore_signal(done)
    pltpu.async_copy(x_hbm, o_ref, sems).wait()

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT,
                          scratch_shapes={"sems": DMA((2,)), "done": REGULAR})(x)
"""
    assert found(src) == [(line_of(src, "o_ref, sems"), "PAL001", (2,))]


def test_list_multiplication_and_concatenation():
    src = HEAD + """
def kernel(x_hbm, o_ref, a, b, ring, flag1, flag2):
    pltpu.async_copy(x_hbm, o_ref, a).wait()
    pltpu.async_copy(x_hbm, o_ref, b).wait()
    pltpu.async_copy(x_hbm, o_ref, ring.at[0]).wait()
    pl.semaphore_signal(flag1)
    pl.semaphore_signal(flag2)
    pltpu.async_copy(x_hbm, o_ref, ring).wait()

def run(x, n):
    return pl.pallas_call(kernel, out_shape=OUT,
                          scratch_shapes=[DMA] * 2 + [DMA((n - 1,))] + [REGULAR] * 2)(x)
"""
    assert found(src) == [(line_of(src, "o_ref, ring).wait()"), "PAL001", ("n - 1",))]


def test_star_splat_in_a_scratch_list():
    src = HEAD + """
def kernel(x_hbm, o_ref, b0, b1, b2, c0, c1, c2, sems):
    pltpu.async_copy(x_hbm, b0, c2).wait()
    pltpu.async_copy(x_hbm, b2, sems).wait()

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT,
                          scratch_shapes=[*([VMEM] * 3), *([DMA] * 3), DMA((2,))])(x)
"""
    assert found(src) == [(line_of(src, "b2, sems"), "PAL001", (2,))]


def test_scratch_list_held_in_a_variable_and_extended():
    src = HEAD + """
def kernel(x_hbm, o_ref, buf, sems, one):
    pltpu.async_copy(x_hbm, buf, one).wait()
    pltpu.async_copy(x_hbm, buf, sems).wait()

def run(x):
    scratch = [VMEM]
    scratch += [DMA((2,))]
    scratch = scratch + [DMA]
    call = pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=scratch)
    return call(x)
"""
    assert found(src) == [(line_of(src, "x_hbm, buf, sems).wait()"), "PAL001", (2,))]


def test_scratch_list_built_with_append():
    src = HEAD + """
def kernel(x_hbm, o_ref, buf, sems, one):
    pltpu.async_copy(x_hbm, buf, one).wait()
    pltpu.async_copy(x_hbm, buf, sems).wait()

def run(x):
    scratch = [VMEM]
    scratch.append(DMA((2,)))
    scratch.append(DMA)
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=scratch)(x)
"""
    assert found(src) == [(line_of(src, "x_hbm, buf, sems).wait()"), "PAL001", (2,))]


def test_functools_partial_kernel_keyword_and_positional():
    src = HEAD + """
def kernel(n, x_hbm, o_ref, sems, one, *, axis):
    pltpu.async_copy(x_hbm, o_ref, one).wait()
    pltpu.async_copy(x_hbm, o_ref, sems).wait()

def kernel_kw(x_hbm, o_ref, sems, one, nsteps):
    pltpu.async_copy(x_hbm, o_ref, one).wait()
    pltpu.async_copy(x_hbm, o_ref, sems.at[nsteps - 1]).wait()

def run(x):
    a = pl.pallas_call(functools.partial(kernel, 4, axis="x"), out_shape=OUT,
                       scratch_shapes=[DMA((2,)), DMA])(x)
    b = pl.pallas_call(functools.partial(kernel_kw, nsteps=2), out_shape=OUT,
                       scratch_shapes=[DMA((2,)), DMA])(x)
    return a, b
"""
    assert found(src) == [(line_of(src, "o_ref, sems).wait()"), "PAL001", (2,))]


def test_run_scoped_positional():
    src = HEAD + """
def kernel(x_hbm, o_ref, buf):
    def body(sems, counts):
        pltpu.async_copy(x_hbm, buf, sems.at[0]).wait()
        pl.semaphore_signal(counts.at[1])
        pl.semaphore_wait(counts)
    pl.run_scoped(body, DMA((4,)), REGULAR((3,)))

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[VMEM])(x)
"""
    assert found(src) == [(line_of(src, "semaphore_wait(counts)"), "PAL002", (3,))]


def test_run_scoped_keyword():
    src = HEAD + """
def kernel(x_hbm, o_ref, buf):
    def body(*, sems, done):
        pl.semaphore_signal(done)
        pltpu.async_copy(x_hbm, buf, sems).wait()
    pl.run_scoped(body, done=REGULAR, sems=DMA(4))

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[VMEM])(x)
"""
    assert found(src) == [(line_of(src, "buf, sems"), "PAL001", (4,))]


def test_run_scoped_star_splat_and_pytree():
    src = HEAD + """
def kernel(x_hbm, o_ref, buf):
    def body(a, b, c, pair):
        pltpu.async_copy(x_hbm, buf, c).wait()
        pltpu.async_copy(x_hbm, buf, pair[0]).wait()
        pltpu.async_copy(x_hbm, buf, pair[1]).wait()
    pl.run_scoped(body, *([DMA] * 3), (DMA, DMA((2,))))

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[VMEM])(x)
"""
    assert found(src) == [(line_of(src, "pair[1]"), "PAL001", (2,))]


def test_run_scoped_decorator():
    src = HEAD + """
def kernel(x_hbm, o_ref, buf):
    @functools.partial(pl.run_scoped, second=REGULAR)
    def _(second):
        pl.semaphore_signal(second)

    @functools.partial(pl.run_scoped, sems=DMA((2,)))
    def _(sems):
        pltpu.async_copy(x_hbm, buf, sems).wait()

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[VMEM])(x)
"""
    assert found(src) == [(line_of(src, "buf, sems"), "PAL001", (2,))]


def test_with_scoped():
    src = HEAD + """
def kernel(x_hbm, o_ref, buf):
    @pl.with_scoped(VMEM, sem=DMA((2,)))
    def f(outer, tmp, sem):
        pltpu.async_copy(outer, tmp, sem).wait()

    @pl.with_scoped(sem=DMA)
    def g(sem):
        pltpu.async_copy(x_hbm, buf, sem).wait()

    f(x_hbm)
    g()

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[VMEM])(x)
"""
    assert found(src) == [(line_of(src, "async_copy(outer, tmp, sem)"), "PAL001", (2,))]


def test_pl_kernel_scratch_types():
    src = HEAD + """
def body(x_hbm, o_hbm, buf, sem, one):
    pltpu.async_copy(x_hbm, buf, one).wait()
    pltpu.async_copy(buf, o_hbm, sem).wait()

def run(x):
    mesh = pltpu.create_tensorcore_mesh("core", num_cores=1)
    return pl.kernel(body, out_type=OUT, mesh=mesh,
                     scratch_types=[VMEM, DMA((2,)), DMA])(x)
"""
    assert found(src) == [(line_of(src, "o_hbm, sem)"), "PAL001", (2,))]


def test_pl_kernel_as_decorator_with_dict_scratch():
    src = HEAD + """
def run(x):
    mesh = pltpu.create_tensorcore_mesh("core", num_cores=1)

    @functools.partial(pl.kernel, out_type=OUT, mesh=mesh,
                       scratch_types=dict(sems=DMA((2, 2)), buf=VMEM))
    def body(x_hbm, o_hbm, *, sems, buf):
        pltpu.async_copy(x_hbm, buf, sems.at[0, 1]).wait()
        pltpu.async_copy(buf, o_hbm, sems.at[1]).wait()

    return body(x)
"""
    assert found(src) == [(line_of(src, "sems.at[1]"), "PAL001", (2,))]


# `pl.kernel(body=[f, g], mesh=[m, n])` (MPMD): every body runs, on its own mesh, with
# the same refs (dict scratch: keyword arguments; each `@ mesh` keeps the shape).
MPMD = HEAD + """
def scs(x_hbm, o_hbm, *, send, flags, n):
    pltpu.make_async_copy(x_hbm, o_hbm, {sem}).start()
    pltpu.semaphore_signal(flags.at[0])

def tec(x_hbm, o_hbm, *, flags, n, **unused):
    pl.semaphore_wait({flag})

def run(x):
    s_mesh = pltpu.create_tensorcore_mesh("core", num_cores=1)
    v_mesh = pltpu.create_tensorcore_mesh("core", num_cores=1)
    return pl.kernel(
        body=[functools.partial(scs, n=2), functools.partial(tec, n=2)],
        mesh=[s_mesh, v_mesh], out_type=OUT,
        scratch_types=dict(send=DMA((2, 4)) @ s_mesh, flags=pltpu.SemaphoreType.REGULAR((2,)) @ v_mesh),
    )(x)
"""


@pytest.mark.parametrize(("sem", "flag", "expected"), [
    ("send.at[0, 1]", "flags.at[0]", []),
    ("send.at[0]", "flags.at[0]", [("send.at[0]", (4,))]),
    ("send.at[0, 1]", "flags", [("semaphore_wait(flags)", (2,))]),
])
def test_pl_kernel_with_a_list_of_bodies_runs_each(sem, flag, expected):
    src = MPMD.format(sem=sem, flag=flag)
    assert [(line, shape) for line, _, shape in found(src)] == [(line_of(src, t), s) for t, s in expected]


def test_core_map_scratch_shapes():
    src = HEAD + """
def run(x_hbm_ref, o_hbm_ref):
    mesh = pltpu.create_tensorcore_mesh("core", num_cores=2)

    @pl.core_map(mesh, scratch_shapes=[VMEM, DMA((2,)), REGULAR])
    def _(buf, sems, flag):
        pl.semaphore_signal(flag)
        pltpu.async_copy(x_hbm_ref, buf, sems).wait()

    @pl.core_map(mesh, scratch_shapes=dict(sems=DMA((2,))))
    def _(sems):
        pltpu.async_copy(x_hbm_ref, o_hbm_ref, sems.at[1]).wait()
"""
    assert found(src) == [(line_of(src, "buf, sems)"), "PAL001", (2,))]


def test_emit_pipeline_scratches_arrive_after_blocks():
    src = HEAD + """
def kernel(x_hbm, o_hbm, buf, load_sems, flag):
    def body(x_blk, o_blk, load_sems_s, flag_s):
        pl.semaphore_signal(flag_s)
        pltpu.async_copy(x_hbm.at[0:8], buf, load_sems_s.at[1]).wait()
        pltpu.async_copy(x_hbm.at[0:8], buf, load_sems_s).wait()
        o_blk[...] = x_blk[...]

    pltpu.emit_pipeline(
        body, grid=(4,),
        in_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
        out_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
    )(x_hbm, o_hbm, scratches=[load_sems, flag])

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT,
                          in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
                          out_specs=pl.BlockSpec(memory_space=pl.ANY),
                          scratch_shapes=[VMEM, DMA((2,)), REGULAR])(x)
"""
    assert found(src) == [(line_of(src, "buf, load_sems_s).wait()"), "PAL001", (2,))]


def test_kernel_called_twice_with_different_scratch():
    """The same kernel gets (2,) in one pallas_call and () in another: flagged
    because one call really fails in JAX."""
    src = HEAD + """
def kernel(x_hbm, o_ref, sem):
    pltpu.async_copy(x_hbm, o_ref, sem).wait()

def run(x):
    a = pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA])(x)
    b = pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
    return a, b
"""
    assert found(src) == [(line_of(src, "(x_hbm, o_ref, sem).wait"), "PAL001", (2,))]


def test_pallas_call_never_applied_still_checks_its_kernel():
    src = HEAD + """
def kernel(x_hbm, o_ref, sems):
    pltpu.async_copy(x_hbm, o_ref, sems).wait()

def build():
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])
"""
    assert found(src) == [(line_of(src, "(x_hbm, o_ref, sems).wait"), "PAL001", (2,))]


OUT_KERNEL = HEAD + """
def kernel(x_hbm, o1, o2, one, sems):
    pltpu.async_copy(x_hbm, o1, one).wait()
    pltpu.async_copy(x_hbm, o2, sems.at[0]).wait()
    {extra}

def run(x, n, shapes):
    return pl.pallas_call(kernel, out_shape={out}, scratch_shapes=[DMA, DMA((2,))])(x)
"""

OUT_FORMS = [
    "[OUT for _ in range(2)]",
    "tuple(OUT for _ in range(2))",
    "[OUT for _ in range(n)]",
    "tuple(OUT for _ in range(n))",
    "tuple(shapes)",
    "shapes",
    "(OUT,) * 2",
    "(OUT, jax.ShapeDtypeStruct(x.shape, x.dtype))",
    "jax.tree.map(lambda a: a, (OUT, OUT))",
]


@pytest.mark.parametrize("out", OUT_FORMS)
def test_out_shape_forms_bind_scratch_correctly_on_a_correct_kernel(out):
    """Two outputs: `one` is the scalar semaphore, `sems` the array. Counting the
    outputs wrong would move the array onto `one` (a false alarm)."""
    assert found("\n" + OUT_KERNEL.format(out=out, extra="")) == []


@pytest.mark.parametrize("out", OUT_FORMS)
def test_out_shape_forms_bind_scratch_correctly_on_a_broken_kernel(out):
    src = "\n" + OUT_KERNEL.format(out=out, extra="pl.semaphore_wait(sems)")
    assert found(src) == [(line_of(src, "semaphore_wait(sems)"), "PAL002", (2,))]


def test_kernel_chosen_by_a_branch():
    """Both candidate kernels get the same scratch; the one that uses the array whole
    fails whenever it is chosen (the paged-attention `inline_seq_dim` switch)."""
    src = HEAD + """
def kernel_inline(x_hbm, o_ref, sems):
    pltpu.async_copy(x_hbm, o_ref, sems.at[0]).wait()

def kernel_blocked(x_hbm, o_ref, sems):
    pltpu.async_copy(x_hbm, o_ref, sems).wait()

def run(x, inline_seq_dim):
    if inline_seq_dim:
        kernel = kernel_inline
    else:
        kernel = kernel_blocked
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
"""
    assert found(src) == [(line_of(src, "o_ref, sems).wait()"), "PAL001", (2,))]


def test_mosaic_gpu_kernel_scratch():
    """`plgpu.kernel(body, out_shape/out_type, scratch_shapes/scratch_types, ...)` calls
    `body(*inputs, *outputs, *scratch)`, like `pl.kernel`."""
    src = """
import jax
import jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as plgpu

OUT = jax.ShapeDtypeStruct((8, 128), jnp.float32)

def body(x_ref, o_ref, sems, one):
    plgpu.semaphore_signal(one)
    plgpu.semaphore_signal(sems.at[0])
    plgpu.semaphore_wait(sems)

def run(x):
    return plgpu.kernel(body, out_type=OUT, grid=(2,), grid_names=("x",),
                        scratch_types=[plgpu.SemaphoreType.REGULAR((2,)), plgpu.SemaphoreType.REGULAR])(x)
"""
    assert found(src) == [(line_of(src, "semaphore_wait(sems)"), "PAL002", (2,))]
    old_names = src.replace("out_type=", "out_shape=").replace("scratch_types=", "scratch_shapes=")
    assert found(old_names) == [(line_of(src, "semaphore_wait(sems)"), "PAL002", (2,))]


def test_grid_specs_with_positional_arguments():
    """`PrefetchScalarGridSpec(num_scalar_prefetch, grid, in_specs, out_specs,
    scratch_shapes)` and `GridSpec(grid, in_specs, out_specs, scratch_shapes)`."""
    src = HEAD + """
ANY = pl.BlockSpec(memory_space=pl.ANY)

def kernel(idx_ref, x_hbm, o_ref, sems, one):
    pltpu.async_copy(x_hbm, o_ref, one).wait()
    pltpu.async_copy(x_hbm, o_ref, sems).wait()

def kernel2(x_hbm, o_ref, sems, one):
    pltpu.async_copy(x_hbm, o_ref, one).wait()
    pl.semaphore_wait(sems)

def run(idx, x):
    spec = pltpu.PrefetchScalarGridSpec(1, (1,), [ANY], ANY, [DMA((2,)), DMA])
    spec2 = pl.GridSpec((1,), [ANY], ANY, [REGULAR((3,)), DMA])
    return (pl.pallas_call(kernel, OUT, grid_spec=spec)(idx, x),
            pl.pallas_call(kernel2, OUT, grid_spec=spec2)(x))
"""
    assert found(src) == [(line_of(src, "o_ref, sems).wait()"), "PAL001", (2,)),
                          (line_of(src, "semaphore_wait(sems)"), "PAL002", (3,))]
