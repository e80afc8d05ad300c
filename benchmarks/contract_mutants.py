"""Contract mutation families (issue 10): mutate correct kernels, ask JAX, score the analyzer.

    python benchmarks/contract_mutants.py [--jax] [--jobs 2] [--cap 400] [--strict] [--json OUT]

Mutants are generated mechanically from the correct `pallas_call` kernels: the contract
modules ``tests/contract/*_ok.py`` (checked by JAX with their ``jax_check()``, which
lowers for TPU) and the correct semaphore corpus / examples whose `pallas_call`s have
literal ``BlockSpec`` shapes (checked by their ``trace()`` / ``main()``, interpret mode:
no TPU lowering, so the tiling mutations are left out there). Specs and grids given to
``emit_pipeline`` are not the `pallas_call` contract and are left alone. Four families:

* ``kernel-params``: drop the kernel's last positional parameter / add ``extra_ref``.
  Right line: the kernel ``def`` (PAL101).
* ``block-dims``: in a literal ``BlockSpec((.., a, b), ...)`` set ``b`` to 100 or
  ``b - 1``, ``a`` to 4 (in every spec that writes that dim the same way, so the kernel
  body still sees one block shape), or drop the leading dimension. Right line: the ``BlockSpec``
  (PAL201 / PAL202; PAL104 / PAL103 for the dropped dimension, PAL103 also on a named
  index map's ``def``).
* ``grid-rank``: add an axis to a literal ``grid=(...)`` or drop its last one. Right
  line: where the mutation breaks a rule JAX applies: an index map whose arity no longer
  matches (PAL102, its ``BlockSpec`` or ``def``), ``dimension_semantics=`` (PAL106), a
  ``pl.program_id`` / ``pl.num_programs`` axis beyond the new grid (PAL107). The
  analyzer must report JAX's first error on one of those lines.
* ``index-map``: add / drop a lambda (or named index map) parameter (PAL102), add / drop
  a returned element (PAL103). Right line: the ``BlockSpec`` or the named map's ``def``.

Scoring with ``--jax`` (JAX's verdict decides): a mutant JAX rejects with a contract
error is *flagged* when the analyzer reports on a right line an error the mutation causes
there (grid mutants: JAX's own code; the table also counts JAX's own code for all); a
mutant JAX accepts must get no contract finding (PAL1xx / PAL2xx) at all; on a rejected
mutant, a contract finding on a line that is neither a right line nor JAX's is a false
error, and a grid mutant's findings with another code than JAX's first error must be
confirmed by JAX on the repaired mutant (``confirm_followups``). Mutants JAX rejects for
another reason (the kernel body) are listed, not scored. Every family is capped at
``--cap`` mutants (evenly spaced, so the same ones each run). Without ``--jax`` every
mutant is assumed rejected (a smoke run of the analyzer only).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CONTRACT = REPO / "tests" / "contract"
CORPUS = REPO / "tests" / "corpus"
EXAMPLES = REPO / "examples"
VERDICTS = CONTRACT / "jax_verdicts.py"
sys.path.insert(0, str(REPO / "server"))

FAMILIES = ("kernel-params", "block-dims", "grid-rank", "index-map")
GOAL = 0.95
DEFAULT_CAP = 400

# JAX 0.10.2's words for each contract rule (first line of the exception), as in
# tests/oracle/test_contract_oracle.py.
JAX_WORDS = (
    ("PAL103", r"Index map function .* must return \d+ values to match block_shape="),
    ("PAL104", r"Block shape for .* must have the same number of dimensions as the array shape"),
    ("PAL105", r"Pytree for `(out_specs|in_specs)` and `(out_shape|inputs)` do not match"),
    ("PAL106", r"Length of grid does not match length of dimension semantics"),
    ("PAL107", r"Axis \d+ is out of bounds for grid \("),
    ("PAL201", r"last two dimensions of your block shape are divisible by 8 and 128"),
    ("PAL202", r"requires that rank 1 block shapes"),
    # the kernel (PAL101) or an index map (PAL102) called with the wrong number of arguments
    ("PAL101/2", (r"[\w.<>]+\(\) (missing \d+ required positional arguments?: "
                  r"|takes \d+ positional arguments? but \d+ (positional arguments? \(and [^)]*\) )?(was|were) given)")),
)
ENTRY_SHIM = "\n\ndef jax_check():  # added by contract_mutants: run the module's own entry\n    {entry}()\n"


# ----------------------------------------------------------------------------- mutants

@dataclass
class Mutant:
    family: str
    kind: str
    path: Path                   # the correct module it comes from
    line: int                    # the mutated line (1-based)
    source: str
    sites: dict[int, set[str]]   # right lines -> the codes the mutation can cause there
    entry: str = "jax_check"     # what JAX runs: jax_check(), or the module's trace() / main()
    result: dict = field(default_factory=dict)

    @property
    def label(self) -> str:
        return f"{rel(self.path)}:{self.line} {self.family}/{self.kind}"


def rel(path) -> str:
    try:
        return str(Path(path).resolve().relative_to(REPO))
    except ValueError:
        return str(path)


class Editor:
    """Text edits by AST position (1-based line, UTF-8 byte column), one mutant at a time."""

    def __init__(self, source: str):
        self.source = source
        self.starts = [0]
        for line in source.splitlines(keepends=True):
            self.starts.append(self.starts[-1] + len(line))
        self.lines = source.splitlines(keepends=True)

    def off(self, line: int, col: int) -> int:
        text = self.lines[line - 1].encode()[:col].decode(errors="replace")
        return self.starts[line - 1] + len(text)

    def start(self, node) -> int:
        return self.off(node.lineno, node.col_offset)

    def end(self, node) -> int:
        return self.off(node.end_lineno, node.end_col_offset)

    def text(self, node) -> str:
        return self.source[self.start(node):self.end(node)]

    def splice(self, a: int, b: int, new: str) -> str:
        return self.source[:a] + new + self.source[b:]

    def replace_all(self, edits: list[tuple]) -> str:
        """Replace several nodes at once: [(node, new text)], lines kept as in `replace`."""
        out = self.source
        for node, text in sorted(edits, key=lambda e: -self.start(e[0])):
            pad = self.text(node).count("\n") - text.count("\n")
            out = out[:self.start(node)] + text + "\n" * max(pad, 0) + out[self.end(node):]
        return out

    def replace(self, node, new: str) -> str:
        """Replace a node inside brackets; pad with newlines so that lines stay put."""
        old = self.text(node)
        pad = old.count("\n") - new.count("\n")
        return self.splice(self.start(node), self.end(node), new + "\n" * max(pad, 0))


def _call_name(node) -> str | None:
    if not isinstance(node, ast.Call):
        return None
    f = node.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None


def _arg(call: ast.Call, pos: int, name: str):
    if len(call.args) > pos and not isinstance(call.args[pos], ast.Starred):
        return call.args[pos]
    return next((k.value for k in call.keywords if k.arg == name), None)


def _defs(tree) -> dict[str, ast.FunctionDef | None]:
    out: dict[str, ast.FunctionDef | None] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            out[node.name] = None if node.name in out else node
    return out


def _lines(node) -> set[int]:
    return set(range(node.lineno, node.end_lineno + 1))


def _tuple_of(parts: list[str]) -> str:
    return f"({parts[0]},)" if len(parts) == 1 else f"({', '.join(parts)})"


# -- parameters (kernel defs, lambdas, named index maps) --------------------------

def _positional(args: ast.arguments) -> list[ast.arg]:
    return [*args.posonlyargs, *args.args]


def _param_end(args: ast.arguments, i: int, arg: ast.arg):
    """The node ending parameter i (its default when it has one)."""
    pos = _positional(args)
    first_default = len(pos) - len(args.defaults)
    return args.defaults[i - first_default] if i >= first_default else arg


def drop_param(ed: Editor, fn) -> str | None:
    pos = _positional(fn.args)
    if not pos:
        return None
    i = len(pos) - 1
    end = ed.end(_param_end(fn.args, i, pos[i]))
    if i == 0:
        nxt = ed.source[end:].lstrip()
        if nxt.startswith(","):   # `(a, *rest)` -> `(*rest)`
            end = len(ed.source) - len(nxt) + 1
        return ed.splice(ed.start(pos[0]), end, "")
    return ed.splice(ed.end(_param_end(fn.args, i - 1, pos[i - 1])), end, "")


def add_param(ed: Editor, fn, name: str) -> str | None:
    pos = _positional(fn.args)
    new = f"{name}=None" if fn.args.defaults else name
    if pos:
        at = ed.end(_param_end(fn.args, len(pos) - 1, pos[-1]))
        return ed.splice(at, at, f", {new}")
    if isinstance(fn, ast.Lambda) and not (fn.args.vararg or fn.args.kwonlyargs or fn.args.kwarg):
        at = ed.start(fn) + len("lambda")
        return ed.splice(at, at, f" {new}")
    return None


# -- what a module holds --------------------------------------------------------------

def kernel_defs(tree) -> list[ast.FunctionDef]:
    defs, out = _defs(tree), []
    for call in ast.walk(tree):
        if _call_name(call) != "pallas_call":
            continue
        k = _arg(call, 0, "kernel")
        if _call_name(k) == "partial" and k.args:
            k = k.args[0]
        fn = defs.get(k.id) if isinstance(k, ast.Name) else None
        if fn is not None and fn not in out:
            out.append(fn)
    return out


@dataclass
class Spec:
    call: ast.Call
    shape: ast.Tuple | None
    index_map: ast.Lambda | ast.FunctionDef | None

    @property
    def lines(self) -> set[int]:
        out = _lines(self.call)
        if isinstance(self.index_map, ast.FunctionDef):
            out.add(self.index_map.lineno)
        return out


def pipeline_nodes(tree) -> set[int]:
    """ids of the nodes that belong to `emit_pipeline` calls (not the pallas_call contract):
    the call's own subtree and the BlockSpecs assigned to names it uses."""
    inside: set[int] = set()
    names: set[str] = set()
    for call in ast.walk(tree):
        if (_call_name(call) or "").startswith("emit_pipeline"):
            for node in ast.walk(call):
                inside.add(id(node))
                if isinstance(node, ast.Name):
                    names.add(node.id)
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id in names for t in node.targets):
            inside.update(id(n) for n in ast.walk(node.value))
    return inside


