"""Operations that move, add, drop or reinterpret dims: reshape, transposes, axis
insertion and removal, broadcasting, tiling, joining, rolls and bitcasts.

Dims that are named unknowns travel through unchanged where the operation only moves
them; where a length would be computed from one, it becomes `"?"`.
"""

from __future__ import annotations

from .args import Arg, Bound, Py, Seq, as_dtype, as_int, as_ints, as_shape, is_none
from .dtypes import bits
from .rules import DTypeResult, DTypeRule, ShapeResult, operand, promoted
from .shapes import UNKNOWN_DIM, Dim, Rejected, Shape, is_static, normalize_axis


def _shape(bound: Bound, name: str = "a") -> Shape | None:
    array = operand(bound, name)
    return None if array is None else array.shape


def _axes(values: tuple[int, ...], rank: int) -> tuple[int, ...] | Rejected:
    normalized: list[int] = []
    for value in values:
        axis = normalize_axis(value, rank)
        if isinstance(axis, Rejected):
            return axis
        normalized.append(axis)
    return tuple(normalized)


def _product(dims: Shape) -> Dim:
    total = 1
    for d in dims:
        if not isinstance(d, int):
            return UNKNOWN_DIM
        total *= d
    return total


# ---- reshape --------------------------------------------------------------------------

def reshape_target(bound: Bound) -> Shape | None:
    """The requested shape: `shape` given once, or as the `*args` of `Array.reshape`."""
    if bound.rest:
        if len(bound.rest) == 1:
            return as_shape(bound.rest[0])
        parts = [as_shape(a) for a in bound.rest]
        if any(p is None or len(p) != 1 for p in parts):
            return None
        return tuple(p[0] for p in parts if p is not None)
    shape = bound.values.get("shape")
    return None if shape is None else as_shape(shape)


