"""Helpers shared by the package's kernels: DMA wrappers and a scratch builder."""

import jax.numpy as jnp
from jax.experimental.pallas import tpu as pltpu

NSLOTS = 2


def start_copy(src, dst, sem):
    """Start one HBM<->VMEM copy signalled on `sem` (a single semaphore)."""
    copy = pltpu.make_async_copy(src, dst, sem)
    copy.start()
    return copy


def wait_copy(src, dst, sem):
    pltpu.make_async_copy(src, dst, sem).wait()


def slot_sem(sems, slot):
    """The semaphore of one buffer slot."""
    return sems.at[slot]


def pipeline_scratch(block_shape):
    return [
        pltpu.VMEM((NSLOTS, *block_shape), jnp.float32),
        pltpu.SemaphoreType.DMA((NSLOTS,)),
    ]
