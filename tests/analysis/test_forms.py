"""More kernel shapes seen in real code: control flow (while_loop, cond, switch, with, try),
lambda / *refs / factory / method kernels, wrappers (jit, shard_map), helper argument
forwarding. Each case lists the findings as (text on the flagged line, code, shape)."""

import pytest

from .helpers import found, line_of

HEAD = """
import functools
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import PartitionSpec as P

DMA = pltpu.SemaphoreType.DMA
REGULAR = pltpu.SemaphoreType.REGULAR
OUT = jax.ShapeDtypeStruct((8, 128), jnp.float32)
"""

CASES = {

"while": """
def kernel(x_hbm, o_ref, sems):
    def cond(c):
        return c < 4
    def body(c):
        pltpu.async_copy(x_hbm, o_ref, sems).wait()
        return c + 1
    lax.while_loop(cond, body, 0)
def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
""",
"cond": """
def kernel(x_hbm, o_ref, sems):
    lax.cond(pl.program_id(0) == 0,
             lambda: pltpu.async_copy(x_hbm, o_ref, sems.at[0]).wait(),
             lambda: pltpu.async_copy(x_hbm, o_ref, sems).wait())
def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, grid=(2,), scratch_shapes=[DMA((2,))])(x)
""",
"switch": """
def kernel(x_hbm, o_ref, sems):
    def a():
        pl.semaphore_signal(sems)
    def b():
        pl.semaphore_signal(sems.at[1])
    lax.switch(pl.program_id(0), [a, b])
def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, grid=(2,), scratch_shapes=[REGULAR((2,))])(x)
""",
"lambda kernel": """
def run(x):
    return pl.pallas_call(lambda x_hbm, o_ref, s: pltpu.async_copy(x_hbm, o_ref, s).wait(),
                          out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
""",
"star refs": """
def kernel(*refs):
    x_hbm, o_ref, sems = refs
    pltpu.async_copy(x_hbm, o_ref, sems).wait()
def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
""",
"kernel kw": """
def kernel(x_hbm, o_ref, sems):
    pltpu.async_copy(x_hbm, o_ref, sems).wait()
def run(x):
    return pl.pallas_call(kernel=kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
""",
"jit wrap": """
def kernel(x_hbm, o_ref, sems):
    pltpu.async_copy(x_hbm, o_ref, sems).wait()
@functools.partial(jax.jit, static_argnums=1)
def run(x, n):
    return jax.jit(pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((n,))]))(x)
""",
"shard_map": """
def kernel(x_hbm, o_ref, sems):
    pltpu.async_copy(x_hbm, o_ref, sems).wait()
def per_shard(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
def run(x, mesh):
    return jax.shard_map(per_shard, mesh=mesh, in_specs=P("x"), out_specs=P("x"))(x)
""",
"staticmethod": """
class Ops:
    @staticmethod
    def kernel(x_hbm, o_ref, sems):
        pltpu.async_copy(x_hbm, o_ref, sems).wait()
def run(x):
    return pl.pallas_call(Ops.kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
""",
"factory": """
def make_kernel(nslots):
    def kernel(x_hbm, o_ref, sems):
        pltpu.async_copy(x_hbm, o_ref, sems.at[nslots - 1]).wait()
        pltpu.async_copy(x_hbm, o_ref, sems).wait()
    return kernel
def run(x):
    return pl.pallas_call(make_kernel(2), out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
""",
"with/try/walrus": """
def kernel(x_hbm, o_ref, sems):
    with jax.named_scope("copy"):
        try:
            pltpu.async_copy(x_hbm, o_ref, (s := sems)).wait()
        finally:
            pass
def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
""",
"range loop ok": """
def kernel(x_hbm, o_ref, sems):
    for slot in range(2):
        pltpu.async_copy(x_hbm, o_ref, sems.at[slot]).wait()
def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
""",
"comprehension": """
def kernel(x_hbm, o_ref, buf, sems):
    ok = [pltpu.make_async_copy(x_hbm.at[i], buf.at[i], sems.at[i]) for i in range(2)]
    bad = [pltpu.make_async_copy(x_hbm.at[i], buf.at[i], sems) for i in range(2)]
    for c in ok:
        c.start()
    for c in bad:
        c.start()
def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[pltpu.VMEM((2, 8, 128), jnp.float32), DMA((2,))])(x)
""",
"module scratch": """
SCRATCH = [pltpu.VMEM((8, 128), jnp.float32), DMA((2,))]
def kernel(x_hbm, o_ref, buf, sems):
    pltpu.async_copy(x_hbm, buf, sems).wait()
def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=SCRATCH)(x)
""",
"default param": """
def kernel(x_hbm, o_ref, sems, nslots=2):
    pltpu.async_copy(x_hbm, o_ref, sems.at[nslots - 1]).wait()
    pltpu.async_copy(x_hbm, o_ref, sems).wait()
def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
""",
"regular 2d": """
def kernel(x_hbm, o_ref, flags):
    pl.semaphore_signal(flags.at[pl.program_id(0)])
def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, grid=(2,), scratch_shapes=[REGULAR((2, 3))])(x)
""",
"kernel in jit method": """
class Model:
    def __init__(self, n):
        self.n = n
    def kernel(self, x_hbm, o_ref, sems):
        pltpu.async_copy(x_hbm, o_ref, sems).wait()
    def __call__(self, x):
        return pl.pallas_call(self.kernel, out_shape=OUT, scratch_shapes=[DMA((self.n,))])(x)
""",
"in_specs sem input": """
def kernel(x_hbm, sem_in, o_ref):
    pltpu.make_async_copy(x_hbm, o_ref, sem_in).wait()
def run(x, sem):
    return pl.pallas_call(kernel, out_shape=OUT,
        in_specs=[pl.BlockSpec(memory_space=pl.ANY), pl.BlockSpec(memory_space=pltpu.SEMAPHORE)])(x, sem)
""",
"semaphore_signal device kwargs": """
def kernel(x_hbm, o_ref, flags):
    pl.semaphore_signal(flags, 1, device_id={"x": 0}, device_id_type=pl.DeviceIdType.MESH)
    pltpu.semaphore_signal(flags.at[0], inc=1, device_id=(0,), core_index=0)
def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[REGULAR((2,))])(x)
""",
"same name diff shapes": """
def test_a(x):
    def kernel(x_hbm, o_ref):
        def body(sems):
            pltpu.async_copy(x_hbm, o_ref, sems.at[0]).wait()
        pl.run_scoped(body, DMA((3,)))
    return pl.pallas_call(kernel, out_shape=OUT)(x)
def test_b(x):
    def kernel(x_hbm, o_ref):
        def body(sems):
            pltpu.async_copy(x_hbm, o_ref, sems.at[0, 1]).wait()
        pl.run_scoped(body, DMA((4, 3)))
    return pl.pallas_call(kernel, out_shape=OUT)(x)
def test_c(x, m, n):
    def kernel(x_hbm, o_ref):
        def body(sems):
            pltpu.async_copy(x_hbm, o_ref, sems.at[m - 1, n - 1]).wait()
        pl.run_scoped(body, DMA((m, n)))
    return pl.pallas_call(kernel, out_shape=OUT)(x)
""",
"shape test": """
def kernel(x_hbm, o_ref, sems):
    s = sems if len(sems.shape) == 0 else sems.at[0]
    pltpu.async_copy(x_hbm, o_ref, s).wait()
    t = sems if sems.shape == () else sems.at[0]
    pltpu.async_copy(x_hbm, o_ref, t).wait()
def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
""",
"varargs scratch": """
def kernel(x_hbm, o_ref, *scratch):
    buf, sems = scratch
    pltpu.async_copy(x_hbm, buf, sems).wait()
def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32), DMA((2,))])(x)
""",
"helper kw call": """
def copy(src, dst, sem):
    pltpu.async_copy(src, dst, sem).wait()
def kernel(x_hbm, o_ref, sems):
    copy(src=x_hbm, dst=o_ref, sem=sems)
def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
""",
"helper *args": """
def copy(*args):
    pltpu.async_copy(*args).wait()
def kernel(x_hbm, o_ref, sems):
    copy(x_hbm, o_ref, sems)
def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
""",
"helper **kw": """
def copy(src, dst, **kw):
    pltpu.async_copy(src, dst, **kw).wait()
def kernel(x_hbm, o_ref, sems):
    copy(x_hbm, o_ref, sem=sems)
def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
""",
"closure called w/ array": """
def kernel(x_hbm, o_ref, sems):
    def start(sem):
        pltpu.async_copy(x_hbm, o_ref, sem).wait()
    start(sems.at[1])
    start(sems)
def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
""",
"default arg closure": """
def kernel(x_hbm, o_ref, sems):
    def start(sem=sems):
        pltpu.async_copy(x_hbm, o_ref, sem).wait()
    start()
def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
""",
"helper default None": """
def copy(src, dst, sem=None, sems=None, slot=0):
    if sem is None:
        sem = sems.at[slot]
    pltpu.async_copy(src, dst, sem).wait()
def kernel(x_hbm, o_ref, sems, one):
    copy(x_hbm, o_ref, sems=sems, slot=1)
    copy(x_hbm, o_ref, one)
def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,)), DMA])(x)
""",
"descriptor in dict": """
def kernel(x_hbm, o_ref, sems):
    copies = {"a": pltpu.make_async_copy(x_hbm, o_ref, sems.at[0]),
              "b": pltpu.make_async_copy(x_hbm, o_ref, sems)}
    copies["a"].start()
    copies["b"].start()
def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
""",
"tuple return helper": """
def sems_for(send, recv, slot):
    return send.at[slot], recv
def kernel(x_hbm, o_ref, send, recv):
    s, r = sems_for(send, recv, 0)
    pltpu.make_async_remote_copy(x_hbm, o_ref, s, r, device_id=0).start()
def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,)), DMA((2,))])(x)
""",
"enumerate zip": """
def kernel(x_hbm, o_ref, a, b):
    for i, s in enumerate((a, b)):
        pltpu.async_copy(x_hbm, o_ref, s.at[0]).wait()
    for s, t in zip((a, b), (a.at[1], b.at[1])):
        pltpu.async_copy(x_hbm, o_ref, t).wait()
def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,)), DMA((2,))])(x)
""",
"grid_spec scratch var + prefetch count var": """
def kernel(idx_ref, x_hbm, o_ref, sems):
    pltpu.async_copy(x_hbm, o_ref, sems.at[idx_ref[0]]).wait()
    pltpu.async_copy(x_hbm, o_ref, sems).wait()
NUM_PREFETCH = 1
def run(idx, x):
    spec = pltpu.PrefetchScalarGridSpec(num_scalar_prefetch=NUM_PREFETCH, grid=(1,), scratch_shapes=(DMA((2,)),))
    return pl.pallas_call(kernel, out_shape=OUT, grid_spec=spec)(idx, x)
""",
"prefetch unknown count": """
def kernel(idx_ref, x_hbm, o_ref, sems, one):
    pltpu.async_copy(x_hbm, o_ref, one).wait()
    pltpu.async_copy(x_hbm, o_ref, sems).wait()
def run(idx, x, n):
    spec = pltpu.PrefetchScalarGridSpec(num_scalar_prefetch=n, grid=(1,), scratch_shapes=(DMA((2,)), DMA))
    return pl.pallas_call(kernel, out_shape=OUT, grid_spec=spec)(idx, x)
""",
"partial pallas_call decorator": """
@functools.partial(pl.pallas_call, out_shape=OUT, scratch_shapes=[DMA((2,)), DMA])
def kernel(x_hbm, o_ref, sems, one):
    pltpu.async_copy(x_hbm, o_ref, one).wait()
    pltpu.async_copy(x_hbm, o_ref, sems).wait()
""",
"named_scope helper": """
@jax.named_scope("copy")
def copy(src, dst, sem):
    pltpu.async_copy(src, dst, sem).wait()
def kernel(x_hbm, o_ref, sems):
    copy(x_hbm, o_ref, sems)
def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
""",
"named_call kernel": """
@functools.partial(jax.named_call, name="my_kernel")
def kernel(x_hbm, o_ref, sems):
    pltpu.async_copy(x_hbm, o_ref, sems).wait()
def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
""",
"own decorator passthrough": """
def traced(f):
    return f
@traced
def kernel(x_hbm, o_ref, sems):
    pltpu.async_copy(x_hbm, o_ref, sems).wait()
def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[DMA((2,))])(x)
""",
"partial flags per call": """
def kernel(x_hbm, o_ref, sems, *, whole):
    if whole:
        pl.semaphore_wait(sems)
    else:
        pl.semaphore_wait(sems.at[0])
def run(x):
    a = pl.pallas_call(functools.partial(kernel, whole=False), out_shape=OUT, scratch_shapes=[REGULAR((2,))])(x)
    b = pl.pallas_call(functools.partial(kernel, whole=True), out_shape=OUT, scratch_shapes=[REGULAR])(x)
    return a, b
""",
"helper flags per call": """
def wait(sems, whole):
    if whole:
        pl.semaphore_wait(sems)
    else:
        pl.semaphore_wait(sems.at[0])
def kernel(x_hbm, o_ref, sems, one):
    wait(sems, False)
    wait(one, True)
def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[REGULAR((2,)), REGULAR])(x)
""",
"helper flags per call bad": """
def wait(sems, whole):
    if whole:
        pl.semaphore_wait(sems)
    else:
        pl.semaphore_wait(sems.at[0])
def kernel(x_hbm, o_ref, sems, one):
    wait(sems, False)
    wait(sems, True)
def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[REGULAR((2,)), REGULAR])(x)
""",
"same kernel two scratch": """
def kernel(x_hbm, o_ref, sems, *, n):
    for i in range(n):
        pl.semaphore_wait(sems.at[i])
def run(x):
    a = pl.pallas_call(functools.partial(kernel, n=2), out_shape=OUT, scratch_shapes=[REGULAR((2,))])(x)
    b = pl.pallas_call(functools.partial(kernel, n=3), out_shape=OUT, scratch_shapes=[REGULAR((3, 2))])(x)
    return a, b
""",
"fori partial": """
def body(i, carry, *, sems):
    pl.semaphore_wait(sems)
    return carry
def kernel(x_hbm, o_ref, sems):
    jax.lax.fori_loop(0, 2, functools.partial(body, sems=sems), 0)
def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[REGULAR((2,))])(x)
""",
"fori kw": """
def kernel(x_hbm, o_ref, sems):
    def body(i, carry):
        pl.semaphore_wait(sems)
        return carry
    jax.lax.fori_loop(lower=0, upper=2, body_fun=body, init_val=0)
def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[REGULAR((2,))])(x)
""",
"scan": """
def kernel(x_hbm, o_ref, sems):
    def step(c, x):
        pl.semaphore_wait(sems)
        return c, x
    jax.lax.scan(step, 0, jnp.arange(2))
def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[REGULAR((2,))])(x)
""",
"module level main": """
def kernel(x_hbm, o_ref, sems):
    pltpu.async_copy(x_hbm, o_ref, sems).wait()

x = jnp.zeros((8, 128), jnp.float32)
if __name__ == "__main__":
    with jax.default_device(jax.devices("cpu")[0]):
        out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                             scratch_shapes=[DMA((2,))])(x)
""",
"dict of lists": """
def kernel(x_hbm, o_ref, *, sems, bufs):
    pltpu.async_copy(x_hbm, o_ref, sems[0]).wait()
    pltpu.async_copy(x_hbm, o_ref, sems[1]).wait()
def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=dict(sems=[DMA, DMA((2,))], bufs=(pltpu.VMEM((8, 128), jnp.float32),)))(x)
""",
"list of dicts": """
def kernel(x_hbm, o_ref, group):
    pltpu.async_copy(x_hbm, o_ref, group["send"]).wait()
    pltpu.async_copy(x_hbm, o_ref, group["recv"]).wait()
def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[{"send": DMA, "recv": DMA((2,))}])(x)
""",
"dict kwargs unpack in kernel": """
def kernel(x_hbm, o_ref, **scratch):
    pltpu.async_copy(x_hbm, o_ref, scratch["one"]).wait()
    pltpu.async_copy(x_hbm, o_ref, scratch["sems"]).wait()
def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=dict(one=DMA, sems=DMA((2,))))(x)
""",
"zip over scratch": """
def kernel(x_hbm, o_ref, bufs, sems):
    for buf, sem in zip(bufs, sems):
        pltpu.async_copy(x_hbm, buf, sem).wait()
def run(x):
    v = pltpu.VMEM((8, 128), jnp.float32)
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[(v, v), (DMA, DMA((2,)))])(x)
""",
"enumerate over scratch": """
def kernel(x_hbm, o_ref, sems):
    for i, sem in enumerate(sems):
        pltpu.async_copy(x_hbm, o_ref, sem).wait()
def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, scratch_shapes=[(DMA, DMA((2,)))])(x)
""",
}

