"""The Pallas API, one entry per name: what the analysis knows of each.

Adding an API is one entry here plus the corpus kernels that use it (a test checks that
every entry is exercised by a kernel JAX traces).  Names are canonical (`symbols.py`).
"""

from __future__ import annotations

from .model import (
    Action,
    Api,
    ApiKind,
    Binding,
    CheckedCall,
    DescriptorMethod,
    Invoker,
    LibraryClass,
    MemorySpace,
    SemaphoreType,
    SemEffect,
    SemField,
    SemParam,
    SemRole,
    Simple,
    Spec,
)

_COPY = ("src_ref", "dst_ref", "sem")
_REMOTE = ("src_ref", "dst_ref", "send_sem", "recv_sem", "device_id", "device_id_type")
_COPY_SEMS = (SemParam("sem", SemRole.DST),)
_REMOTE_SEMS = (SemParam("recv_sem", SemRole.DST), SemParam("send_sem", SemRole.SRC))  # JAX checks dst first
_REFS = ("src_ref", "dst_ref")


# The kinds JAX accepts (jax/_src/pallas: `check_sem_avals` for signal / wait, `dma_wait`).
SIGNAL_KINDS = frozenset({"REGULAR", "BARRIER"})
DMA_KINDS = frozenset({"DMA"})


def _signal_family(prefix: str, param: str, deprecated: bool = False) -> list[CheckedCall]:
    sem = (SemParam(param, SemRole.SEM),)
    new = (lambda verb: f"pl.semaphore_{verb}") if deprecated else (lambda verb: None)
    kinds = SIGNAL_KINDS if prefix != "plgpu" else None
    return [
        CheckedCall(f"{prefix}.semaphore_signal", (param, "inc"), sem, Action.CHECK, "PAL002", "signal",
                    deprecated_for=new("signal"), kinds=kinds, effect=SemEffect.SIGNAL, count="inc",
                    count_elsewhere=("device_id", "core_index")),
        CheckedCall(f"{prefix}.semaphore_wait", (param, "value"), sem, Action.CHECK, "PAL002", "wait",
                    deprecated_for=new("wait"), kinds=kinds, effect=SemEffect.WAIT, count="value",
                    count_elsewhere=("decrement",)),
    ]


CHECKED_CALLS: tuple[CheckedCall, ...] = (
    CheckedCall("pltpu.make_async_copy", _COPY, _COPY_SEMS, Action.BUILD, copies=_REFS),
    CheckedCall("pltpu.make_async_remote_copy", _REMOTE, _REMOTE_SEMS, Action.BUILD, remote=True, copies=_REFS),
    CheckedCall("pltpu.async_copy", _COPY, _COPY_SEMS, Action.START, "PAL001", copies=_REFS),
    CheckedCall("pltpu.async_remote_copy", _REMOTE, _REMOTE_SEMS, Action.START, "PAL001", remote=True,
                copies=_REFS),
    *_signal_family("pl", "sem_or_view"),
    CheckedCall("pl.semaphore_read", ("sem_or_view",), (SemParam("sem_or_view", SemRole.SEM),), Action.CHECK,
                "PAL003", "read", reads_count=True),
    *_signal_family("pltpu", "sem_or_view", deprecated=True),
    CheckedCall("pltpu.semaphore_read", ("sem_or_view",), (SemParam("sem_or_view", SemRole.SEM),), Action.CHECK,
                "PAL003", "read", deprecated_for="pl.semaphore_read", reads_count=True),
    CheckedCall("pltpu.core_barrier", ("sem",), (SemParam("sem", SemRole.SEM),), Action.CHECK, "PAL002"),
    *_signal_family("plgpu", "semaphore"),
    CheckedCall("plgpu.semaphore_signal_multicast", ("semaphore", "value"), (SemParam("semaphore", SemRole.SEM),),
                Action.CHECK, "PAL002", "semaphore_signal_multicast"),
    # Each SemaphoreSignal's ref is checked by semaphore_signal_parallel.
    CheckedCall("plgpu.SemaphoreSignal", ("ref",), (SemParam("ref", SemRole.SEM),), Action.CHECK, "PAL002"),
)

# `.start()` raises in JAX (dst checked first, then src); the waits are not checked by JAX.
# A REGULAR semaphore passes `.start()`; every wait checks for a DMA semaphore.
DESCRIPTOR_METHODS: dict[str, DescriptorMethod] = {m.name: m for m in (
    DescriptorMethod("start", (SemRole.DST, SemRole.SRC), "PAL001", "signal", effect=SemEffect.SIGNAL),
    DescriptorMethod("wait", (SemRole.DST, SemRole.SRC), "PAL003", "wait", DMA_KINDS),
    DescriptorMethod("wait_recv", (SemRole.DST,), "PAL003", "wait_recv", DMA_KINDS),
    DescriptorMethod("wait_send", (SemRole.SRC,), "PAL003", "wait_send", DMA_KINDS),
)}

