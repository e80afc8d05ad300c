"""Issue 3 "Must handle" idioms and item 6 (unknown is silent): accessor functions,
conditional declarations, None placeholders, semaphores across pallas_call boundaries,
empty_ref_like, mesh-qualified declarations, shapes known only at run time."""

from .helpers import analyze, found, line_of, text_at

HEAD = """
import functools
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

DMA = pltpu.SemaphoreType.DMA
VMEM = pltpu.VMEM((8, 128), jnp.float32)
OUT = jax.ShapeDtypeStruct((8, 128), jnp.float32)
"""


# ---------------------------------------------------------------- accessors

def test_accessor_returning_a_view_is_clean_and_returning_the_array_is_flagged():
    src = HEAD + """
def kernel(x_hbm, o_ref, send_sems, recv_sems):
    slot = pl.program_id(0) % 2

    def send_sem():
        return send_sems.at[slot]

    def recv_sem_array():
        return recv_sems

    dev = jax.lax.axis_index("x")
    pltpu.make_async_remote_copy(x_hbm, o_ref, send_sem(), recv_sem_array(), device_id=dev).start()

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, grid=(4,),
                          scratch_shapes=[DMA((2,)), DMA((2,))])(x)
"""
    (f,) = analyze(src)
    assert (f.span.line + 1, f.code, f.shape) == (line_of(src, "recv_sem_array(), device_id"), "PAL001", (2,))
    assert text_at(src, f.span) == "recv_sem_array()"


def test_accessor_with_path_dependent_rank_is_silent():
    """`return gather_sem` is right only when the declaration is scalar: the accessor is
    an array on one path and one semaphore on the other, so nothing is certain."""
    src = HEAD + """
def kernel(x_hbm, o_ref, bank_sems, single_sem, *, use_bank):
    def gather_sem(bank):
        if use_bank:
            return bank_sems.at[bank]
        return single_sem

    def maybe_whole():
        if use_bank:
            return bank_sems
        return single_sem

    pltpu.make_async_copy(x_hbm, o_ref, gather_sem(0)).start()
    pltpu.make_async_copy(x_hbm, o_ref, maybe_whole()).start()

def run(x, use_bank):
    return pl.pallas_call(functools.partial(kernel, use_bank=use_bank), out_shape=OUT,
                          scratch_shapes=[DMA((4,)), DMA])(x)
"""
    assert found(src) == []


def test_accessor_non_scalar_on_every_path_is_flagged():
    src = HEAD + """
def kernel(x_hbm, o_ref, a_sems, b_sems, *, first):
    def sems():
        if first:
            return a_sems
        return b_sems.at[0]

    pltpu.make_async_copy(x_hbm, o_ref, sems()).start()

def run(x, first):
    return pl.pallas_call(functools.partial(kernel, first=first), out_shape=OUT,
                          scratch_shapes=[DMA((2,)), DMA((2, 3))])(x)
"""
    (f,) = analyze(src)
    assert (f.span.line + 1, f.code) == (line_of(src, "o_ref, sems())"), "PAL001")


def test_accessor_given_the_array_as_an_argument():
    src = HEAD + """
def pick(sems, i):
    return sems.at[i]

def everything(sems):
    return sems

def kernel(x_hbm, o_ref, sems):
    pltpu.async_copy(x_hbm, o_ref, pick(sems, 1)).wait()
    pltpu.async_copy(x_hbm, o_ref, everything(sems)).wait()

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
"""
    assert found(src) == [(line_of(src, "everything(sems))"), "PAL001", (2,))]


# ---------------------------------------------------------------- declarations

def test_conditional_declaration_scalar_on_one_path_is_silent():
    src = HEAD + """
def kernel(x_hbm, o_ref, sems):
    pltpu.make_async_copy(x_hbm, o_ref, sems).start()

def run(x, n, use_banks):
    return pl.pallas_call(kernel, out_shape=OUT,
                          scratch_shapes=[DMA((n,)) if use_banks else DMA])(x)
"""
    assert found(src) == []