def block_specs(tree) -> list[Spec]:
    defs, out, skip = _defs(tree), [], pipeline_nodes(tree)
    for call in ast.walk(tree):
        if _call_name(call) != "BlockSpec" or id(call) in skip:
            continue
        shape, imap = _arg(call, 0, "block_shape"), _arg(call, 1, "index_map")
        if isinstance(imap, ast.Name):
            imap = defs.get(imap.id)
        out.append(Spec(call, shape if isinstance(shape, ast.Tuple) else None,
                        imap if isinstance(imap, (ast.Lambda, ast.FunctionDef)) else None))
    return sorted(out, key=lambda s: (s.call.lineno, s.call.col_offset))


def _literal_int(node) -> int | None:
    return node.value if isinstance(node, ast.Constant) and type(node.value) is int else None


def n_prefetch(tree) -> int:
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "num_scalar_prefetch":
            return _literal_int(node.value) or 0
    return 0


def _accepts(args: ast.arguments, n: int) -> bool:
    pos = len(_positional(args))
    return pos - len(args.defaults) <= n and (n <= pos or args.vararg is not None)


def _sites(lines, codes) -> dict[int, set[str]]:
    return {line: set(codes) for line in lines}


def _merge(into: dict[int, set[str]], more: dict[int, set[str]]) -> dict[int, set[str]]:
    for line, codes in more.items():
        into.setdefault(line, set()).update(codes)
    return into


