"""Import resolution: which local names are Pallas / JAX APIs, by canonical name.

Every module path a Pallas name can be reached through is mapped to one short prefix
(`pl`, `pltpu`, `plgpu`), so `from jax.experimental.pallas import tpu as t`,
`import jax.experimental.pallas.tpu as pltpu` and `jax._src.pallas.mosaic.primitives`
all give the same canonical names that the API registry (`pallas/registry.py`) is keyed by.
"""

from __future__ import annotations

from .caches import CACHES

# Longest prefixes first (checked in order).
_PREFIXES = (
    ("jax.experimental.pallas.tpu", "pltpu"),
    ("jax.experimental.pallas.mosaic_gpu", "plgpu"),
    ("jax.experimental.pallas.mosaic", "pltpu"),
    ("jax.experimental.pallas", "pl"),
    ("jax._src.pallas.mosaic_gpu.primitives", "plgpu"),
    ("jax._src.pallas.mosaic_gpu.core", "plgpu"),
    ("jax._src.pallas.mosaic_gpu", "plgpu"),
    ("jax._src.pallas.mosaic.primitives", "pltpu"),
    ("jax._src.pallas.mosaic.core", "pltpu"),
    ("jax._src.pallas.mosaic.helpers", "pltpu"),
    ("jax._src.pallas.mosaic.pipeline", "pltpu"),
    ("jax._src.pallas.mosaic", "pltpu"),
    ("jax._src.pallas.primitives", "pl"),
    ("jax._src.pallas.core", "pl"),
    ("jax._src.pallas.pallas_call", "pl"),
    ("jax._src.pallas.helpers", "pl"),
    ("jax._src.pallas", "pl"),
    ("jax.experimental.shard_map", "jax"),
    ("jax._src.lax.control_flow", "jax.lax"),
    ("jax._src.lax.lax", "jax.lax"),
    ("jax._src.api", "jax"),                 # jit, vmap, ... (jax re-exports them)
    ("jax._src.tree_util", "jax.tree_util"),
    ("pl.tpu", "pltpu"),
    ("pl.mosaic_gpu", "plgpu"),
)

# Top-level packages whose names are treated as library APIs (never analysed as code).
LIBRARY_ROOTS = frozenset({"jax", "functools", "dataclasses", "jaxlib", "numpy", "math", "typing", "flax",
                           "collections", "itertools", "operator", "enum", "abc", "os", "sys"})


def canonical(qname: str) -> str:
    """Canonical dotted name for a fully qualified one."""
    hit = CACHES.canonical.get(qname)
    if hit is None:
        hit = CACHES.canonical.put(qname, _canonical(qname))
    return hit


def _canonical(qname: str) -> str:
    for prefix, short in _PREFIXES:
        if qname == prefix:
            return short
        if qname.startswith(prefix) and qname[len(prefix)] == ".":
            return short + qname[len(prefix):]
    return qname


def child(qname: str, attr: str) -> str:
    return canonical(f"{qname}.{attr}")


def resolve_relative(module: str | None, level: int, package: str | None) -> str | None:
    """`from ..x import y` inside `package` -> absolute module name ("a.b.x")."""
    if level == 0:
        return module
    if not package:
        return None
    parts = package.split(".")
    if level - 1 > len(parts):
        return None
    base = parts[: len(parts) - (level - 1)]
    if module:
        base.append(module)
    return ".".join(base) or None
