"""A differential fuzzer for the `pallas_call` contract (PAL1xx, PAL2xx) against JAX's
tracing and TPU lowering.

    python benchmarks/contract_fuzz.py [--kernels N] [--seed S] [--smoke] [--only I ...]
                                       [--jobs J] [--list] [--strict] [--json OUT] [--keep DIR]

Writes `N` kernels, seeded and reproducible (kernel `I` of seed `S` is drawn from
`random.Random("S:I")`): an elementwise kernel over a 1-3-D f32 / bf16 array, one or two
inputs, a grid of 1-3 axes over the blocked dimensions in any order, block shapes (tiles,
whole dimensions, squeezed `None` dimensions), index maps as lambdas or defs, scalar
prefetch (`PrefetchScalarGridSpec`), `functools.partial` kernels with a keyword, and
`dimension_semantics`.  Four of every five are written correct; the fifth has one mistake,
the families in turn: `block-tiling` (a block's last two dimensions off the (8, 128)
tiling, or a rank-1 block off its rule), `map-arity` (an index map with a parameter too
many or too few), `map-length` (one value too many or too few returned),
`kernel-params` (the kernel with a parameter too many or too few), `semantics-length`
(`dimension_semantics` one entry off the grid).  Each module's `jax_check()` exports the
kernel for TPU on a CPU (`jax.export`, platforms=["tpu"]: tracing, then Mosaic lowering),
run by `tests/contract/jax_verdicts.py`, and pallas-lsp checks it.

A disagreement is printed with its seed and source: an error of any rule on a kernel JAX
accepts (a false error), a contract warning there (a false warning), a kernel JAX rejects
with a contract error and no contract error from pallas-lsp (a miss), a correct kernel JAX
rejects (the grammar's fault).  A kernel JAX rejects for another reason is listed, not
scored.  `--strict` exits 1 on a false error or a family below 95% flagged; `--smoke`:
60 kernels (CI).
"""

from __future__ import annotations

import argparse
import ast
import random
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "server"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import fuzz_harness
from contract_mutants import jax_code, run_verdicts

FAMILIES = ("correct", "block-tiling", "map-arity", "map-length", "kernel-params", "semantics-length")
GOAL = 0.95
SUBLANES = {"float32": 8, "bfloat16": 16}


@dataclass(frozen=True)
class Kernel:
    seed: str
    family: str
    what: str
    text: str


@dataclass
class Draw:
    """What one kernel is made of: the array, its block, and which grid axis walks each
    blocked dimension (None: the map returns 0 there)."""

    dtype: str
    shape: tuple[int, ...]
    block: list[int | None]
    axis_of: list[int | None]
    grid: list[int]
    inputs: int
    prefetch: bool
    partial: bool
    named_map: bool
    semantics: list[str] | None