def test_conditional_declaration_array_on_every_path_is_flagged():
    src = HEAD + """
def kernel(x_hbm, o_ref, sems):
    pltpu.make_async_copy(x_hbm, o_ref, sems).start()

def run(x, fits_one_window):
    dma_scope = DMA((2,) if fits_one_window else (3,))
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[dma_scope])(x)
"""
    assert [(line, code) for line, code, _ in found(src)] == [(line_of(src, "make_async_copy(x_hbm, o_ref, sems)"), "PAL001")]


def test_conditional_declaration_of_different_ranks_indexed_once_is_silent():
    """`sems.at[0]` is an error only when the 2-D declaration is chosen: not certain."""
    src = HEAD + """
def kernel(x_hbm, o_ref, sems):
    pltpu.make_async_copy(x_hbm, o_ref, sems.at[0]).start()

def run(x, n, use_bt_banking):
    sem_type = DMA((2, n)) if use_bt_banking else DMA((n,))
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[sem_type])(x)
"""
    assert found(src) == []


def test_conditional_declaration_with_matching_index_is_silent():
    src = HEAD + """
def kernel(x_hbm, o_ref, sems, *, use_bt_banking):
    sem = sems.at[0, 1] if use_bt_banking else sems.at[1]
    pltpu.make_async_copy(x_hbm, o_ref, sem).start()

def run(x, n, use_bt_banking):
    sem_type = DMA((2, n)) if use_bt_banking else DMA((n,))
    return pl.pallas_call(functools.partial(kernel, use_bt_banking=use_bt_banking),
                          out_shape=OUT, scratch_shapes=[sem_type])(x)
"""
    assert found(src) == []


def test_none_placeholders_keep_their_parameter():
    src = HEAD + """
def kernel(x_hbm, o_ref, unused, sems, also_unused, one):
    pltpu.async_copy(x_hbm, o_ref, one).wait()
    pltpu.async_copy(x_hbm, o_ref, sems).wait()

def run(x, use_extra):
    scratch = [None, DMA((2,)), VMEM if use_extra else None, DMA]
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=scratch)(x)
"""
    assert found(src) == [(line_of(src, "o_ref, sems)"), "PAL001", (2,))]


def test_semaphore_output_of_one_call_and_input_of_another():
    src = HEAD + """
def start_kernel(x_hbm, o_hbm, out_sem, sems):
    pltpu.make_async_copy(x_hbm, o_hbm, out_sem).start()
    pltpu.make_async_copy(x_hbm, o_hbm, sems).start()

def wait_kernel(x_hbm, sem_in, o_ref):
    pltpu.make_async_copy(x_hbm, x_hbm, sem_in).wait()

def run(x):
    y, sem = pl.pallas_call(
        start_kernel,
        out_shape=(OUT, pltpu.SemaphoreType.DMA(())),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=(pl.BlockSpec(memory_space=pl.ANY), pl.BlockSpec(memory_space=pltpu.SEMAPHORE)),
        scratch_shapes=[DMA((2,))],
    )(x)
    return pl.pallas_call(
        wait_kernel, out_shape=OUT,
        in_specs=[pl.BlockSpec(memory_space=pl.ANY), pl.BlockSpec(memory_space=pltpu.SEMAPHORE)],
    )(y, sem)
"""
    assert found(src) == [(line_of(src, "o_hbm, sems)"), "PAL001", (2,))]


def test_empty_ref_like():
    src = HEAD + """
def kernel(x_hbm, o_ref):
    one = pl.empty_ref_like(pltpu.SemaphoreType.DMA(()))
    sems = pl.empty_ref_like(pltpu.SemaphoreType.DMA((2,)))
    pltpu.async_copy(x_hbm, o_ref, one).wait()
    pltpu.async_copy(x_hbm, o_ref, sems.at[0]).wait()
    pltpu.async_copy(x_hbm, o_ref, sems).wait()

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT)(x)
"""
    assert found(src) == [(line_of(src, "o_ref, sems)"), "PAL001", (2,))]


