"""The rule table: every code the analysis can report, in one place."""

from __future__ import annotations

from dataclasses import dataclass

JAX_SEMAPHORE_DOC = "https://docs.jax.dev/en/latest/pallas/tpu/distributed.html"


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    severity: str   # default severity: "error" or "warning"
    summary: str
    doc_url: str


RULES: dict[str, Rule] = {
    r.code: r
    for r in (
        Rule(
            "PAL001",
            "dma-nonscalar-semaphore",
            "error",
            "A DMA start (`.start()`, `async_copy`, `async_remote_copy`) is given a semaphore "
            "array instead of one semaphore; JAX raises `Cannot signal on a non-()-shaped "
            "semaphore` when the kernel is traced.",
            JAX_SEMAPHORE_DOC,
        ),
        Rule(
            "PAL002",
            "signal-wait-nonscalar-semaphore",
            "error",
            "`semaphore_signal` / `semaphore_wait` / `core_barrier` is given a semaphore array; "
            "JAX raises `Cannot signal (wait) on a non-()-shaped semaphore` when traced.",
            JAX_SEMAPHORE_DOC,
        ),
        Rule(
            "PAL003",
            "wait-read-nonscalar-semaphore",
            "warning",
            "A DMA `.wait()` / `.wait_recv()` / `.wait_send()` or `semaphore_read` uses a "
            "semaphore array. JAX does not check this at trace time, but the kernel is wrong "
            "(it crashes or misbehaves at run time).",
            JAX_SEMAPHORE_DOC,
        ),
    )
}


def selected(code: str, select: list[str] | None, ignore: list[str] | None) -> bool:
    """ruff-style selection: prefixes ("PAL", "PAL00") or exact codes; ignore wins."""
    if select and not any(code.startswith(s) for s in select):
        return False
    return not (ignore and any(code.startswith(s) for s in ignore))