# ----------------------------------------------------------------------------- families

def kernel_mutants(ed: Editor, tree) -> Iterator[tuple]:
    for fn in kernel_defs(tree):
        sites = _sites([fn.lineno], ["PAL101"])
        for kind, new in (("drop-param", drop_param(ed, fn)), ("add-param", add_param(ed, fn, "extra_ref"))):
            if new is not None:
                yield "kernel-params", kind, fn.lineno, new, sites


def _plain_dim(node) -> bool:
    """A block dimension given as a number or an expression (not None, not pl.Squeezed())."""
    return not isinstance(node, (ast.Starred, ast.Call)) and not (
        isinstance(node, ast.Constant) and node.value is None)


def _minus_one(ed: Editor, node) -> str:
    value = _literal_int(node)
    if value is not None:
        return str(value - 1)
    return f"{ed.text(node)} - 1" if isinstance(node, ast.Name) else f"({ed.text(node)}) - 1"


def _dims(specs: list[Spec], back: int) -> dict[str, list]:
    """The `back`-th dimension from the end of every literal block shape, by its source text."""
    out: dict[str, list] = {}
    for spec in specs:
        elts = spec.shape.elts if spec.shape is not None else []
        if len(elts) >= back and not any(isinstance(e, ast.Starred) for e in elts) and _plain_dim(elts[-back]):
            out.setdefault(ast.unparse(elts[-back]), []).append((spec, elts[-back]))
    return out