def test_mesh_qualified_declarations():
    src = HEAD + """
def run(x_ref, o_ref):
    mesh = pltpu.create_tensorcore_mesh("core", num_cores=2)

    @functools.partial(pl.kernel, out_type=(), mesh=mesh,
                       scratch_types=dict(one=DMA @ mesh, scalar=DMA(()) @ mesh,
                                          pair=DMA((2,)) @ mesh))
    def body(*, one, scalar, pair):
        pltpu.async_copy(x_ref, o_ref, one).wait()
        pltpu.async_copy(x_ref, o_ref, scalar).wait()
        pltpu.async_copy(x_ref, o_ref, pair.at[1]).wait()
        pltpu.async_copy(x_ref, o_ref, pair).wait()

    return body()
"""
    assert found(src) == [(line_of(src, "o_ref, pair)"), "PAL001", (2,))]


# ---------------------------------------------------------------- unknown is silent

def test_shapes_from_runtime_values_are_silent():
    src = HEAD + """
def kernel(x_hbm, o_ref, a, b, c):
    pltpu.async_copy(x_hbm, o_ref, a).wait()
    pltpu.async_copy(x_hbm, o_ref, b).wait()
    pltpu.async_copy(x_hbm, o_ref, c).wait()

def run(x, cfg):
    return pl.pallas_call(kernel, out_shape=OUT,
                          scratch_shapes=[DMA(x.shape[:1]), DMA(cfg.sem_shape), DMA(tuple(cfg.dims))])(x)
"""
    assert found(src) == []


def test_scratch_from_an_unknown_function_is_silent():
    src = HEAD + """
from mylib.scratch import make_scratch

def kernel(x_hbm, o_ref, buf, sems):
    pltpu.async_copy(x_hbm, buf, sems).wait()

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=make_scratch(x))(x)
"""
    assert found(src) == []


def test_scratch_list_with_unknown_prefix_still_binds_from_the_end():
    """Scratch refs are the last parameters, so a known tail binds even when the head is
    a list of unknown length."""
    src = HEAD + """
from mylib.scratch import buffers

def kernel(x_hbm, o_ref, buf_a, buf_b, sems, one):
    pltpu.async_copy(x_hbm, o_ref, one).wait()
    pltpu.async_copy(x_hbm, o_ref, sems).wait()

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[*buffers(x), DMA((2,)), DMA])(x)
"""
    assert found(src) == [(line_of(src, "o_ref, sems).wait()"), "PAL001", (2,))]


def test_semaphore_from_an_unknown_call_is_silent():
    src = HEAD + """
from mylib import lookup_sem

def kernel(x_hbm, o_ref, sems):
    pltpu.async_copy(x_hbm, o_ref, lookup_sem(sems)).wait()
    pltpu.async_copy(x_hbm, o_ref, sems[0]).wait()

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
"""
    assert found(src) == []


def test_kernel_of_unknown_origin_is_silent():
    src = HEAD + """
from mylib.kernels import kernel

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
"""
    assert found(src) == []


def test_uncalled_kernel_with_unknown_parameters_is_silent():
    src = HEAD + """
def kernel(x_hbm, o_ref, sems):
    pltpu.async_copy(x_hbm, o_ref, sems).wait()
"""
    assert found(src) == []


def test_correlated_conditional_declaration_and_accessor_is_silent():
    """The sglang fused-MoE idiom: the declaration is an array only when the accessor
    indexes it; returning it bare is right on the other path."""
    src = HEAD + """
def kernel(x_hbm, o_ref, a2a_gather_sem, *, use_gather_bank):
    def a2a_gather_sem_ref(bank):
        if use_gather_bank:
            return a2a_gather_sem.at[bank]
        return a2a_gather_sem

    pltpu.make_async_copy(x_hbm, o_ref, a2a_gather_sem_ref(1)).start()
    pltpu.make_async_copy(x_hbm, o_ref, a2a_gather_sem_ref(0)).wait()

def run(x, use_gather_bank, banks):
    return pl.pallas_call(
        functools.partial(kernel, use_gather_bank=use_gather_bank), out_shape=OUT,
        scratch_shapes=[None, DMA((banks,)) if use_gather_bank else DMA][1:])(x)
"""
    assert found(src) == []
    assert found(src.replace("use_gather_bank=use_gather_bank), out_shape", "use_gather_bank=True), out_shape")
                 .replace("if use_gather_bank else DMA][1:]", "if True else DMA][1:]")) == []
    assert found(src.replace("use_gather_bank=use_gather_bank), out_shape", "use_gather_bank=False), out_shape")
                 .replace("if use_gather_bank else DMA][1:]", "if False else DMA][1:]")) == []


