"""MoE-style kernel whose DMAs take semaphores from small accessor functions.

`scatter_send_sem()` and friends return views into the semaphore arrays; the gather
semaphore is banked or not depending on a static flag, so its accessor returns the
bare declaration on the path where that declaration is a single semaphore.
"""

import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

NUM_EXPERTS = 2
BANKS = 2


def moe_kernel(tokens_hbm, o_ref, expert_buf, scatter_sems, gather_sem, *, use_gather_bank):
    def scatter_send_sem(e):
        return scatter_sems.at[e]

    def gather_sem_ref(bank):
        if use_gather_bank:
            return gather_sem.at[bank]
        return gather_sem

    for e in range(NUM_EXPERTS):
        pltpu.make_async_copy(
            tokens_hbm.at[e], expert_buf.at[e], scatter_send_sem(e)
        ).start()
    for e in range(NUM_EXPERTS):
        pltpu.make_async_copy(tokens_hbm.at[e], expert_buf.at[e], scatter_send_sem(e)).wait()

    for e in range(NUM_EXPERTS):
        bank = e % BANKS
        back = pltpu.make_async_copy(expert_buf.at[e], o_ref.at[e], gather_sem_ref(bank))
        back.start()
        back.wait()


def run_moe(tokens, use_gather_bank):
    gather = pltpu.SemaphoreType.DMA((BANKS,)) if use_gather_bank else pltpu.SemaphoreType.DMA
    return pl.pallas_call(
        functools.partial(moe_kernel, use_gather_bank=use_gather_bank),
        out_shape=jax.ShapeDtypeStruct(tokens.shape, tokens.dtype),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pl.ANY),
        scratch_shapes=[
            pltpu.VMEM(tokens.shape, tokens.dtype),
            pltpu.SemaphoreType.DMA((NUM_EXPERTS,)),
            gather,
        ],
        interpret=True,
    )(tokens)


def trace():
    tokens = jnp.arange(NUM_EXPERTS * 8 * 128, dtype=jnp.float32).reshape(NUM_EXPERTS, 8, 128)
    for banked in (True, False):
        assert jnp.allclose(run_moe(tokens, banked), tokens)