def tiling_mutants(ed: Editor, specs: list[Spec]) -> Iterator[tuple]:
    """A block dim changed in every BlockSpec that writes it the same way, so that the kernel
    body still sees blocks of one shape (else JAX stops at the body, not at the tiling)."""
    for back, changes in ((1, (("lanes-100", lambda n: "100"), ("lanes-minus-1", lambda n: _minus_one(ed, n)))),
                          (2, (("rows-4", lambda n: "4"),))):
        for text, group in _dims(specs, back).items():
            sites = _sites(set().union(*(s.lines for s, _ in group)), ["PAL201", "PAL202"])
            for kind, change in changes:
                if change(group[0][1]) == text:
                    continue
                new = ed.replace_all([(node, change(node)) for _, node in group])
                yield "block-dims", kind, group[0][1].lineno, new, sites


def block_mutants(ed: Editor, tree, tiling: bool) -> Iterator[tuple]:
    specs = block_specs(tree)
    if tiling:
        yield from tiling_mutants(ed, specs)
    for spec in specs:
        elts = spec.shape.elts if spec.shape is not None else []
        if len(elts) >= 2 and not any(isinstance(e, ast.Starred) for e in elts):
            new = ed.replace(spec.shape, _tuple_of([ed.text(e) for e in elts[1:]]))
            yield "block-dims", "drop-dim", spec.shape.lineno, new, _sites(spec.lines, ["PAL103", "PAL104"])


def grid_sites(tree, specs: list[Spec], rank: int, prefetch: int) -> dict[int, set[str]]:
    """Where a grid of `rank` axes breaks a rule JAX applies (PAL102, PAL106, PAL107)."""
    sites: dict[int, set[str]] = {}
    for s in specs:
        if s.index_map is not None and not _accepts(s.index_map.args, rank + prefetch):
            _merge(sites, _sites(s.lines, ["PAL102"]))
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "dimension_semantics":
            v = node.value
            if not (isinstance(v, (ast.Tuple, ast.List)) and len(v.elts) == rank):
                _merge(sites, _sites(_lines(node), ["PAL106"]))
        elif _call_name(node) in ("program_id", "num_programs"):
            axis = _literal_int(_arg(node, 0, "axis"))
            if axis is None or axis >= rank:
                _merge(sites, _sites(_lines(node), ["PAL107"]))
    return sites


def grid_mutants(ed: Editor, tree) -> Iterator[tuple]:
    specs, prefetch, skip = block_specs(tree), n_prefetch(tree), pipeline_nodes(tree)
    for node in ast.walk(tree):
        if not (isinstance(node, ast.keyword) and node.arg == "grid" and isinstance(node.value, ast.Tuple)):
            continue
        if id(node) in skip:
            continue
        grid = node.value
        if any(isinstance(e, ast.Starred) for e in grid.elts):
            continue
        parts = [ed.text(e) for e in grid.elts]
        yield ("grid-rank", "add-axis", grid.lineno, ed.replace(grid, _tuple_of(parts + ["2"])),
               grid_sites(tree, specs, len(parts) + 1, prefetch))
        if parts:
            yield ("grid-rank", "drop-axis", grid.lineno, ed.replace(grid, _tuple_of(parts[:-1]) if parts[1:] else "()"),
                   grid_sites(tree, specs, len(parts) - 1, prefetch))


