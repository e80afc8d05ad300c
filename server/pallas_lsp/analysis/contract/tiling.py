"""TPU block tiling, as Pallas's TPU lowering checks it (`_check_block_mappings`).

The last two dimensions of a block must be divisible by 8 and 128, or equal to the
array's; a `None` (squeezed) dimension counts as 1.  A rank-1 block must equal the array,
be a multiple of 1024, or be a power of 2 of at least 128 * (32 // bitwidth).  Blocks in
`pl.ANY` / HBM / SMEM and specs without a block shape are not checked (nor by JAX)."""

from __future__ import annotations

from collections.abc import Iterator

from ..pallas.values import ArraySpecV, BlockSpecV
from ..report import ContractFinding, ContractNote
from ..values import shape_text
from .layout import Layout, Ref, RefRole
from .rules import block_specs
from .suggest import block_dim_fixes

_UNTILED_SPACES = {"ANY", "HBM", "SMEM", "SEMAPHORE"}
_BITWIDTHS = {
    "float32": 32, "int32": 32, "uint32": 32, "float": 32,
    "bfloat16": 16, "float16": 16, "int16": 16, "uint16": 16, "half": 16,
    "int8": 8, "uint8": 8, "float8_e4m3fn": 8, "float8_e5m2": 8, "bool": 8, "bool_": 8,
    "float64": 64, "int64": 64, "uint64": 64,
}
_SUBLANES, _LANES = 8, 128


def bitwidth(dtype_text: str | None) -> int | None:
    """32 for `jnp.float32` / `"float32"` / `x.dtype`-free spellings; None when unknown."""
    if not dtype_text:
        return None
    word = dtype_text.strip().strip("'\"").rsplit(".", 1)[-1]
    return _BITWIDTHS.get(word)


def _dims(block: tuple) -> list:
    return [1 if d is None else d for d in block]


def _role_text(ref: Ref) -> str:
    return f"{ref.role.value} {ref.index}" if ref.index else "this block"


def block_tiling(layout: Layout) -> Iterator[ContractFinding]:
    for ref, spec in block_specs(layout):
        array = ref.array if isinstance(ref.array, ArraySpecV) else None
        if spec.block_shape is None or spec.loc is None or array is None or array.shape is None:
            continue
        if spec.memory_space in _UNTILED_SPACES or ref.role is RefRole.SCRATCH:
            continue
        block, shape = _dims(spec.block_shape), list(array.shape)
        if len(block) != len(shape) or not all(type(d) is int for d in block + shape):
            continue
        message = _rank1(block[0], shape[0], bitwidth(array.dtype)) if len(block) == 1 else _last_two(block, shape)
        if message is None:
            continue
        code = "PAL202" if len(block) == 1 else "PAL201"
        notes = (ContractNote(array.loc, "the array's shape"),) if array.loc is not None else ()
        yield ContractFinding(code, spec.loc, f"{message} Block {shape_text(spec.block_shape)} of {_role_text(ref)}, "
                              f"array shape {shape_text(array.shape)}.", notes, _dim_fixes(spec, block, shape))


def _dim_fixes(spec: BlockSpecV, block: list, shape: list) -> tuple:
    if len(block) < 2:
        return ()
    fixes: tuple = ()
    for axis, unit in ((-2, _SUBLANES), (-1, _LANES)):
        if block[axis] % unit and block[axis] != shape[axis]:
            fixes += block_dim_fixes(spec.loc, axis, unit, shape[axis])
    return fixes


def _last_two(block: list, shape: list) -> str | None:
    problems = []
    for axis, unit, name in ((-2, _SUBLANES, "second-to-last"), (-1, _LANES, "last")):
        b, a = block[axis], shape[axis]
        if b % unit == 0 or b == a:
            continue
        lower, upper = (b // unit) * unit, (b // unit + 1) * unit
        options = " or ".join(str(x) for x in (lower, upper) if 0 < x <= max(a, unit)) or str(unit)
        problems.append(f"the {name} dimension is {b}: not divisible by {unit} and not the array's {a} "
                        f"(use {options}, or {a})")
    if not problems:
        return None
    return ("The Pallas TPU lowering requires that the last two dimensions of a block shape are divisible by 8 and "
            "128 respectively, or equal to the respective dimensions of the overall array: " + "; ".join(problems)
            + ".")


def _rank1(b: int, a: int, bits: int | None) -> str | None:
    if b == a or b % (_SUBLANES * _LANES) == 0:
        return None
    power_of_two = b > 0 and b & (b - 1) == 0
    if power_of_two and bits is None and b >= _LANES * 4:
        return None   # legal whatever the dtype (8-bit needs 512)
    if power_of_two and bits is None:
        return None   # depends on the dtype, which is not known here
    minimum = _LANES * (32 // bits) if bits else _LANES
    if power_of_two and b >= minimum:
        return None
    return (f"The Pallas TPU lowering requires a rank-1 block shape to equal the array's ({a}), be a multiple of "
            f"1024, or be a power of 2 of at least {minimum} (128 * (32 // {bits or 32}) for this dtype): "
            f"{b} is none of these.")
