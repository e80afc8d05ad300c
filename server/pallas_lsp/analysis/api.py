"""The Pallas API as data: which calls take semaphores, where, and what JAX does with them.

Names are canonical (see `symbols.canonical`).  Adding a JAX API that takes a semaphore
is one entry in `CHECKED_CALLS`; how kernel-invoking APIs bind scratch to parameters is
in `INVOKERS` (interpreted by `flow.py`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CheckedCall:
    """A call that takes semaphore arguments.

    `action`: "build" returns a DMA descriptor and checks nothing itself (the check happens
    at `.start()` / `.wait()`); "start" builds and starts at once; "check" just checks.
    `sems`: (parameter name, role) with role "dst" or "src" for DMAs, "sem" otherwise.
    """

    params: tuple[str, ...]
    sems: tuple[tuple[str, str], ...]
    action: str
    code: str | None = None      # rule for "start" / "check"
    verb: str = "signal"         # JAX's word in "Cannot {verb} on a non-()-shaped semaphore"
    remote: bool = False
    deprecated: str | None = None


_COPY = ("src_ref", "dst_ref", "sem")
_REMOTE = ("src_ref", "dst_ref", "send_sem", "recv_sem", "device_id", "device_id_type")
_REMOTE_SEMS = (("recv_sem", "dst"), ("send_sem", "src"))  # JAX checks dst (recv) first

CHECKED_CALLS: dict[str, CheckedCall] = {
    "pltpu.make_async_copy": CheckedCall(_COPY, (("sem", "dst"),), "build"),
    "pltpu.make_async_remote_copy": CheckedCall(_REMOTE, _REMOTE_SEMS, "build", remote=True),
    "pltpu.async_copy": CheckedCall(_COPY, (("sem", "dst"),), "start", "PAL001"),
    "pltpu.async_remote_copy": CheckedCall(_REMOTE, _REMOTE_SEMS, "start", "PAL001", remote=True),
    "pl.semaphore_signal": CheckedCall(("sem_or_view", "inc"), (("sem_or_view", "sem"),), "check", "PAL002"),
    "pl.semaphore_wait": CheckedCall(("sem_or_view", "value"), (("sem_or_view", "sem"),), "check", "PAL002", "wait"),
    "pl.semaphore_read": CheckedCall(("sem_or_view",), (("sem_or_view", "sem"),), "check", "PAL003", "read"),
    "pltpu.semaphore_signal": CheckedCall(("sem_or_view", "inc"), (("sem_or_view", "sem"),), "check", "PAL002",
                                          deprecated="pl.semaphore_signal"),
    "pltpu.semaphore_wait": CheckedCall(("sem_or_view", "value"), (("sem_or_view", "sem"),), "check", "PAL002", "wait",
                                        deprecated="pl.semaphore_wait"),
    "pltpu.semaphore_read": CheckedCall(("sem_or_view",), (("sem_or_view", "sem"),), "check", "PAL003", "read",
                                        deprecated="pl.semaphore_read"),
    "pltpu.core_barrier": CheckedCall(("sem",), (("sem", "sem"),), "check", "PAL002"),
    "plgpu.semaphore_signal": CheckedCall(("semaphore", "inc"), (("semaphore", "sem"),), "check", "PAL002"),
    "plgpu.semaphore_wait": CheckedCall(("semaphore", "value"), (("semaphore", "sem"),), "check", "PAL002", "wait"),
    "plgpu.semaphore_signal_multicast": CheckedCall(("semaphore", "value"), (("semaphore", "sem"),), "check",
                                                    "PAL002", "semaphore_signal_multicast"),
    # Each SemaphoreSignal's ref is checked by semaphore_signal_parallel.
    "plgpu.SemaphoreSignal": CheckedCall(("ref",), (("ref", "sem"),), "check", "PAL002"),
}

# Methods of a DMA descriptor: which of its semaphores each one uses, and the rule.
# `.start()` raises in JAX (dst checked first, then src); the waits are not checked by JAX.
DESCRIPTOR_METHODS: dict[str, tuple[tuple[str, ...], str]] = {
    "start": (("dst", "src"), "PAL001"),
    "wait": (("dst", "src"), "PAL003"),
    "wait_recv": (("dst",), "PAL003"),
    "wait_send": (("src",), "PAL003"),
}

# Declarations of semaphore types.
SEMAPHORE_SPACES = frozenset({
    "pltpu.SEMAPHORE", "pltpu.MemorySpace.SEMAPHORE", "pltpu.TPUMemorySpace.SEMAPHORE",
})
BARRIER_PRODUCERS = frozenset({"pltpu.get_barrier_semaphore"})

# APIs that run a user function (the kernel or a body) with refs Pallas allocates.
# Interpreted in flow.py; listed here so the supported surface is visible in one place.
INVOKERS = {
    "pl.pallas_call": "kernel(*scalar_prefetch, *inputs, *outputs, *scratch_shapes)",
    "pl.kernel": "body(*inputs, *outputs, *scratch_types)",
    "pl.core_map": "f(*scratch_shapes) or f(**scratch_shapes)",
    "pl.run_scoped": "f(*types, **kw_types) -> f(*refs, **kw_refs)",
    "pl.with_scoped": "decorated(*call_args, *refs, **kw_refs)",
    "pltpu.emit_pipeline": "body(*in_blocks, *out_blocks, *scratches)",
    "pltpu.emit_pipeline_with_allocations": "body(*in_blocks, *out_blocks, *scratches)",
    "pl.when": "decorated body runs (traced) once",
    "pl.loop": "decorated body(i)",
    "jax.lax.fori_loop": "body(i, carry)",
    "jax.lax.while_loop": "body(carry)",
    "jax.lax.cond": "true_fun(*operands), false_fun(*operands)",
    "jax.lax.switch": "each branch(*operands)",
}
GRID_SPECS = frozenset({"pltpu.PrefetchScalarGridSpec", "pl.GridSpec"})
INDEX_KEEPERS = frozenset({"pl.ds", "pl.dslice", "pl.Slice"})
SELECTORS = frozenset({"pl.select_ref", "pltpu.select_ref"})
EMPTY_REF_LIKE = frozenset({"pl.empty_ref_like", "pltpu.empty_ref_like"})
# Values that describe one array (one output of a pallas_call when given as out_shape).
ARRAY_SPECS = frozenset({"jax.ShapeDtypeStruct", "pl.MemoryRef", "pltpu.VMEM", "pltpu.SMEM", "pltpu.HBM",
                         "pltpu.ANY", "pl.ANY", "pltpu.MemorySpace.VMEM", "pltpu.MemorySpace.SMEM"})


def _known_names():
    names = set(CHECKED_CALLS) | set(INVOKERS) | SEMAPHORE_SPACES | BARRIER_PRODUCERS | GRID_SPECS \
        | INDEX_KEEPERS | SELECTORS | EMPTY_REF_LIKE | ARRAY_SPECS
    for prefix in ("pltpu", "plgpu", "pl"):
        for kind in ("DMA", "REGULAR", "BARRIER"):
            names.add(f"{prefix}.SemaphoreType.{kind}")
    out = set()
    for n in names:
        parts = n.split(".")
        for i in range(2, len(parts) + 1):
            out.add(".".join(parts[:i]))
    return frozenset(out)


# Every Pallas name the analysis knows, and their dotted prefixes ("pltpu.SemaphoreType"):
# what a `from jax.experimental.pallas.tpu import *` is taken to provide.
KNOWN_NAMES = _known_names()

# Wrappers that return the function they are given (as decorators or calls).
PASSTHROUGH = frozenset({"jax.named_scope", "jax.named_call", "jax.jit", "jax.checkpoint", "jax.remat",
                         "jax.ad_checkpoint.checkpoint", "jax.profiler.annotate_function"})
# Calls whose result is one number (an index), never a tuple.
SCALAR_RESULTS = frozenset({
    "pl.program_id", "pl.num_programs", "jax.lax.axis_index", "jax.lax.rem", "jax.lax.div",
    "jax.lax.max", "jax.lax.min", "jax.lax.clamp", "jax.lax.select", "jax.lax.convert_element_type",
    "jax.numpy.int32", "jax.numpy.uint32", "jax.numpy.int64", "jax.numpy.where", "jax.numpy.minimum",
    "jax.numpy.maximum", "jax.numpy.mod", "jax.numpy.remainder", "jax.numpy.floor_divide",
    "int", "min", "max", "abs", "sum",
})