SEMAPHORE_MEMBERS = ("DMA", "REGULAR", "BARRIER")
_SEMAPHORE_TYPES = tuple(SemaphoreType(f"{prefix}.SemaphoreType.{member}", member)
                         for prefix in ("pltpu", "plgpu", "pl") for member in SEMAPHORE_MEMBERS)

_MEMORY_SPACES = tuple(MemorySpace(name, name.rsplit(".", 1)[1]) for name in (
    "pltpu.VMEM", "pltpu.SMEM", "pltpu.HBM", "pltpu.ANY", "pl.ANY", "pltpu.VMEM_SHARED",
    "pltpu.MemorySpace.VMEM", "pltpu.MemorySpace.SMEM", "pltpu.MemorySpace.HBM", "pltpu.MemorySpace.ANY",
    "pl.MemorySpace.ANY",
))

_GRID = ("grid", "in_specs", "out_specs", "scratch_shapes")
_SPECS: tuple[Api, ...] = (
    Spec("jax.ShapeDtypeStruct", ApiKind.ARRAY_SPEC, ("shape", "dtype")),
    Spec("pl.MemoryRef", ApiKind.ARRAY_SPEC, ("shape", "dtype")),
    Spec("pl.BlockSpec", ApiKind.BLOCK_SPEC, ("block_shape", "index_map", "pipeline_mode", "memory_space")),
    Spec("pl.GridSpec", ApiKind.GRID_SPEC, _GRID),
    Spec("pltpu.PrefetchScalarGridSpec", ApiKind.GRID_SPEC, ("num_scalar_prefetch",) + _GRID),
    Spec("pltpu.CompilerParams", ApiKind.COMPILER_PARAMS, ("dimension_semantics",)),
    Spec("pltpu.TPUCompilerParams", ApiKind.COMPILER_PARAMS, ("dimension_semantics",)),
)

INVOKERS: tuple[Invoker, ...] = (
    Invoker("pl.pallas_call", Binding.PALLAS_CALL, ("kernel", "out_shape"), ("out_shape",), ("scratch_shapes",)),
    Invoker("pl.kernel", Binding.KERNEL, ("body", "out_type"), ("out_type",), ("scratch_types",)),
    Invoker("plgpu.kernel", Binding.KERNEL, ("body", "out_shape"), ("out_shape", "out_type"),
            ("scratch_shapes", "scratch_types")),
    Invoker("pl.core_map", Binding.CORE_MAP, ("mesh",), (), ("scratch_shapes",)),
    Invoker("pl.run_scoped", Binding.RUN_SCOPED, ("f",)),
    Invoker("pl.with_scoped", Binding.WITH_SCOPED),
    Invoker("pltpu.emit_pipeline", Binding.EMIT_PIPELINE, ("body",), (), ("scratches",)),
    Invoker("pltpu.emit_pipeline_with_allocations", Binding.EMIT_PIPELINE, ("body",), (), ("scratches",)),
    Invoker("pl.when", Binding.WHEN, ("condition",)),
    Invoker("pl.loop", Binding.LOOP, ("lower", "upper")),
    Invoker("jax.lax.fori_loop", Binding.FORI_LOOP, ("lower", "upper", "body_fun", "init_val")),
    Invoker("jax.lax.while_loop", Binding.WHILE_LOOP, ("cond_fun", "body_fun", "init_val")),
    Invoker("jax.lax.cond", Binding.COND, ("pred", "true_fun", "false_fun")),
    Invoker("jax.lax.switch", Binding.SWITCH, ("index", "branches")),
    Invoker("jax.tree.map", Binding.TREE_MAP, ("f", "tree")),
    Invoker("jax.tree_util.tree_map", Binding.TREE_MAP, ("f", "tree")),
    Invoker("jax.shard_map", Binding.SHARD_MAP, ("f",)),
)

_PASSTHROUGH = ("jax.named_scope", "jax.named_call", "jax.jit", "jax.checkpoint", "jax.remat",
                "jax.ad_checkpoint.checkpoint", "jax.profiler.annotate_function",
                "jax.export.export")   # export(f)(*args) traces f with args, as a call would