def _returned_tuple(fn) -> ast.Tuple | None:
    if isinstance(fn, ast.Lambda):
        return fn.body if isinstance(fn.body, ast.Tuple) else None
    returns = [n for n in ast.walk(fn) if isinstance(n, ast.Return)]
    if len(returns) == 1 and isinstance(returns[0].value, ast.Tuple):
        return returns[0].value
    return None


def index_map_mutants(ed: Editor, tree) -> Iterator[tuple]:
    specs, seen = block_specs(tree), []
    for spec in specs:
        fn = spec.index_map
        if fn is None or fn in seen:
            continue
        seen.append(fn)
        lines = set().union(*(s.lines for s in specs if s.index_map is fn))
        for kind, new in (("add-arg", add_param(ed, fn, "extra")), ("drop-arg", drop_param(ed, fn))):
            if new is not None:
                yield "index-map", kind, fn.lineno, new, _sites(lines, ["PAL102"])
        tup = _returned_tuple(fn)
        if tup is None or any(isinstance(e, ast.Starred) for e in tup.elts):
            continue
        parts = [ed.text(e) for e in tup.elts]
        yield "index-map", "add-result", tup.lineno, ed.replace(tup, _tuple_of(parts + ["0"])), _sites(lines, ["PAL103"])
        if parts:
            new = ed.replace(tup, _tuple_of(parts[:-1]) if parts[1:] else "()")
            yield "index-map", "drop-result", tup.lineno, new, _sites(lines, ["PAL103"])


# ----------------------------------------------------------------------------- modules

@dataclass(frozen=True)
class Source:
    path: Path
    entry: str           # "jax_check" (lowers for TPU) or the module's trace() / main()

    @property
    def lowers(self) -> bool:
        return self.entry == "jax_check"


def source_modules() -> list[Source]:
    """The correct contract modules, then the correct corpus / examples with literal BlockSpecs."""
    out = [Source(p, "jax_check") for p in sorted(CONTRACT.glob("pal*_ok.py"))]
    for p in sorted([*CORPUS.glob("*.py"), *EXAMPLES.glob("*.py")]):
        if p.stem.endswith("_bug"):
            continue
        tree = ast.parse(p.read_text())
        if not any(s.shape is not None for s in block_specs(tree)):
            continue
        top = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
        entry = next((e for e in ("jax_check", "trace", "main") if e in top), None)
        if entry is not None:
            out.append(Source(p, entry))
    return out


def module_mutants(src: Source) -> list[Mutant]:
    text = src.path.read_text()
    tree, ed = ast.parse(text), Editor(text)
    gens = (kernel_mutants(ed, tree), block_mutants(ed, tree, tiling=src.lowers),
            grid_mutants(ed, tree), index_map_mutants(ed, tree))
    out, seen = [], {text}
    for gen in gens:
        for family, kind, line, new, sites in gen:
            if new in seen:
                continue
            seen.add(new)
            ast.parse(new)  # a mutant is always valid Python
            out.append(Mutant(family, kind, src.path, line, new, {k: set(v) for k, v in sites.items()}, src.entry))
    return out


