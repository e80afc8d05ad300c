"""Semaphores handed out by Python iteration: `iter` + `next` over the scratch refs (in a
generator expression and one by one), a comprehension of rows unpacked into names, a
generator helper yielding (slot, semaphore) pairs, `yield from`, `zip` / `enumerate`
over a generator, `map(lambda ...)` building descriptors, a dict comprehension of
views, and `dataclasses.replace` / `NamedTuple._replace` on bundles of semaphores.

Every semaphore that reaches a DMA or a signal is one semaphore."""

import dataclasses
import typing

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

K_ROW, V_ROW = 0, 1
NSLOTS = 2
ROWS = 8 // NSLOTS


def _slots(sems, n):
    for slot in range(n):
        yield slot, sems.at[slot]


def _rows_then(row_sems, last_sem):
    yield from (row_sems.at[r] for r in range(NSLOTS))
    yield last_sem


@dataclasses.dataclass(frozen=True)
class Copies:
    load: typing.Any
    store: typing.Any


class Flags(typing.NamedTuple):
    ready: typing.Any
    done: typing.Any


def _copy(src, dst, sem):
    cp = pltpu.make_async_copy(src, dst, sem)
    cp.start()
    cp.wait()


def kernel(k_hbm, v_hbm, k_out, v_out, buf, *scratch_refs):
    it = iter(scratch_refs)
    kv_sems, row_sems, done_sem = (next(it) for _ in range(3))
    flag_sems = next(it)

    # A comprehension of rows, unpacked; each row handed out slot by slot.
    k_sems, v_sems = [kv_sems.at[r] for r in (K_ROW, V_ROW)]
    for src, dst, sems in ((k_hbm, k_out, k_sems), (v_hbm, v_out, v_sems)):
        for slot, sem in _slots(sems, NSLOTS):
            rows = pl.ds(slot * ROWS, ROWS)
            _copy(src.at[rows], buf.at[rows], sem)
            _copy(buf.at[rows], dst.at[rows], sem)

    # Rows of another array and a single semaphore from one generator, zipped.
    for i, (src, sem) in enumerate(zip((k_hbm, v_hbm), _rows_then(row_sems, done_sem))):
        _copy(src.at[pl.ds(i * ROWS, ROWS)], buf.at[pl.ds(i * ROWS, ROWS)], sem)

    # Descriptors built by map(lambda ...), started together, then waited on.
    loads = list(map(lambda r: pltpu.make_async_copy(k_hbm.at[pl.ds(r * ROWS, ROWS)],  # noqa: C417 (the construct under test)
                                                     buf.at[pl.ds(r * ROWS, ROWS)], row_sems.at[r]),
                     range(NSLOTS)))
    for cp in loads:
        cp.start()
    for cp in loads:
        cp.wait()

    # A dict comprehension of views, by name.
    by_name = {name: kv_sems.at[i, 0] for i, name in enumerate(("k", "v"))}
    _copy(v_hbm, v_out, by_name["v"])

    # Bundles with one field replaced.
    copies = Copies(load=row_sems.at[0], store=row_sems.at[1])
    _copy(k_hbm, buf, copies.load)
    _copy(buf, k_out, copies.store)
    copies = dataclasses.replace(copies, store=done_sem)
    _copy(k_hbm, buf, copies.load)
    _copy(buf, k_out, copies.store)
    flags = Flags(ready=flag_sems.at[0], done=flag_sems.at[1])
    pl.semaphore_signal(flags.ready)
    pl.semaphore_wait(flags.ready)
    flags = flags._replace(ready=flag_sems.at[2])
    pl.semaphore_signal(flags.ready)
    pl.semaphore_wait(flags.ready)
    pl.semaphore_signal(flags.done, 2)
    pl.semaphore_wait(flags.done, 2)


def trace():
    k = jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128)
    v = k + 1
    any_spec = pl.BlockSpec(memory_space=pl.ANY)
    k_out, v_out = pl.pallas_call(
        kernel,
        out_shape=(jax.ShapeDtypeStruct(k.shape, k.dtype), jax.ShapeDtypeStruct(v.shape, v.dtype)),
        in_specs=[any_spec, any_spec],
        out_specs=(any_spec, any_spec),
        scratch_shapes=[
            pltpu.VMEM((8, 128), jnp.float32),
            pltpu.SemaphoreType.DMA((2, NSLOTS)),
            pltpu.SemaphoreType.DMA((NSLOTS,)),
            pltpu.SemaphoreType.DMA,
            pltpu.SemaphoreType.REGULAR((3,)),
        ],
        interpret=True,
    )(k, v)
    assert jnp.allclose(k_out, k)
    assert jnp.allclose(v_out, v)