ASYNC_FUTURES = HEAD + """
def make_async_copy(target_memory_space=None):
    \"\"\"Our own start/done pair (not Pallas's make_async_copy): the semaphore is an
    output of the start kernel and an input of the done kernel.\"\"\"
    if target_memory_space is None:
        target_memory_space = pl.ANY

    def copy_start(x):
        def copy_start_kernel(x_ref, aliased_x_ref, o_ref, sem):
            del aliased_x_ref
            pltpu.make_async_copy(x_ref, o_ref, {start_sem}).start()

        x, out, sem = pl.pallas_call(
            copy_start_kernel,
            out_shape=(
                jax.ShapeDtypeStruct(x.shape, x.dtype),
                target_memory_space(x.shape, x.dtype),
                {decl},
            ),
            in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
            out_specs=(
                pl.BlockSpec(memory_space=pl.ANY),
                pl.BlockSpec(memory_space=target_memory_space),
                pl.BlockSpec(memory_space=pltpu.SEMAPHORE),
            ),
            input_output_aliases={{0: 0}},
        )(x)
        return x, (out, sem)

    def copy_done(x, future):
        out, sem = future

        def copy_done_kernel(x_ref, o_ref, sem, aliased_o_ref):
            del aliased_o_ref
            pltpu.make_async_copy(x_ref, o_ref, {done_sem}).wait()

        return pl.pallas_call(
            copy_done_kernel,
            out_shape=target_memory_space(x.shape, x.dtype),
            in_specs=[pl.BlockSpec(memory_space=pl.ANY), pl.BlockSpec(memory_space=target_memory_space),
                      pl.BlockSpec(memory_space=pltpu.SEMAPHORE)],
            out_specs=pl.BlockSpec(memory_space=target_memory_space),
            input_output_aliases={{1: 0}},
        )(x, out, sem)

    return copy_start, copy_done


@jax.jit
def f(x):
    copy_start, copy_done = make_async_copy()
    x, fut = copy_start(x)
    return copy_done(x, fut)
"""


def test_async_copy_futures_across_pallas_calls_correct():
    src = "\n" + ASYNC_FUTURES.format(decl="pltpu.SemaphoreType.DMA(())", start_sem="sem", done_sem="sem")
    assert found(src) == []


def test_async_copy_futures_across_pallas_calls_with_a_semaphore_array():
    src = "\n" + ASYNC_FUTURES.format(decl="pltpu.SemaphoreType.DMA((2,))", start_sem="sem", done_sem="sem")
    assert found(src) == [
        (line_of(src, "(x_ref, o_ref, sem).start()"), "PAL001", (2,)),
        (line_of(src, "(x_ref, o_ref, sem).wait()"), "PAL003", (2,)),
    ]
    indexed = "\n" + ASYNC_FUTURES.format(decl="pltpu.SemaphoreType.DMA((2,))", start_sem="sem.at[0]",
                                          done_sem="sem.at[0]")
    assert found(indexed) == []


def test_semaphore_future_passed_through_helpers():
    """The start kernel's semaphore output travels in a (out, sem) "future" through a
    helper into the done kernel, which waits on it (PAL003 for the array)."""
    src = HEAD + """
ANY = pl.BlockSpec(memory_space=pl.ANY)
SEM = pl.BlockSpec(memory_space=pltpu.SEMAPHORE)

def start_kernel(x_ref, aliased, o_ref, sem):
    pltpu.make_async_copy(x_ref, o_ref, sem.at[0]).start()

def done_kernel(x_ref, o_ref, sem, aliased_o):
    pltpu.make_async_copy(x_ref, o_ref, sem).wait()

def start(x):
    y, out, sem = pl.pallas_call(start_kernel, out_shape=(OUT, OUT, pltpu.SemaphoreType.DMA((2,))),
                                 in_specs=[ANY], out_specs=(ANY, ANY, SEM))(x)
    return y, (out, sem)

def done(x, future):
    out, sem = future
    return pl.pallas_call(done_kernel, out_shape=x, in_specs=[ANY, ANY, SEM], out_specs=ANY)(x, out, sem)

def f(x):
    y, fut = start(x)
    return done(y, fut)
"""
    assert found(src) == [(line_of(src, "(x_ref, o_ref, sem).wait()"), "PAL003", (2,))]