def reshape_shape(bound: Bound) -> ShapeResult:
    source, target = _shape(bound), reshape_target(bound)
    if source is None or target is None or target.count(-1) > 1:
        return None
    total, known = _product(source), _product(tuple(d for d in target if d != -1))
    if -1 in target:
        if not isinstance(total, int) or not isinstance(known, int):
            return tuple(UNKNOWN_DIM if d == -1 else d for d in target)
        if known == 0 or total % known:
            return None
        return tuple(total // known if d == -1 else d for d in target)
    if isinstance(total, int) and isinstance(known, int) and total != known:
        return Rejected(f"cannot reshape array of shape {tuple(source)} (size {total}) "
                        f"into shape {tuple(target)} (size {known})")
    return target


# ---- transposes -----------------------------------------------------------------------

def _permute(shape: Shape, axes: tuple[int, ...]) -> ShapeResult:
    if len(axes) != len(shape) or any(not 0 <= a < len(shape) for a in axes):
        return None
    if sorted(axes) != list(range(len(shape))):
        return Rejected("transpose permutation isn't a permutation of operand dimensions, "
                        f"got permutation {axes} for operand shape {tuple(shape)}.")
    return tuple(shape[a] for a in axes)


def transpose_shape(bound: Bound) -> ShapeResult:
    shape = _shape(bound)
    if shape is None:
        return None
    axes = _transpose_axes(bound)
    if axes == ():
        return tuple(reversed(shape))
    return None if axes is None else _permute(shape, axes)


def _transpose_axes(bound: Bound) -> tuple[int, ...] | None:
    """The axes of `jnp.transpose(a, axes)` or `Array.transpose(*axes)`; () for none."""
    if len(bound.rest) > 1:
        axes = [as_int(a) for a in bound.rest]
        return None if None in axes else tuple(a for a in axes if a is not None)
    given: Arg = bound.rest[0] if bound.rest else bound.values.get("axes", Py(None))
    return () if is_none(given) else as_ints(given)


def reversed_shape(bound: Bound) -> ShapeResult:
    shape = _shape(bound)
    return None if shape is None else tuple(reversed(shape))


def swapaxes_shape(bound: Bound) -> ShapeResult:
    shape = _shape(bound)
    first, second = as_int(bound["axis1"]), as_int(bound["axis2"])
    if shape is None or first is None or second is None:
        return None
    axes = _axes((first, second), len(shape))
    if isinstance(axes, Rejected):
        return None  # JAX words this one as a numpy index error
    order = list(range(len(shape)))
    order[axes[0]], order[axes[1]] = order[axes[1]], order[axes[0]]
    return tuple(shape[a] for a in order)


def moveaxis_shape(bound: Bound) -> ShapeResult:
    shape = _shape(bound)
    source, destination = as_ints(bound["source"]), as_ints(bound["destination"])
    if shape is None or source is None or destination is None:
        return None
    if len(source) != len(destination):
        return None
    moved, placed = _axes(source, len(shape)), _axes(destination, len(shape))
    if isinstance(moved, Rejected) or isinstance(placed, Rejected):
        return moved if isinstance(moved, Rejected) else placed
    rest = [a for a in range(len(shape)) if a not in moved]
    order: list[int] = []
    for position in range(len(shape)):
        order.append(moved[placed.index(position)] if position in placed else rest.pop(0))
    return tuple(shape[a] for a in order)


# ---- adding and removing axes ----------------------------------------------------------

def expand_dims_shape(bound: Bound) -> ShapeResult:
    shape, given = _shape(bound), as_ints(bound["axis"])
    if shape is None or given is None:
        return None
    rank = len(shape) + len(given)
    axes = _axes(given, rank)
    if isinstance(axes, Rejected) or len(set(axes)) != len(axes):
        return axes if isinstance(axes, Rejected) else None
    rest = iter(shape)
    return tuple(1 if i in axes else next(rest) for i in range(rank))


def squeeze_shape(bound: Bound) -> ShapeResult:
    shape = _shape(bound)
    if shape is None:
        return None
    if is_none(bound["axis"]):
        if not is_static(shape):
            return None
        return tuple(d for d in shape if d != 1)
    given = as_ints(bound["axis"])
    if given is None:
        return None
    axes = _axes(given, len(shape))
    if isinstance(axes, Rejected):
        return axes
    if any(isinstance(shape[a], int) and shape[a] != 1 for a in axes):
        if not is_static(shape):
            return None
        return Rejected("cannot select an axis to squeeze out which has size not equal to "
                        f"one, got shape={tuple(shape)} and dimensions={axes}")
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def broadcast_to_shape(bound: Bound) -> ShapeResult:
    shape, target = _shape(bound), as_shape(bound["shape"])
    if shape is None or target is None or len(shape) > len(target) or any(
            isinstance(d, int) and d < 0 for d in target):
        return None
    for have, want in zip(reversed(shape), reversed(target)):
        if have not in (1, want) and isinstance(have, int) and isinstance(want, int):
            return None
    return target


def broadcast_in_dim_shape(bound: Bound) -> ShapeResult:
    shape = _shape(bound, "operand")
    target = as_shape(bound["shape"])
    dims = as_ints(bound["broadcast_dimensions"])
    if shape is None or target is None or dims is None or len(dims) != len(shape):
        return None
    if any(isinstance(d, int) and d < 0 for d in target):
        return None
    for have, at in zip(shape, dims):
        if not 0 <= at < len(target) or (have != 1 and have != target[at]):
            return None
    return target


def tile_shape(bound: Bound) -> ShapeResult:
    shape, reps = _shape(bound, "A"), as_ints(bound["reps"])
    if shape is None or reps is None:
        return None
    rank = max(len(shape), len(reps))
    padded = (1,) * (rank - len(shape)) + tuple(shape)
    reps = (1,) * (rank - len(reps)) + reps
    return tuple(d * r if isinstance(d, int) else (d if r == 1 else UNKNOWN_DIM)
                 for d, r in zip(padded, reps))


def repeat_shape(bound: Bound) -> ShapeResult:
    shape, repeats = _shape(bound), as_int(bound["repeats"])
    if shape is None or repeats is None or repeats < 0:
        return None
    if is_none(bound["axis"]):
        total = _product(shape)
        return (total * repeats if isinstance(total, int) else UNKNOWN_DIM,)
    axis = as_int(bound["axis"])
    if axis is None:
        return None
    at = normalize_axis(axis, len(shape))
    if isinstance(at, Rejected):
        return at
    dim = shape[at]
    return tuple((dim * repeats if isinstance(dim, int) else UNKNOWN_DIM) if i == at else d
                 for i, d in enumerate(shape))


# ---- joining --------------------------------------------------------------------------

def _joined(bound: Bound) -> list[Shape] | None:
    arrays = bound["arrays"]
    if not isinstance(arrays, Seq) or not arrays.items:
        return None
    shapes = [_shape(Bound({"a": item})) for item in arrays.items]
    return None if any(s is None for s in shapes) else [s for s in shapes if s is not None]


def concatenate_shape(bound: Bound) -> ShapeResult:
    shapes, axis = _joined(bound), as_int(bound["axis"])
    if shapes is None or axis is None:
        return None
    at = normalize_axis(axis, len(shapes[0]))
    if isinstance(at, Rejected):
        return at
    if len({len(s) for s in shapes}) > 1:
        if not all(is_static(s) for s in shapes):
            return None
        listed = ", ".join(str(tuple(s)) for s in shapes)
        return Rejected("Cannot concatenate arrays with different numbers of dimensions: "
                        f"got {listed}.")
    out: list[Dim] = []
    for i, dims in enumerate(zip(*shapes)):
        if i == at:
            out.append(_product(()) if not dims else _sum(dims))
        elif len(set(dims)) == 1:
            out.append(dims[0])
        elif all(isinstance(d, int) for d in dims):
            return None
        else:
            out.append(next((d for d in dims if isinstance(d, int)), UNKNOWN_DIM))
    return tuple(out)


def _sum(dims: tuple[Dim, ...]) -> Dim:
    if all(isinstance(d, int) for d in dims):
        return sum(int(d) for d in dims)
    return UNKNOWN_DIM


def stack_shape(bound: Bound) -> ShapeResult:
    shapes, axis = _joined(bound), as_int(bound["axis"])
    if shapes is None or axis is None or any(s != shapes[0] for s in shapes):
        return None
    at = normalize_axis(axis, len(shapes[0]) + 1)
    if isinstance(at, Rejected):
        return at
    return (*shapes[0][:at], len(shapes), *shapes[0][at:])


def joined_dtype(bound: Bound) -> DTypeResult:
    arrays = bound["arrays"]
    if not isinstance(arrays, Seq) or not arrays.items:
        return None
    members = [operand(Bound({"a": item}), "a") for item in arrays.items]
    if any(m is None for m in members):
        return None
    return promoted(*(m.dtype for m in members if m is not None))


# ---- same shape, other dtype ------------------------------------------------------------

def pallas_roll_shape(bound: Bound) -> ShapeResult:
    shape, shift, axis = _shape(bound, "x"), bound["shift"], as_int(bound["axis"])
    if shape is None or axis is None or not is_none(bound["stride"]):
        return None
    if as_int(shift) is not None and (as_int(shift) or 0) < 0:
        return Rejected("shift must be non-negative.")
    if not 0 <= axis < len(shape):
        return Rejected("axis is out of range.")
    return shape


def pallas_bitcast_shape(bound: Bound) -> ShapeResult:
    """`pltpu.bitcast` rescales the second-minor dim by the ratio of bit widths."""
    x, target = operand(bound, "x"), as_dtype(bound["ty"])
    if x is None or x.shape is None or x.dtype is None or target is None:
        return None
    if len(x.shape) < 2:
        return Rejected("Not implemented: bitcast 1D")
    source_bits, target_bits = bits(x.dtype), bits(target)
    rows = x.shape[-2]
    if source_bits is None or target_bits is None:
        return None
    if not isinstance(rows, int):
        return x.shape if source_bits == target_bits else (*x.shape[:-2], "?", x.shape[-1])
    if rows * source_bits % target_bits:
        return Rejected("Not implemented: the 2nd minor dim can not be perfectly packed "
                        "or unpacked")
    return (*x.shape[:-2], rows * source_bits // target_bits, x.shape[-1])


def bitcast_convert_shape(bound: Bound) -> ShapeResult:
    x, target = operand(bound, "operand"), as_dtype(bound["new_dtype"])
    if x is None or x.shape is None or x.dtype is None or target is None:
        return None
    source_bits, target_bits = bits(x.dtype), bits(target)
    if source_bits is None or target_bits is None:
        return None
    if source_bits == target_bits:
        return x.shape
    if source_bits > target_bits:
        return (*x.shape, source_bits // target_bits)
    if x.shape and x.shape[-1] == target_bits // source_bits:
        return x.shape[:-1]
    return None


def target_dtype(name: str) -> DTypeRule:
    """The dtype given as the argument `name`, strong."""

    def rule(bound: Bound) -> DTypeResult:
        return as_dtype(bound[name])

    return rule

