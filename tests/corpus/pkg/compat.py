"""Version shims: the Pallas TPU module re-exported, and a shared scratch declaration."""

from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

__all__ = ["SLOT_SEMS", "pl", "pltpu"]

SLOT_SEMS = pltpu.SemaphoreType.DMA((2,))
