"""Stream a (48, 128) activation from HBM in (8, 128) row blocks, triple-buffered: step
`b` prefetches block `b + 1` into slot `(b + 1) % 3` through `jax.lax.switch` over one
branch per slot, then waits for block `b` and doubles it into the output.

The branches are lambdas built in a comprehension, each keeping its slot in a default
argument (`lambda blk, s=s: ...`), as Python binds defaults where the lambda is made.
The prologue starts block 0 on the first step.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

N, NSLOT, ROWS, COLS = 6, 3, 8, 128


def stream_kernel(x_hbm, o_ref, buf, sems):
    b = pl.program_id(0)

    def fetch(block, s):
        return pltpu.make_async_copy(x_hbm.at[pl.ds(block * ROWS, ROWS)], buf.at[s], sems.at[s])

    branches = [lambda blk, s=s: fetch(blk, s).start() for s in range(NSLOT)]

    @pl.when(b == 0)
    def _():
        fetch(0, 0).start()

    @pl.when(b + 1 < pl.num_programs(0))
    def _():
        jax.lax.switch((b + 1) % NSLOT, branches, b + 1)

    fetch(b, b % NSLOT).wait()
    o_ref[...] = buf[b % NSLOT] * 2.0


def stream(x):
    return pl.pallas_call(
        stream_kernel,
        out_shape=jax.ShapeDtypeStruct((N * ROWS, COLS), jnp.float32),
        grid=(N,),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec((ROWS, COLS), lambda i: (i, 0)),
        scratch_shapes=[pltpu.VMEM((NSLOT, ROWS, COLS), jnp.float32),
                        pltpu.SemaphoreType.DMA((NSLOT,))],
        compiler_params=pltpu.CompilerParams(dimension_semantics=("arbitrary",)),
        interpret=pltpu.InterpretParams(),
    )(x)


def jax_check():
    return stream(jnp.ones((N * ROWS, COLS), jnp.float32))