# Calls whose result is one number (an index), never a tuple.
_SCALAR_RESULTS = (
    "jax.lax.rem", "jax.lax.div",
    "jax.lax.max", "jax.lax.min", "jax.lax.clamp", "jax.lax.select", "jax.lax.convert_element_type",
    "jax.numpy.int32", "jax.numpy.uint32", "jax.numpy.int64", "jax.numpy.where", "jax.numpy.minimum",
    "jax.numpy.maximum", "jax.numpy.mod", "jax.numpy.remainder", "jax.numpy.floor_divide",
)
# Spellings of older (or newer) JAX releases than the oracle's: kept so such code is read
# right; no kernel traced here can use them.
LEGACY = frozenset({
    "jax.ad_checkpoint.checkpoint", "pl.SemaphoreType.BARRIER", "pl.SemaphoreType.DMA", "pl.SemaphoreType.REGULAR",
    "pltpu.ANY", "pltpu.MemorySpace.ANY", "pltpu.TPUCompilerParams", "pltpu.TPUMemorySpace.SEMAPHORE",
    "pltpu.empty_ref_like", "pltpu.select_ref",
})

_OTHERS: tuple[Api, ...] = (
    Simple("pltpu.SEMAPHORE", ApiKind.SEMAPHORE_SPACE, ("shape", "dtype")),
    Simple("pltpu.MemorySpace.SEMAPHORE", ApiKind.SEMAPHORE_SPACE, ("shape", "dtype")),
    Simple("pltpu.TPUMemorySpace.SEMAPHORE", ApiKind.SEMAPHORE_SPACE, ("shape", "dtype")),
    Simple("pltpu.get_barrier_semaphore", ApiKind.BARRIER_SEMAPHORE),
    Simple("pl.ds", ApiKind.INDEX_KEEPER, ("start", "size", "stride")),
    Simple("pl.dslice", ApiKind.INDEX_KEEPER, ("start", "size", "stride")),
    Simple("pl.Slice", ApiKind.INDEX_KEEPER, ("start", "size", "stride")),
    Simple("slice", ApiKind.INDEX_KEEPER),
    Simple("pl.select_ref", ApiKind.SELECTOR, ("pred", "on_true", "on_false")),
    Simple("pltpu.select_ref", ApiKind.SELECTOR, ("pred", "on_true", "on_false")),
    Simple("pl.empty_ref_like", ApiKind.EMPTY_REF_LIKE, ("x",)),
    Simple("pltpu.empty_ref_like", ApiKind.EMPTY_REF_LIKE, ("x",)),
    Simple("pl.program_id", ApiKind.PROGRAM_ID, ("axis",)),
    Simple("pl.num_programs", ApiKind.PROGRAM_ID, ("axis",)),
    *(Simple(name, ApiKind.PASSTHROUGH) for name in _PASSTHROUGH),
    *(Simple(name, ApiKind.SCALAR_RESULT) for name in _SCALAR_RESULTS),
    Simple("jax.lax.axis_index", ApiKind.TRACED_INDEX, ("axis_name",)),
)

# Classes user code subclasses; JAX's `BufferedRef.create` declares both fields
# `SemaphoreType.DMA((buffer_count,))` (or None: an output has no `sem_recvs`, an input no
# `sem_sends`; tests/analysis/test_library_classes.py reads the installed source to check).
_LIBRARY_CLASSES: tuple[Api, ...] = (
    LibraryClass("pltpu.BufferedRef", (SemField("sem_recvs", "DMA", ("buffer_count",)),
                                       SemField("sem_sends", "DMA", ("buffer_count",)))),
)

ENTRIES: tuple[Api, ...] = (CHECKED_CALLS + _SEMAPHORE_TYPES + _MEMORY_SPACES + _SPECS + INVOKERS + _OTHERS
                            + _LIBRARY_CLASSES)

REGISTRY: dict[str, Api] = {entry.name: entry for entry in ENTRIES}
assert len(REGISTRY) == len(ENTRIES), "one entry per name"
assert LEGACY <= REGISTRY.keys()


def semaphore_member(name: str) -> str | None:
    """'DMA' for `pltpu.SemaphoreType.DMA` (and the plgpu / pl spellings), else None."""
    entry = REGISTRY.get(name)
    return entry.member if isinstance(entry, SemaphoreType) else None


def library_fields(name: str) -> tuple[SemField, ...]:
    """The semaphore fields of the library class `name` (none for any other name)."""
    entry = REGISTRY.get(name)
    return entry.fields if isinstance(entry, LibraryClass) else ()


def entries_of(kind: ApiKind) -> tuple[Api, ...]:
    return tuple(e for e in ENTRIES if e.kind is kind)
