"""DMA and semaphore helpers under the usual function wrappers: `jax.named_call`,
`jax.named_scope`, `jax.profiler.annotate_function`, `jax.checkpoint` / `jax.remat`.

The wrappers return the same function (or trace it in place), so the semaphore a
helper receives is the one its caller passes: one semaphore each time.  The remat
kernel is traced with `make_jaxpr`: JAX builds its jaxpr (and checks every semaphore),
but the CPU interpreter cannot discharge a DMA inside a remat region.
"""

import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

NBUF = 2


@jax.named_call
def fetch(src, dst, sem):
    cp = pltpu.make_async_copy(src, dst, sem)
    cp.start()
    cp.wait()


@functools.partial(jax.named_call, name="writeback")
def writeback(src, dst, sem):
    pltpu.async_copy(src, dst, sem).wait()


@jax.profiler.annotate_function
def handshake(flag):
    pl.semaphore_signal(flag)
    pl.semaphore_wait(flag)


@jax.checkpoint
def scale(block):
    return block * 2.0


def scale_kernel(x_hbm, o_hbm, buf, sems, flags):
    with jax.named_scope("load"):
        for b in range(NBUF):
            fetch(x_hbm.at[b], buf.at[b], sems.at[b])
    handshake(flags.at[0])
    buf[...] = scale(buf[...])
    with jax.named_scope("store"):
        writeback(buf, o_hbm, sems.at[NBUF - 1])


@jax.remat
def remat_fetch(src, dst, sem):
    pltpu.async_copy(src, dst, sem).wait()


@functools.partial(jax.checkpoint, prevent_cse=False)
def checkpointed_bump(flag, inc):
    pl.semaphore_signal(flag, inc)
    pl.semaphore_wait(flag, inc)


def remat_kernel(x_hbm, o_hbm, buf, sems, flags):
    for b in range(NBUF):
        remat_fetch(x_hbm.at[b], buf.at[b], sems.at[b])
    checkpointed_bump(flags.at[1], 1)
    remat_fetch(buf, o_hbm, sems.at[0])


def _call(kernel):
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((NBUF, 8, 128), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pl.ANY),
        scratch_shapes=[
            pltpu.VMEM((NBUF, 8, 128), jnp.float32),
            pltpu.SemaphoreType.DMA((NBUF,)),
            pltpu.SemaphoreType.REGULAR((2,)),
        ],
        interpret=True,
    )


def trace():
    x = jnp.ones((NBUF, 8, 128), jnp.float32)
    assert jnp.allclose(_call(scale_kernel)(x), 2.0)
    jax.make_jaxpr(_call(remat_kernel))(x)
