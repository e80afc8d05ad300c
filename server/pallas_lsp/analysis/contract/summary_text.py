"""A `pallas_call`'s summary (`summary.py`) as hover Markdown: a head line with the grid,
a table of the operands, and the VMEM they take (or what of it is not known)."""

from __future__ import annotations

from ..values import shape_text
from .layout import RefRole
from .summary import CallSummary, Operand, VmemTotal, block_bytes, source_text
from .tiling import bitwidth


def render(summary: CallSummary, versions: int = 1) -> str:
    """The summary as hover Markdown: a head line, a table of operands, the VMEM total."""
    s = summary
    kernel = f" of `{s.kernel}`" if s.kernel else ""
    lines = [f"**`{s.invoker}`**{kernel}", ""]
    if s.gridded:
        lines += [_grid_line(s), ""]
    if s.operands is None:
        lines.append("Its operands: how many is not known from the code.")
    else:
        lines += ["| ref | parameter | array | block | memory | index map | VMEM |",
                  "|---|---|---|---|---|---|---|"]
        lines += [_row(r) for r in s.operands]
        if s.total is not None:
            lines += ["", _total_line(s.total, s.gridded)]
    if versions > 1:
        lines += ["", f"The code reaches this call in {versions} different ways; shown: the one it says most about."]
    return "\n".join(lines)


def _grid_line(s: CallSummary) -> str:
    if s.grid == ():
        grid = "no grid (one step)"
    elif isinstance(s.grid, tuple):
        grid = f"grid `{shape_text(s.grid)}`"
    else:
        grid = f"grid `{s.grid}`" if s.grid else "a grid not known from the code"
    if isinstance(s.semantics, tuple):
        names = shape_text(tuple('"' + x + '"' for x in s.semantics))
        grid += f", `dimension_semantics` `{names}`"
    elif s.semantics:
        grid += f", `dimension_semantics={s.semantics}`"
    n = s.n_prefetch
    count = "a number of scalar-prefetch operands not known" if n is None else \
        f"{n} scalar-prefetch operand{'' if n == 1 else 's'}"
    return f"{grid}; {count}"


def _row(r: Operand) -> str:
    param = f"`{r.param}`" if r.param else ""
    if r.semaphore is not None:
        kind = "semaphore" if r.semaphore.kind == "?" else f"{r.semaphore.kind} semaphore"
        array = f"{kind} `{shape_text(r.semaphore.dims)}`" if r.semaphore.dims else kind
    else:
        array = _array_text(r.shape, r.dtype)
    block = "—" if r.space in ("SMEM", "semaphore") and r.block is None or r.role is RefRole.SCRATCH \
        or r.space == "ANY" and r.block is None else f"`{shape_text(r.block)}`" if r.block is not None \
        else "whole array"
    index_map = source_text(r.index_map)
    cells = [f"{r.role.value} {r.index}", param, array, block, r.space or "?",
             f"`{_cell(index_map)}`" if index_map else "—", _vmem_cell(r)]
    return "| " + " | ".join(cells) + " |"


def _cell(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    text = text if len(text) <= limit else text[:limit - 1] + "…"
    return text.replace("|", "\\|").replace("`", "'")


def _array_text(shape: tuple | None, dtype: str | None) -> str:
    if shape is None:
        return "?"
    short = _short_dtype(dtype)
    if short is not None:
        return f"`{short}[{', '.join(map(str, shape))}]`"
    return f"`{shape_text(shape)}` {'`' + _cell(dtype, 30) + '`' if dtype else 'of a dtype not known'}"


def _short_dtype(dtype: str | None) -> str | None:
    """JAX's short name (`f32`, `bf16`, `i8`) of a dtype spelled statically."""
    if bitwidth(dtype) is None:
        return None
    word = (dtype or "").strip().strip("'\"").rsplit(".", 1)[-1]
    name = {"float": "float32", "half": "float16", "bool_": "bool"}.get(word, word)
    return name if name == "bool" else name.replace("float", "f").replace("uint", "u").replace("int", "i")


def _vmem_cell(r: Operand) -> str:
    if not r.vmem:
        return "—" if r.space is not None else "?"
    if r.nbytes is None:
        why = "dtype not known" if block_bytes(r.block or r.shape, "float32") is not None else "shape not static"
        return f"{r.buffers} × ? ({why})" if r.buffers and r.role is not RefRole.SCRATCH else f"? ({why})"
    size = size_text(r.nbytes)
    if r.buffers is None:
        return f"{size} × 1 or 2 ({r.note})"
    note = f" ({r.note})" if r.note else ""
    return (f"{r.buffers} × {size}" if r.buffers > 1 or r.role is not RefRole.SCRATCH else size) + note


def _total_line(t: VmemTotal, gridded: bool) -> str:
    how = "VMEM blocks double-buffered, scratch once" if gridded else "scratch only: operands stay in HBM"
    if t.exact:
        return f"VMEM: **{size_text(t.nbytes)}** ({how}; logical sizes, before tile padding)."
    unknown = []
    if t.unknown_size:
        unknown.append(f"{_count(t.unknown_size, 'operand')} of unknown size")
    if t.unknown_buffers:
        unknown.append(f"{_count(t.unknown_buffers, 'block')} of 1 or 2 buffers, counted once")
    if t.unknown_space:
        unknown.append(f"{_count(t.unknown_space, 'operand')} in a memory space not known, not counted")
    head = f"at least **{size_text(t.nbytes)}**" if t.nbytes else "not known"
    return f"VMEM: {head}; {'; '.join(unknown)} ({how})."


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def size_text(n: int) -> str:
    """1536 -> "1.5 KiB"."""
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:,.2f}".rstrip("0").rstrip(".") + f" {unit}"
    return f"{n} B"
