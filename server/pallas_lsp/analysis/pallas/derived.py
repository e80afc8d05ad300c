"""Everything computed from the registry: the names a star import provides, the words
that make a block a semaphore creator, the CLI's prefilter, the index keepers' spellings,
and the table of supported APIs in the docs."""

from __future__ import annotations

import re

from .model import (
    Action,
    Api,
    ApiKind,
    Binding,
    CheckedCall,
    Invoker,
    SemaphoreType,
    Spec,
)
from .registry import ENTRIES, LEGACY, REGISTRY, entries_of

_PALLAS_ROOTS = ("pl", "pltpu", "plgpu")


def _known_names() -> frozenset[str]:
    out: set[str] = set()
    for name in REGISTRY:
        parts = name.split(".")
        for i in range(2, len(parts) + 1):
            out.add(".".join(parts[:i]))
    return frozenset(out)


# Every Pallas name the analysis knows, and their dotted prefixes ("pltpu.SemaphoreType"):
# what a `from jax.experimental.pallas.tpu import *` is taken to provide.
KNOWN_NAMES = _known_names()

# Invokers that allocate refs from types they are given (semaphores among them).
_ALLOCATING = {Binding.KERNEL, Binding.CORE_MAP, Binding.RUN_SCOPED, Binding.WITH_SCOPED, Binding.EMIT_PIPELINE}
_CREATING_KINDS = {ApiKind.SEMAPHORE_TYPE, ApiKind.SEMAPHORE_SPACE, ApiKind.BARRIER_SEMAPHORE,
                   ApiKind.EMPTY_REF_LIKE, ApiKind.LIBRARY_CLASS}
# Invokers that leave a `PallasCall` record (its contract is checked, its hover shown): a
# block that spells one is analysed on its own even when no semaphore reaches its kernel.
_RECORDED = frozenset({Binding.PALLAS_CALL, Binding.KERNEL})
# Words too common to be a creator on their own: they count after a dot (`pl.kernel`).
_COMMON_WORDS = {"kernel"}


def creator_word(entry: Api) -> str:
    """The identifier that spells an entry in source (`run_scoped`, `SemaphoreType`)."""
    if isinstance(entry, SemaphoreType):
        return "SemaphoreType"
    return entry.name.rsplit(".", 1)[-1]


def _creator_pattern() -> str:
    words = sorted({creator_word(e) for e in ENTRIES if e.kind in _CREATING_KINDS
                    or isinstance(e, Invoker) and (e.binding in _ALLOCATING or e.binding in _RECORDED)})
    return "|".join(rf"\.{w}\b" if w in _COMMON_WORDS else re.escape(w) for w in words)


# A block mentioning one of these may make semaphores (or turn semaphore types into refs),
# or calls `pallas_call` (whose contract is checked).  Calls that only use a semaphore
# (`pl.semaphore_signal`, ...) are not among them.
CREATORS = re.compile(_creator_pattern())
# With a `from module import *` in the module, names may come from code we do not see:
# every call of a kernel is then taken to possibly allocate semaphores.
CREATORS_BROAD = re.compile(CREATORS.pattern + r"|scratch")


def _candidate_pattern() -> bytes:
    words = {"pallas", "semaphore"} | {creator_word(e) for e in entries_of(ApiKind.CHECKED_CALL)}
    return "|".join(sorted(map(re.escape, words))).encode()


# The CLI's byte prefilter: a file that spells none of these holds no Pallas code we check.
CANDIDATE = re.compile(_candidate_pattern(), re.IGNORECASE)

# How index keepers (`pl.ds`, `pl.dslice`, `pl.Slice`, `slice`) are spelled when called.
INDEX_KEEPER_WORDS = frozenset(creator_word(e) for e in entries_of(ApiKind.INDEX_KEEPER))


def supported_api_table() -> str:
    """A Markdown table of every entry, for the docs (`docs/api.md`)."""
    rows = ["| API | what pallas-lsp knows of it |", "|---|---|"]
    for entry in sorted(ENTRIES, key=lambda e: (e.kind.value, e.name)):
        legacy = " (a spelling of other JAX releases)" if entry.name in LEGACY else ""
        rows.append(f"| `{entry.name}` | {_describe(entry)}{legacy} |")
    return "\n".join(rows) + "\n"


def _describe(entry: Api) -> str:
    if isinstance(entry, CheckedCall):
        rule = f" ({entry.rule})" if entry.action is not Action.BUILD else " (checked at `.start()`/`.wait()`)"
        copies = f"; `{entry.copies[0]}` and `{entry.copies[1]}` of one dtype and shape (PAL305)" \
            if entry.copies else ""
        return f"{entry.describe()}{rule}{copies}"
    if isinstance(entry, Invoker):
        return f"kernel invoker: `{entry.describe()}`"
    if isinstance(entry, Spec):
        return f"`{entry.describe()}`"
    return entry.describe()