A = "async_copy(x_hbm, o_ref, sems)"
EXPECTED = {
    "while": [(A, "PAL001", (2,))],
    "cond": [("lambda: pltpu." + A, "PAL001", (2,))],
    "switch": [("pl.semaphore_signal(sems)", "PAL002", (2,))],
    "lambda kernel": [("lambda x_hbm, o_ref, s:", "PAL001", (2,))],
    "star refs": [(A, "PAL001", (2,))],
    "kernel kw": [(A, "PAL001", (2,))],
    "jit wrap": [(A, "PAL001", ("n",))],
    "shard_map": [(A, "PAL001", (2,))],
    "staticmethod": [(A, "PAL001", (2,))],
    "factory": [(A + ".wait()", "PAL001", (2,))],
    "with/try/walrus": [("(s := sems)", "PAL001", (2,))],
    "range loop ok": [],
    "comprehension": [("buf.at[i], sems) for", "PAL001", (2,))],
    "module scratch": [("async_copy(x_hbm, buf, sems)", "PAL001", (2,))],
    "default param": [(A, "PAL001", (2,))],
    "regular 2d": [("semaphore_signal(flags.at", "PAL002", (3,))],
    "kernel in jit method": [(A, "PAL001", ("self.n",))],
    "in_specs sem input": [],
    "semaphore_signal device kwargs": [("pl.semaphore_signal(flags, 1", "PAL002", (2,))],
    "same name diff shapes": [],
    "shape test": [],
    "varargs scratch": [("async_copy(x_hbm, buf, sems)", "PAL001", (2,))],
    "helper kw call": [("sem=sems)", "PAL001", (2,))],
    "helper *args": [("copy(x_hbm, o_ref, sems)", "PAL001", (2,))],
    "helper **kw": [("copy(x_hbm, o_ref, sem=sems)", "PAL001", (2,))],
    "closure called w/ array": [("start(sems)", "PAL001", (2,))],
    "default arg closure": [("async_copy(x_hbm, o_ref, sem)", "PAL001", (2,))],
    "helper default None": [],
    "descriptor in dict": [('"b": pltpu.make_async_copy', "PAL001", (2,))],
    "tuple return helper": [("s, r = sems_for", "PAL001", (2,))],
    "enumerate zip": [],
    "grid_spec scratch var + prefetch count var": [(A + ".wait()", "PAL001", (2,))],
    "prefetch unknown count": [(A + ".wait()", "PAL001", (2,))],
    "partial pallas_call decorator": [(A + ".wait()", "PAL001", (2,))],
    "named_scope helper": [("copy(x_hbm, o_ref, sems)", "PAL001", (2,))],
    "named_call kernel": [(A, "PAL001", (2,))],
    "own decorator passthrough": [(A, "PAL001", (2,))],
    "partial flags per call": [],
    "helper flags per call": [],
    "helper flags per call bad": [("wait(sems, True)", "PAL002", (2,))],
    "same kernel two scratch": [("semaphore_wait(sems.at[i])", "PAL002", (2,))],
    "fori partial": [("pl.semaphore_wait(sems)", "PAL002", (2,))],
    "fori kw": [("pl.semaphore_wait(sems)", "PAL002", (2,))],
    "scan": [("pl.semaphore_wait(sems)", "PAL002", (2,))],
    "module level main": [(A, "PAL001", (2,))],
    "dict of lists": [("o_ref, sems[1])", "PAL001", (2,))],
    "list of dicts": [('o_ref, group["recv"])', "PAL001", (2,))],
    "dict kwargs unpack in kernel": [('o_ref, scratch["sems"])', "PAL001", (2,))],
    "zip over scratch": [("async_copy(x_hbm, buf, sem)", "PAL001", (2,))],
    "enumerate over scratch": [("async_copy(x_hbm, o_ref, sem)", "PAL001", (2,))],
}


def test_every_case_has_an_expectation():
    assert set(EXPECTED) == set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_form(name):
    src = HEAD + CASES[name]
    want = [(line_of(src, needle), code, shape) for needle, code, shape in EXPECTED[name]]
    assert found(src) == want
