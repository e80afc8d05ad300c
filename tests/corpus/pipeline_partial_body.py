"""A two-input `emit_pipeline` whose body is a `functools.partial` and gets two
semaphore scratches after its blocks; and `pl.core_map` with dict scratch (keyword refs)."""

import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

ANY = pl.BlockSpec(memory_space=pl.ANY)
S = jax.ShapeDtypeStruct((8, 128), jnp.float32)


def two_input_pipeline_kernel(a_hbm, b_hbm, o_hbm, tmp, sems, one):
    def body(a_blk, b_blk, o_blk, sems_s, one_s, *, scale):
        pltpu.async_copy(a_hbm, tmp, sems_s.at[0]).wait()
        pltpu.async_copy(b_hbm, tmp, one_s).wait()
        o_blk[...] = (a_blk[...] + b_blk[...] + tmp[...]) * scale

    spec = pl.BlockSpec((8, 128), lambda i: (i, 0))
    pltpu.emit_pipeline(functools.partial(body, scale=2.0), grid=(1,), in_specs=[spec, spec],
                        out_specs=[spec])(a_hbm, b_hbm, o_hbm, scratches=[sems, one])


def core_map_dict(x):
    mesh = pltpu.create_tensorcore_mesh("core", num_cores=1)

    def stateful(refs):
        x_ref, o_ref = refs

        @pl.core_map(mesh, scratch_shapes={"sems": pltpu.SemaphoreType.DMA((2,)),
                                               "one": pltpu.SemaphoreType.DMA}, interpret=True)
        def _(sems, one):
            pltpu.async_copy(x_ref, o_ref, sems.at[1]).wait()
            pltpu.async_copy(x_ref, o_ref, one).wait()

    return pl.run_state(stateful)((x, jnp.zeros_like(x)))[1]


def trace():
    x = jnp.ones((8, 128), jnp.float32)
    out = pl.pallas_call(
        two_input_pipeline_kernel, out_shape=S, in_specs=[ANY, ANY], out_specs=ANY,
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32), pltpu.SemaphoreType.DMA((2,)),
                        pltpu.SemaphoreType.DMA],
        interpret=True,
    )(x, x + 1)
    assert jnp.allclose(out, (1.0 + 2.0 + 2.0) * 2.0)
    jax.make_jaxpr(core_map_dict)(x)
