"""Chunked copy with semaphores allocated by `pl.run_scoped` (correct).

The kernel allocates, for the duration of one scope, a VMEM staging buffer, a
`DMA((CHUNKS,))` array (one semaphore per chunk, so all chunks can be in flight at
once) and a REGULAR semaphore used to count finished chunks.

Run it on CPU (interpret mode):  python examples/run_scoped_copy.py
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

CHUNKS = 4
ROWS = 8


def chunked_copy_kernel(x_hbm, o_ref):
    def scoped(buf, sems, done):
        copies = []
        for c in range(CHUNKS):
            rows = pl.ds(c * (ROWS // CHUNKS), ROWS // CHUNKS)
            copies.append(pltpu.async_copy(x_hbm.at[rows], buf.at[rows], sems.at[c]))
        for cp in copies:
            cp.wait()
            pl.semaphore_signal(done, 1)
        pl.semaphore_wait(done, CHUNKS)
        o_ref[...] = buf[...] + 1.0

    pl.run_scoped(
        scoped,
        pltpu.VMEM((ROWS, 128), jnp.float32),
        pltpu.SemaphoreType.DMA((CHUNKS,)),
        pltpu.SemaphoreType.REGULAR,
    )


def chunked_copy(x):
    return pl.pallas_call(
        chunked_copy_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
        interpret=True,
    )(x)


def main():
    x = jnp.arange(ROWS * 128, dtype=jnp.float32).reshape(ROWS, 128)
    assert jnp.allclose(chunked_copy(x), x + 1.0)
    print("run_scoped_copy: ok")


if __name__ == "__main__":
    main()