def generate(sources: list[Source], cap: int) -> list[Mutant]:
    """Every family's mutants, at most `cap` each (evenly spaced, so always the same ones)."""
    every = [m for s in sources for m in module_mutants(s)]
    out = []
    for family in FAMILIES:
        ms = [m for m in every if m.family == family]
        if cap and len(ms) > cap:
            ms = [ms[i * len(ms) // cap] for i in range(cap)]
        out.extend(ms)
    return out


# ----------------------------------------------------------------------------- JAX

def write_mutants(mutants: list[Mutant], tmp: Path) -> list[Path]:
    """Each mutant in its own folder under its module's name (a shim calls trace()/main())."""
    files = []
    for i, m in enumerate(mutants):
        d = tmp / f"m{i:04d}"
        d.mkdir()
        shim = "" if m.entry == "jax_check" else ENTRY_SHIM.format(entry=m.entry)
        f = d / m.path.name
        f.write_text(m.source + shim)
        files.append(f)
    return files


def run_verdicts(files: list[Path], jobs: int, timeout: float = 900) -> dict[str, dict]:
    """`tests/contract/jax_verdicts.py` on the files, in `jobs` processes: {realpath: record}."""
    env = dict(os.environ, JAX_PLATFORMS="cpu", PYTHONDONTWRITEBYTECODE="1")
    chunks = [files[i::jobs] for i in range(max(1, jobs)) if files[i::jobs]]
    procs = [subprocess.Popen([sys.executable, str(VERDICTS), *map(str, c)], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True, env=env) for c in chunks]
    out: dict[str, dict] = {}
    for proc in procs:
        try:
            stdout, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            stdout, _ = proc.communicate()
        for line in stdout.splitlines():
            rec = json.loads(line)
            out[os.path.realpath(rec["path"])] = rec
    return out


def jax_code(rec: dict, tree) -> str | None:
    """The contract rule JAX's first error belongs to (None: JAX accepts, or another error)."""
    if rec.get("status") != "error":
        return None
    msg = rec.get("message") or ""
    for code, words in JAX_WORDS:
        if re.search(words, msg):
            if code != "PAL101/2":
                return code
            called = re.match(r"([\w.<>]+)\(\)", msg).group(1).split(".")[-1]
            return "PAL101" if called in {fn.name for fn in kernel_defs(tree)} else "PAL102"
    return None


# ----------------------------------------------------------------------------- scoring

def contract_findings(source: str, path: Path) -> set[tuple[int, str]]:
    from pallas_lsp.analysis.engine import analyze_source
    return {(f.span.line + 1, f.code) for f in analyze_source(source, str(path)) if f.code[3] in "12"}


def score(m: Mutant, baseline: set, rec: dict | None) -> None:
    """Fill m.result: verdict (rejected / accepted / other / unverified), flagged, false errors."""
    new = sorted(contract_findings(m.source, m.path) - baseline)
    r = m.result
    r["findings"] = new
    if rec is None:                       # no JAX: every mutant is taken as rejected
        r["verdict"], r["code"], jax_line = "unverified", None, None
    else:
        r["code"] = jax_code(rec, ast.parse(m.source))
        message = re.sub(r"\S*/pallas-contract-mutants-[^/]+/m\d+/", "", str(rec.get("message")))
        r["jax"] = f"{rec.get('exc_type')}: {message}" if rec.get("status") == "error" else "ok"
        jax_line = rec.get("line")
        r["verdict"] = ("accepted" if rec.get("status") == "ok" else
                        "rejected" if r["code"] else "other")
    if r["verdict"] == "accepted":
        r["flagged"], r["false"] = False, new
        return
    right = {(line, c) for line, codes in m.sites.items() for c in codes}
    if r["code"]:
        right.add((jax_line, r["code"]))
    # JAX's own (first) error on a right line; else another error the mutation causes there
    # (dropping a block dim breaks both the array's rank, PAL104, and the index map's, PAL103).
    want = {r["code"]} if r["code"] else {c for _, c in right}
    r["same_code"] = any((line, c) in right and c in want for line, c in new)
    r["flagged"] = r["same_code"] if m.family == "grid-rank" else any((line, c) in right for line, c in new)
    r["false"] = [(line, c) for line, c in new if line not in m.sites and line != jax_line]


def evaluate(mutants: list[Mutant], with_jax: bool, jobs: int) -> dict:
    """Analyse (and with JAX, judge) every mutant; returns the timings and the controls."""
    t0 = time.perf_counter()
    recs: dict[str, dict] = {}
    controls: dict[Path, dict] = {}
    with tempfile.TemporaryDirectory(prefix="pallas-contract-mutants-") as tmp:
        files = write_mutants(mutants, Path(tmp)) if with_jax else []
        paths = sorted({m.path for m in mutants})
        if with_jax:
            (Path(tmp) / "controls").mkdir()
            entries = {m.path: m.entry for m in mutants}
            originals = write_mutants([Mutant("control", "none", p, 0, p.read_text(), {}, entries[p])
                                       for p in paths], Path(tmp) / "controls")
            recs = run_verdicts(files + originals, jobs)
            controls = {p: recs.get(os.path.realpath(f), {"status": "none"}) for p, f in zip(paths, originals)}
        jax_s = time.perf_counter() - t0
        baselines = {p: contract_findings(p.read_text(), p) for p in paths}
        for m, f in zip(mutants, files or [None] * len(mutants)):
            rec = recs.get(os.path.realpath(f), {"status": "none", "message": "no record"}) if f else None
            if rec is not None and controls.get(m.path, {}).get("status") != "ok":
                rec = {"status": "control", "message": "the unmutated module fails under JAX"}
            score(m, baselines[m.path], rec)
        analysis_s = time.perf_counter() - t0 - jax_s
        if with_jax:
            confirm_followups(mutants, Path(tmp), jobs)
            jax_s = time.perf_counter() - t0 - analysis_s
    return {"jax_s": jax_s, "analysis_s": analysis_s, "controls": controls,
            "correct_false": {p: sorted(b) for p, b in baselines.items() if b}}



# ----------------------------------------------------------------------------- grid follow-ups
# JAX stops at the first error; a grid mutant breaks several rules (index maps first, then
# program_id axes when tracing the body, then dimension_semantics when lowering).  The
# analyzer's other findings on it are confirmed by JAX on the mutant repaired step by step.

def _grid_rank_at(tree, line: int) -> int | None:
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "grid" and isinstance(node.value, ast.Tuple) \
                and node.value.lineno == line:
            return len(node.value.elts)
    return None


def _refit(text: str, rank: int, added: bool) -> str:
    """An index map wrapped to take the new grid's indices (then the prefetch refs, as before):
    the added last axis is dropped, the dropped one passed as 0."""
    args = f"*a[:{rank - 1}], *a[{rank}:]" if added else f"*a[:{rank}], 0, *a[{rank}:]"
    return f"(lambda *a: ({text})({args}))"


_JNP = '__import__("jax").numpy.int32'


def repair_grid(m: Mutant, axes: bool) -> str | None:
    """The grid mutant with its index maps fitted to the new grid and, with `axes`, its
    `program_id` / `num_programs` calls beyond the grid replaced by constants."""
    tree, ed = ast.parse(m.source), Editor(m.source)
    rank = _grid_rank_at(tree, m.line)
    if rank is None:
        return None
    want, edits = rank + n_prefetch(tree), []
    for spec in block_specs(tree):
        node = _arg(spec.call, 1, "index_map")
        if spec.index_map is not None and not _accepts(spec.index_map.args, want):
            edits.append((node, _refit(ed.text(node), rank, m.kind == "add-axis")))
    for node in ast.walk(tree):
        name = _call_name(node)
        axis = _arg(node, 0, "axis") if name in ("program_id", "num_programs") else None
        if axes and axis is not None and (_literal_int(axis) or 0) >= rank:
            edits.append((node, f"{_JNP}({0 if name == 'program_id' else 1})"))
    return ed.replace_all(edits)


def confirm_followups(mutants: list[Mutant], tmp: Path, jobs: int) -> None:
    """Grid mutants: a finding with another code than JAX's first error must be confirmed by
    JAX on a repaired mutant (its next error has that code), else it is a false error (its
    line is already one the mutation breaks by that rule: see `grid_sites`)."""
    todo = [m for m in mutants if m.family == "grid-rank" and m.result["verdict"] == "rejected"
            and any(c != m.result["code"] for _, c in m.result["findings"])]
    variants = [(m, Mutant(m.family, "repaired", m.path, m.line, src, {}, m.entry))
                for m in todo for src in {repair_grid(m, False), repair_grid(m, True)} if src]
    (tmp / "followups").mkdir()
    files = write_mutants([v for _, v in variants], tmp / "followups")
    recs = run_verdicts(files, jobs) if files else {}
    confirmed: dict[int, set] = {}
    for (m, v), f in zip(variants, files):
        rec = recs.get(os.path.realpath(f), {})
        code = jax_code(rec, ast.parse(v.source))
        confirmed.setdefault(id(m), set()).add(code)
    for m in todo:
        ok = confirmed.get(id(m), set())
        m.result["followups"] = sorted(c for c in ok if c)
        for line, c in m.result["findings"]:
            if c != m.result["code"] and c not in ok and (line, c) not in m.result["false"]:
                m.result["false"].append((line, c))


# ----------------------------------------------------------------------------- report

def family_rows(mutants: list[Mutant]) -> list[dict]:
    rows = []
    for family in (*FAMILIES, "all"):
        ms = [m for m in mutants if family in ("all", m.family)]
        rejected = [m for m in ms if m.result["verdict"] in ("rejected", "unverified")]
        flagged = [m for m in rejected if m.result["flagged"]]
        same = [m for m in rejected if m.result["same_code"]]
        rows.append({
            "family": family, "mutants": len(ms), "rejected": len(rejected), "flagged": len(flagged), "same_code": len(same),
            "rate": len(flagged) / len(rejected) if rejected else 1.0,
            "accepted": sum(m.result["verdict"] == "accepted" for m in ms),
            "other": sum(m.result["verdict"] not in ("rejected", "unverified", "accepted") for m in ms),
            "false": sum(len(m.result["false"]) for m in ms),
        })
    return rows


def _finding_text(found) -> str:
    return ", ".join(f"{c} line {line}" for line, c in found) or "silent"


def report(mutants: list[Mutant], info: dict, with_jax: bool) -> list[dict]:
    rows = family_rows(mutants)
    what = "JAX rejects" if with_jax else "assumed rejected (no --jax)"
    print(f"\ncontract mutants (PAL1xx, PAL2xx): {len(mutants)} from "
          f"{len({m.path for m in mutants})} correct modules (JAX {info['jax_s']:.1f} s, "
          f"analysis {info['analysis_s']:.1f} s)")
    print(f"false errors on the unmutated modules: {sum(map(len, info['correct_false'].values()))}   (goal 0)")
    for path, found in info["correct_false"].items():
        print(f"  {rel(path)}: {_finding_text(found)}")
    print(f"| family | mutants | {what} | flagged on the right line | % | with JAX's code | JAX accepts | "
          f"JAX fails otherwise | false errors |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['family']} | {r['mutants']} | {r['rejected']} | {r['flagged']} | {r['rate']:.1%} | "
              f"{r['same_code']} | {r['accepted']} | {r['other']} | {r['false']} |")
    follow = [m for m in mutants if "followups" in m.result]
    if follow:
        print(f"grid mutants with more findings than JAX's first error: {len(follow)}; JAX on the repaired "
              f"mutant confirms the other codes of {sum(not m.result['false'] for m in follow)}")
    for m in mutants:
        r = m.result
        if r["verdict"] in ("rejected", "unverified") and not r["flagged"]:
            print(f"  MISSED {m.label}: JAX {r.get('code') or ''} {r.get('jax', '')[:160]} "
                  f"[analyzer: {_finding_text(r['findings'])}]")
        if r["false"]:
            print(f"  FALSE ERROR {m.label} (JAX: {r.get('jax', 'not run')[:120]}): {_finding_text(r['false'])}")
        if r["verdict"] not in ("rejected", "unverified", "accepted"):
            print(f"  JAX fails for another reason: {m.label}: {r.get('jax', '')[:160]}")
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jax", action="store_true", help="judge every mutant with JAX (jax_check)")
    ap.add_argument("--jobs", type=int, default=2, help="JAX processes (default 2)")
    ap.add_argument("--cap", type=int, default=DEFAULT_CAP, help="mutants per family at most (0: all)")
    ap.add_argument("--strict", action="store_true", help="exit 1 below the goals (CI)")
    ap.add_argument("--json", metavar="OUT", help="write every mutant's result as JSON")
    args = ap.parse_args(argv)
    return run(args.jax, args.jobs, args.cap, args.strict, args.json)


def run(with_jax: bool, jobs: int = 2, cap: int = DEFAULT_CAP, strict: bool = False,
        json_out: str | None = None) -> int:
    mutants = generate(source_modules(), cap)
    info = evaluate(mutants, with_jax, jobs)
    rows = report(mutants, info, with_jax)
    total = rows[-1]
    print(f"contract mutants flagged: {total['flagged']}/{total['rejected']} = {total['rate']:.1%} "
          f"(goal at least {GOAL:.0%}); false errors: {total['false']} (goal 0)")
    if json_out:
        Path(json_out).write_text(json.dumps({"families": rows, "mutants": [
            {"label": m.label, **{k: v for k, v in m.result.items()}} for m in mutants]}, indent=1, default=list))
    bad = total["rate"] < GOAL or total["false"] or info["correct_false"]
    if strict and bad:
        print("FAIL (--strict, contract mutants)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