def _dims(rng: random.Random, dtype: str) -> tuple[tuple[int, ...], list[int | None]]:
    """An array shape and a legal block of it."""
    rank = rng.choice([1, 2, 2, 3])
    if rank == 1:
        n = rng.choice([1024, 2048])
        return (n,), [rng.choice([n, 1024])]
    rows, lanes = rng.choice([16, 32, 64]), rng.choice([128, 256, 512])
    tile = SUBLANES[dtype]
    block: list[int | None] = [rng.choice([r for r in (tile, 2 * tile, rows) if rows % r == 0]),
                               rng.choice([128, lanes])]
    if rank == 2:
        return (rows, lanes), block
    lead = rng.choice([2, 4])
    return (lead, rows, lanes), [rng.choice([None, 1, lead // 2, lead]), *block]


def draw(rng: random.Random) -> Draw:
    dtype = rng.choice(list(SUBLANES))
    shape, block = _dims(rng, dtype)
    walked = [d for d, b in enumerate(block) if (b or 1) < shape[d]] or [0]
    order = rng.sample(walked, len(walked))
    axis_of: list[int | None] = [order.index(d) if d in order else None for d in range(len(shape))]
    grid = [0] * len(order)
    for d, axis in enumerate(axis_of):
        if axis is not None:
            grid[axis] = -(-shape[d] // (block[d] or 1))
    semantics = [rng.choice(["parallel", "arbitrary"])] * len(grid) if rng.random() < 0.4 else None
    return Draw(dtype, shape, block, axis_of, grid, rng.choice([1, 1, 2]), rng.random() < 0.25,
                rng.random() < 0.3, rng.random() < 0.3, semantics)


def mutate(rng: random.Random, d: Draw, family: str) -> tuple[str, int]:
    """Seed one mistake into `d` (block / semantics) or say which one the writer makes:
    (what, how much: -1 / +1 for a parameter or value too few / too many)."""
    off = rng.choice([-1, 1])
    if family == "block-tiling":
        if len(d.shape) == 1:
            d.block[0] = rng.choice([100, 384])
        elif rng.random() < 0.5 or d.block[-2] == d.shape[-2]:
            d.block[-1] = 100
        else:
            d.block[-2] = 4   # (8 rows is legal for bf16 too)
        for dim, axis in enumerate(d.axis_of):
            if axis is not None:
                d.grid[axis] = -(-d.shape[dim] // (d.block[dim] or 1))
        return f"block {tuple(d.block)}", 0
    if family == "semantics-length":
        if off < 0 and len(d.grid) == 1:
            off = 1
        d.semantics = ["arbitrary"] * (len(d.grid) + off)
        return f"{len(d.semantics)} semantics for {len(d.grid)} axes", off
    return family, off


def _index_map(d: Draw, family: str, off: int) -> tuple[list[str], str]:
    """The map's parameters and what it returns (with the family's mistake)."""
    params = [f"i{a}" for a in range(len(d.grid))] + (["ids_ref"] if d.prefetch else [])
    values = [f"i{a}" if a is not None else "0" for a in d.axis_of]
    if d.prefetch and values[0] != "0":
        values[0] = f"ids_ref[{values[0]}]"
    if family == "map-arity":
        params = params + ["extra"] if off > 0 or len(params) == 1 else params[:-1]
    if family == "map-length":
        values = values + ["0"] if off > 0 or len(values) == 1 else values[:-1]
    returned = values[0] + "," if len(values) == 1 else ", ".join(values)
    return params, f"({returned})"


def _kernel_def(d: Draw, family: str, off: int) -> list[str]:
    params = (["ids_ref"] if d.prefetch else []) + [f"x{n}_ref" for n in range(d.inputs)] + ["o_ref"]
    body = " + ".join(f"x{n}_ref[...]" for n in range(d.inputs))
    if family == "kernel-params":
        params = params + ["extra_ref"] if off > 0 else params[:-1]
        body = "x0_ref[...]" if off < 0 else body
    store = "o_ref" if "o_ref" in params else params[-1]
    if d.partial:
        return [f"def kernel({', '.join(params)}, *, scale):", f"    {store}[...] = ({body}) * scale"]
    return [f"def kernel({', '.join(params)}):", f"    {store}[...] = {body}"]


def write(seed: str, family: str, d: Draw, what: str, off: int) -> str:
    params, returned = _index_map(d, family, off)
    block = ", ".join("None" if b is None else str(b) for b in d.block) + ("," if len(d.block) == 1 else "")
    lines = ['"""Generated by benchmarks/contract_fuzz.py: kernel ' + seed + f" ({family}: {what}).\"\"\"", "",
             "import functools", "", "import jax", "import jax.numpy as jnp",
             "from jax.experimental import pallas as pl", "from jax.experimental.pallas import tpu as pltpu", "",
             f"SHAPE = {d.shape}",
             'TPU_V5E = jax.sharding.AbstractDevice(device_kind="TPU v5 lite", num_cores=1, platform="tpu")', "", "",
             *_kernel_def(d, family, off), "", ""]
    if d.named_map:
        lines += [f"def index_map({', '.join(params)}):", f"    return {returned}", "", ""]
        mapping = "index_map"
    else:
        mapping = f"lambda {', '.join(params)}: {returned}"
    grid = ", ".join(map(str, d.grid)) + ("," if len(d.grid) == 1 else "")
    kernel = "functools.partial(kernel, scale=2.0)" if d.partial else "kernel"
    spec = f"pl.BlockSpec(({block}), {mapping})"
    args = (["ids"] if d.prefetch else []) + [f"x{n}" for n in range(d.inputs)]
    lines += [f"def run({', '.join(args)}):", f"    spec = {spec}"]
    if d.prefetch:
        lines += ["    grid_spec = pltpu.PrefetchScalarGridSpec(", "        num_scalar_prefetch=1,",
                  f"        grid=({grid}),", f"        in_specs=[{', '.join(['spec'] * d.inputs)}],",
                  "        out_specs=spec,", "    )", "    return pl.pallas_call(", f"        {kernel},",
                  "        grid_spec=grid_spec,"]
    else:
        lines += ["    return pl.pallas_call(", f"        {kernel}", f"        grid=({grid}),",
                  f"        in_specs=[{', '.join(['spec'] * d.inputs)}],", "        out_specs=spec,"]
        lines[-4] += ","
    lines.append(f"        out_shape=jax.ShapeDtypeStruct(SHAPE, jnp.{d.dtype}),")
    if d.semantics is not None:
        sems = ", ".join(f'"{s}"' for s in d.semantics) + ("," if len(d.semantics) == 1 else "")
        lines.append(f"        compiler_params=pltpu.CompilerParams(dimension_semantics=({sems})),")
    lines += [f"    )({', '.join(args)})", "", "", "def jax_check():",   # the chip, for rank-1 blocks' tiling
              '    mesh = jax.sharding.AbstractMesh((1,), ("x",), abstract_device=TPU_V5E)',
              "    with jax.sharding.use_abstract_mesh(mesh):", f"        x = jax.ShapeDtypeStruct(SHAPE, jnp.{d.dtype})"]
    operands = (["jax.ShapeDtypeStruct((64,), jnp.int32)"] if d.prefetch else []) + ["x"] * d.inputs
    lines += [f"        jax.export.export(jax.jit(run), platforms=[\"tpu\"])({', '.join(operands)})", ""]
    return "\n".join(lines)


def family_of(index: int) -> str:
    return FAMILIES[1 + (index // 5) % (len(FAMILIES) - 1)] if index % 5 == 4 else "correct"


def kernel(seed: str, family: str) -> Kernel:
    rng = random.Random(seed)
    d = draw(rng)
    what, off = mutate(rng, d, family) if family != "correct" else ("", 0)
    summary = (f"{d.dtype}{list(d.shape)} block {tuple(d.block)} grid {tuple(d.grid)}, {d.inputs} input(s)"
               + ", scalar prefetch" * d.prefetch + ", partial" * d.partial + ", named map" * d.named_map
               + (f", semantics {len(d.semantics)}" if d.semantics else ""))
    return Kernel(seed, family, summary, write(seed, family, d, what or "correct", off))


def generate(seed: int, indices: list[int]) -> list[Kernel]:
    return [kernel(f"{seed}:{i}", family_of(i)) for i in indices]


# ----------------------------------------------------------------------------- scoring

@dataclass
class Outcome:
    index: int
    seed: str
    family: str
    what: str
    jax: str                 # ok / error / no_entry
    jax_code: str | None     # the contract rule JAX's error belongs to (None: another error)
    jax_message: str | None
    stage: str | None        # trace / lowering
    errors: list[str]        # "PAL201:17" of every error finding
    warnings: list[str]      # of the contract warnings (PAL1xx, PAL2xx)

    @property
    def contract_errors(self) -> list[str]:
        return [e for e in self.errors if e[3] in "12"]

    def verdict(self) -> str:
        """How pallas-lsp and JAX compare on this kernel (`agree` when they do)."""
        if self.jax == "ok":
            return "false-error" if self.errors else "false-warning" if self.warnings else "agree"
        if self.jax_code is None:
            return "other"            # JAX rejects for a reason outside the contract: not scored
        if self.family == "correct":
            return "grammar"
        return "agree" if self.contract_errors else "miss"


def check(k: Kernel) -> tuple[list[str], list[str]]:
    return fuzz_harness.findings(k.text, lambda code: code[3] in "12")   # the contract's warnings


def run(seed: int, indices: list[int], folder: Path, jobs: int) -> list[Outcome]:
    kernels = dict(zip(indices, generate(seed, indices)))
    paths = fuzz_harness.write_kernels(kernels, folder, f"contract_fuzz_{seed}")
    records = run_verdicts([Path(p) for p in paths], jobs)
    out = []
    for path, i in paths.items():
        k, rec = kernels[i], records.get(path, {"status": "no_entry", "message": "no record"})
        errors, warnings = check(k)
        out.append(Outcome(i, k.seed, k.family, k.what, rec["status"], jax_code(rec, ast.parse(k.text)),
                           rec.get("message"), rec.get("stage"), errors, warnings))
    return out


def report(outcomes: list[Outcome], kernels: dict[int, Kernel], listing: bool) -> tuple[int, dict]:
    rows: dict[str, Counter] = {f: Counter() for f in FAMILIES}
    for o in outcomes:
        row, v = rows[o.family], o.verdict()
        row["kernels"] += 1
        row[v] += 1
        row["rejected"] += o.jax_code is not None
        row["flagged"] += o.jax_code is not None and bool(o.contract_errors)
        row["same rule"] += o.jax_code is not None and any(e.startswith(o.jax_code) for e in o.contract_errors)
        if v != "agree" or listing:
            print(f"--- {v}: kernel {o.index} (seed {o.seed}, {o.family}): JAX {o.jax} {o.jax_code or ''} "
                  f"{o.stage or ''}{': ' + (o.jax_message or '')[:200] if o.jax_message else ''}; "
                  f"errors {o.errors}, warnings {o.warnings}\n    {o.what}")
            if v not in ("agree", "other"):
                print(kernels[o.index].text)
    print("\n| family | kernels | JAX rejects (contract) | flagged | % | same rule as JAX | JAX accepts "
          "| false errors | false warnings | other JAX errors | grammar |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for family, r in rows.items():
        if not r["kernels"]:
            continue
        mistaken = family != "correct"
        pct = f"{100 * r['flagged'] / r['rejected']:.1f}%" if r["rejected"] and mistaken else "-"
        accepted = r["agree"] + r["false-error"] + r["false-warning"] - (r["flagged"] if mistaken else 0)
        print(f"| {family} | {r['kernels']} | {r['rejected']} | {r['flagged'] if mistaken else '-'} | {pct} "
              f"| {r['same rule'] if mistaken else '-'} | {accepted} | {r['false-error']} | {r['false-warning']} "
              f"| {r['other']} | {r['grammar']} |")
    return sum(r["false-error"] for r in rows.values()), rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    fuzz_harness.add_arguments(ap, kernels=1000, smoke=60)
    ap.add_argument("--jobs", type=int, default=2, help="JAX processes")
    args = ap.parse_args(argv)
    return fuzz_harness.fuzz(args, lambda indices, folder: run(args.seed, indices, folder, args.jobs),
                             generate, report, GOAL)


if __name__ == "__main__":
    sys.exit(main())
