"""From the registry to the handlers: a Pallas name called, a Pallas value called, an
attribute of a Pallas value (`pallas.domain` asks).  Every handler is chosen by the
entry's kind (or the value's type), never by comparing names."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..arrays.dtypes import by_name
from ..arrays.values import dtype_value
from ..interp.domain import NOT_MINE
from ..interp.frame import CallArgs, Evaluator
from ..values import SCALAR, UNKNOWN, Api, Const, Seq
from . import handlers, invokers, sharding
from .model import Api as ApiEntry
from .model import ApiKind, Invoker
from .buffers import dtype_name
from .registry import DESCRIPTOR_METHODS, ENTRIES
from .sems import Descriptor, Sem, SemType
from .values import (
    ArraySpecV,
    AtProperty,
    BufferRef,
    CoreMapDecorator,
    DescriptorCall,
    LoopDecorator,
    PallasCallable,
    Passthrough,
    Pipeline,
    ShardMapped,
    WhenDecorator,
    WithScoped,
    WithScopedDecorator,
)

_BY_KIND: dict[ApiKind, Callable[[Evaluator, Any, CallArgs], Any]] = {
    ApiKind.CHECKED_CALL: handlers.checked_call,
    ApiKind.SEMAPHORE_TYPE: handlers.declare,
    ApiKind.SEMAPHORE_SPACE: handlers.declare_space,
    ApiKind.BARRIER_SEMAPHORE: handlers.barrier,
    ApiKind.INDEX_KEEPER: handlers.index_keeper,
    ApiKind.SELECTOR: handlers.selector,
    ApiKind.EMPTY_REF_LIKE: handlers.empty_ref_like,
    ApiKind.ARRAY_SPEC: handlers.array_spec,
    ApiKind.MEMORY_SPACE: handlers.memory_space_buffer,
    ApiKind.BLOCK_SPEC: handlers.block_spec,
    ApiKind.GRID_SPEC: handlers.grid_spec,
    ApiKind.COMPILER_PARAMS: handlers.compiler_params,
    ApiKind.PASSTHROUGH: handlers.passthrough,
    ApiKind.SCALAR_RESULT: handlers.scalar_result,
    ApiKind.PROGRAM_ID: handlers.grid_index,
    ApiKind.TRACED_INDEX: handlers.traced_index,
    ApiKind.LIBRARY_CLASS: handlers.library_class,
}


def _handler(entry: ApiEntry) -> Callable[[Evaluator, Any, CallArgs], Any]:
    if isinstance(entry, Invoker):
        return invokers.INVOKER_HANDLERS[entry.binding]
    return _BY_KIND[entry.kind]


# name -> (entry, its handler), resolved once: a call costs one dict lookup.
_DISPATCH = {entry.name: (entry, _handler(entry)) for entry in ENTRIES}


def call_entry(ev: Evaluator, qname: str, call: CallArgs) -> Any:
    """The value of calling the registry's `qname`, or NOT_MINE."""
    hit = _DISPATCH.get(qname)
    if hit is None:
        return NOT_MINE
    return hit[1](ev, hit[0], call)


def unknown_method(ev: Evaluator, name: str) -> None:
    """A method of a value we do not know: named like a DMA descriptor's, it may start or
    wait on a semaphore the protocol cannot see."""
    method = DESCRIPTOR_METHODS.get(name)
    if method is not None:
        handlers.note_event(ev.ctx, handlers.dma_event(method), UNKNOWN, None)


def _descriptor_call(ev: Evaluator, value: DescriptorCall, call: CallArgs) -> Any:
    handlers.descriptor_method(ev, value.descriptor, value.method, call.frame, call.node)
    return UNKNOWN


def _passthrough(ev: Evaluator, value: Passthrough, call: CallArgs) -> Any:
    return call.value(0)


def _unknown(ev: Evaluator, value: Any, call: CallArgs) -> Any:
    return UNKNOWN


_BY_TYPE: dict[type, Callable[[Evaluator, Any, CallArgs], Any]] = {
    PallasCallable: invokers.apply_pallas_call,
    DescriptorCall: _descriptor_call,
    WhenDecorator: invokers.apply_when,
    LoopDecorator: invokers.apply_loop,
    WithScopedDecorator: invokers.apply_with_scoped_decorator,
    WithScoped: invokers.apply_with_scoped,
    CoreMapDecorator: invokers.apply_core_map,
    Pipeline: invokers.apply_pipeline,
    Passthrough: _passthrough,
    AtProperty: _unknown,
    ShardMapped: sharding.apply_shard_map,
}


def call_value(ev: Evaluator, callee: Any, call: CallArgs) -> Any:
    """Calling a callable that a Pallas API returned (else NOT_MINE)."""
    handler = _BY_TYPE.get(type(callee))
    return handler(ev, callee, call) if handler is not None else NOT_MINE


def attribute(ev: Evaluator, obj: Any, attr: str) -> Any:
    """An attribute of a semaphore, a buffer ref, a descriptor, a semaphore type or an
    array spec (NOT_MINE where the Pallas domain knows none)."""
    if attr == "at" and isinstance(obj, (Sem, BufferRef)):
        return AtProperty(obj)
    if isinstance(obj, Descriptor) and attr in DESCRIPTOR_METHODS:
        return DescriptorCall(obj, DESCRIPTOR_METHODS[attr])
    if attr == "dtype":
        return _dtype_of(obj)
    dims = _dims_of(obj)
    if dims is None:
        return NOT_MINE
    if attr == "shape":   # a length known by name only: a number
        return Seq(tuple(Const(d) if type(d) is int else SCALAR for d in dims))
    return Const(len(dims)) if attr == "ndim" else NOT_MINE


def _dims_of(obj: Any) -> tuple | None:
    """The dims `.shape` / `.ndim` read: a semaphore's, a buffer ref's when its rank is
    known, an array spec's when every length is static."""
    if isinstance(obj, Sem) or isinstance(obj, BufferRef) and not obj.open:
        return obj.dims
    if isinstance(obj, ArraySpecV) and obj.shape is not None and all(type(d) is int for d in obj.shape):
        return obj.shape
    return None


def _dtype_of(obj: Any) -> Any:
    if isinstance(obj, SemType):
        return Api(f"pltpu.SemaphoreType.{obj.kind}.dtype")
    name = obj.dtype if isinstance(obj, BufferRef) else dtype_name(obj.dtype) if isinstance(obj, ArraySpecV) else None
    return _dtype(name) if name is not None else NOT_MINE


def _dtype(name: str) -> Any:
    dtype = by_name(name)
    return dtype_value(dtype) if dtype is not None else NOT_MINE
