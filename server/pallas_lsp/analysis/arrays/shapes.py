"""Array values: a shape of dims and a dtype, either of which may be unknown.

A `Dim` is an int (a static length) or a str: a *named unknown* (the source text of a
length, `"bm"`) or `"?"` (a length nothing is known about).  Two equal names are equal
lengths; different names, or `"?"`, are not known to be equal or different.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Union

from .dtypes import DType, short

Dim = Union[int, str]
Shape = tuple[Dim, ...]
UNKNOWN_DIM = "?"


@dataclass(eq=False, slots=True)
class ArrayV:
    """An array value: `shape=None` means rank unknown, `dtype=None` dtype unknown."""

    shape: Shape | None
    dtype: DType | None

    def __init__(self, shape: Shape | None, dtype: DType | None) -> None:   # native (`records`)
        self.shape = shape
        self.dtype = dtype

    def __eq__(self, other: object) -> bool:
        return type(other) is ArrayV and self.shape == other.shape and self.dtype == other.dtype

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype))

    def text(self) -> str:
        return text(self)


@dataclass(unsafe_hash=True)
class Rejected:
    """JAX certainly raises: `message` in JAX's words, `stage` when (`"trace"`)."""

    message: str
    stage: str = "trace"


def text(array: ArrayV) -> str:
    """`f32[bm, 128]`, `bf16[]`, `i32~[8]` (weak), `?[8, 128]`, `f32[...]`."""
    head = "?" if array.dtype is None else short(array.dtype)
    if array.shape is None:
        return f"{head}[...]"
    return f"{head}[{', '.join(str(d) for d in array.shape)}]"


def is_static(shape: Shape) -> bool:
    return all(isinstance(d, int) for d in shape)


def static_or_none(shape: Shape | None) -> tuple[int, ...] | None:
    """The shape as ints when every dim is static."""
    if shape is None or not is_static(shape):
        return None
    return tuple(int(d) for d in shape)


def join_dims(a: Dim, b: Dim) -> Dim:
    return a if a == b else UNKNOWN_DIM


def join_arrays(a: ArrayV, b: ArrayV) -> ArrayV:
    """The value at a branch merge: what both sides have in common."""
    if a.shape is None or b.shape is None or len(a.shape) != len(b.shape):
        shape: Shape | None = None
    else:
        shape = tuple(join_dims(x, y) for x, y in zip(a.shape, b.shape))
    return ArrayV(shape, a.dtype if a.dtype == b.dtype else None)


def _broadcast_position(dims: Sequence[Dim]) -> Dim | None:
    """The broadcast length of one aligned position; None when two static lengths
    other than 1 differ."""
    sizes = {d for d in dims if isinstance(d, int) and d != 1}
    if len(sizes) > 1:
        return None
    if sizes:
        return sizes.pop()
    names = {d for d in dims if isinstance(d, str)}
    if not names:
        return 1
    if len(names) == 1 and UNKNOWN_DIM not in names:
        return names.pop()
    return UNKNOWN_DIM


def broadcast(*shapes: Shape | None, primitive: str | None = None
              ) -> Shape | Rejected | None:
    """numpy broadcasting of `shapes`, as `jnp` does it: shapes of different ranks fail
    with jnp's message, shapes of one rank with the message of the lax `primitive`
    applied to them (None when not given).  Rejected only when every shape is static;
    None when a rank is unknown or a conflict involves unknowns."""
    if any(s is None for s in shapes):
        return None
    known = [s for s in shapes if s is not None]
    rank = max((len(s) for s in known), default=0)
    padded = [(1,) * (rank - len(s)) + tuple(s) for s in known]
    out: list[Dim] = []
    for position in zip(*padded):
        dim = _broadcast_position(position)
        if dim is None:
            return _broadcast_error(known, primitive)
        out.append(dim)
    return tuple(out)


def _broadcast_error(shapes: list[Shape], primitive: str | None) -> Rejected | None:
    if not all(is_static(s) for s in shapes):
        return None
    listed = ", ".join(str(tuple(s)) for s in shapes)
    if len({len(s) for s in shapes}) > 1:
        return Rejected(f"Incompatible shapes for broadcasting: shapes=[{listed}]")
    if primitive is None:
        return None
    return Rejected(f"{primitive} got incompatible shapes for broadcasting: {listed}.")


def normalize_axis(axis: int, rank: int) -> int | Rejected:
    """A non-negative axis, or numpy's out-of-bounds error."""
    if -rank <= axis < rank:
        return axis % rank if rank else 0
    return Rejected(f"axis {axis} is out of bounds for array of dimension {rank}")


def size_of(shape: Shape) -> Dim:
    """The number of elements: an int when static, else `"?"` (0 anywhere gives 0)."""
    total = 1
    for d in shape:
        if isinstance(d, int):
            total *= d
    if 0 in shape:
        return 0
    return total if is_static(shape) else UNKNOWN_DIM