BIDI_FUTURES = HEAD + """
SEM = pl.BlockSpec(memory_space=pltpu.SEMAPHORE)
ANY = pl.BlockSpec(memory_space=pl.ANY)

def make_bidi(axis_name):
    def copy_start(x):
        def copy_start_kernel(x_ref, aliased_x_ref, o_ref, left_sems, right_sems):
            right = jax.lax.axis_index(axis_name) + 1
            pltpu.make_async_remote_copy(x_ref, o_ref, right_sems[0], right_sems[1], device_id=right).start()

        x, out, left_sems, right_sems = pl.pallas_call(
            copy_start_kernel,
            out_shape=(jax.ShapeDtypeStruct(x.shape, x.dtype), pl.ANY(x.shape, x.dtype),
                       (pltpu.SemaphoreType.DMA({shape}),) * 2, (pltpu.SemaphoreType.DMA({shape}),) * 2),
            in_specs=[ANY], out_specs=(ANY, ANY, (SEM,) * 2, (SEM,) * 2),
            input_output_aliases={{0: 0}},
        )(x)
        return x, (out, left_sems, right_sems)

    def send_done(x, future):
        _, (send_left_sem, _), (send_right_sem, _) = future

        def send_done_kernel(x_ref, send_left_sem, send_right_sem, aliased_o_ref):
            pltpu.make_async_copy(x_ref, x_ref, send_right_sem).wait()

        return pl.pallas_call(send_done_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                              in_specs=[ANY, SEM, SEM], out_specs=ANY, input_output_aliases={{0: 0}})(
            x, send_left_sem, send_right_sem)

    return copy_start, send_done

def f(x):
    copy_start, send_done = make_bidi("x")
    x, fut = copy_start(x)
    return send_done(x, fut)
"""


def test_semaphore_tuples_in_out_shape_correct():
    """JAX's bidirectional collective-permute futures: `(DMA(()),) * 2` outputs arrive as
    tuples of refs, travel in a future and are waited on by another kernel."""
    assert found("\n" + BIDI_FUTURES.format(shape="()")) == []


def test_semaphore_tuples_in_out_shape_with_arrays():
    src = "\n" + BIDI_FUTURES.format(shape="(2,)")
    remote = line_of(src, "right_sems[0], right_sems[1]")
    assert found(src) == [
        (remote, "PAL001", (2,)),
        (remote, "PAL001", (2,)),
        (line_of(src, "(x_ref, x_ref, send_right_sem).wait()"), "PAL003", (2,)),
    ]


STATEFUL_FUTURES = HEAD + """
SEM = pl.BlockSpec(memory_space=pltpu.SEMAPHORE)

def make_stateful_async_copy():
    def copy_start(x_ref, o_ref):
        def copy_start_kernel(sem):
            pltpu.make_async_copy(x_ref, o_ref, sem).start()

        return pl.pallas_call(copy_start_kernel, out_shape=pltpu.SemaphoreType.DMA({shape}),
                              out_specs=SEM)()

    def copy_done(x_ref, o_ref, future):
        def copy_done_kernel(sem):
            pltpu.make_async_copy(x_ref, o_ref, sem).wait()

        () = pl.pallas_call(copy_done_kernel, out_shape=(), in_specs=[SEM])(future)

    return copy_start, copy_done

def body(refs):
    copy_start, copy_done = make_stateful_async_copy()
    x_ref, y_ref = refs
    fut = copy_start(x_ref, y_ref)
    copy_done(x_ref, y_ref, fut)
"""


def test_stateful_futures_kernel_with_only_a_semaphore_output():
    assert found("\n" + STATEFUL_FUTURES.format(shape="()")) == []
    src = "\n" + STATEFUL_FUTURES.format(shape="(2,)")
    assert found(src) == [(line_of(src, "(x_ref, o_ref, sem).start()"), "PAL001", (2,)),
                          (line_of(src, "(x_ref, o_ref, sem).wait()"), "PAL003", (2,))]
