"""The grammar of `protocol_fuzz.py`: seeded Pallas TPU kernels built from the DMA /
semaphore constructs real kernels use, correct or with one seeded mistake.

A kernel is a *main* part (a pipeline over the grid steps, or one inside a loop of each
step) and up to two *extra* parts (a gather of several copies on one semaphore waited
once, `pl.semaphore_signal` / `wait` counts, a `run_scoped` copy), each with its own
scratch.  `kernel(seed, family)` draws every choice from `random.Random(seed)`; a
mistake (`FAMILIES[1:]`) is put into one part that can take it."""

from __future__ import annotations

import random
import textwrap
from dataclasses import dataclass, field

FAMILIES = ("correct", "drop-wait", "no-prologue", "unguarded-prefetch", "off-by-one")

HOLDERS = ("closure", "helper", "dataclass", "class")
DISPATCH = ("direct", "switch-lambda", "switch-def", "switch-partial", "switch-tuple", "switch-dict-sorted",
            "switch-dict-values", "switch-dict-keys", "switch-noarg", "cond", "when-per-slot")
GUARDS = ("decorator", "call", "cond")
LOOPS = ("fori_loop", "pl.loop", "while_loop")

HELPERS = {
    "helper": '''
        def fetch_block(src, dst, sems, blk, slot):
            return pltpu.make_async_copy(src.at[pl.ds(blk * R, R)], dst.at[slot], sems.at[slot])
        ''',
    "dataclass": '''
        @dataclasses.dataclass(frozen=True)
        class Stream:
            src: object
            dst: object
            sems: object

            def copy(self, blk, slot):
                return pltpu.make_async_copy(self.src.at[pl.ds(blk * R, R)], self.dst.at[slot], self.sems.at[slot])
        ''',
    "class": '''
        class Fetcher:
            def __init__(self, src, dst, sems):
                self.src, self.dst, self.sems = src, dst, sems

            def __call__(self, blk, slot):
                return pltpu.make_async_copy(self.src.at[pl.ds(blk * R, R)], self.dst.at[slot], self.sems.at[slot])
        ''',
}
FETCH = {
    "closure": '''
        def fetch(blk, slot):
            return pltpu.make_async_copy(x_hbm.at[pl.ds(blk * R, R)], buf.at[slot], sems.at[slot])
        ''',
    "helper": "fetch = functools.partial(fetch_block, x_hbm, buf, sems)",
    "dataclass": "fetch = Stream(x_hbm, buf, sems).copy",
    "class": "fetch = Fetcher(x_hbm, buf, sems)",
}
_START_INTO = ["def start_into(blk, slot):", "    fetch(blk, slot).start()"]
_LAMBDAS = ["BR = [lambda blk, k=k: fetch(blk, k).start() for k in range(NSLOT)]"]
_TABLE = [*_START_INTO, "table = {k: functools.partial(start_into, slot=k) for k in range(NSLOT)}"]
BRANCHES = {   # what the dispatch needs defined before it
    "direct": [],
    "switch-lambda": _LAMBDAS,
    "switch-def": ["BR = []", "for k in range(NSLOT):", "    def start_k(blk, k=k):",
                   "        fetch(blk, k).start()", "    BR.append(start_k)"],
    "switch-partial": [*_START_INTO, "BR = [functools.partial(start_into, slot=k) for k in range(NSLOT)]"],
    "switch-tuple": ["BR = tuple(lambda blk, k=k: fetch(blk, k).start() for k in range(NSLOT))"],
    "switch-dict-sorted": [*_TABLE, "BR = [table[k] for k in sorted(table)]"],
    "switch-dict-values": [*_TABLE, "BR = list(table.values())"],
    "switch-dict-keys": [*_TABLE, "BR = [table[k] for k in table.keys()]"],
    "switch-noarg": [],
    "cond": _LAMBDAS,
    "when-per-slot": _START_INTO,
}


def dedent(text: str) -> list[str]:
    return textwrap.dedent(text).strip("\n").splitlines()


def indent(lines: list[str], by: int = 1) -> list[str]:
    return [("    " * by + ln) if ln else ln for ln in lines]


def start_lines(dispatch: str, blk: str, slot: str, nslot: int) -> list[str]:
    """Start the copy of block `blk` into `slot` the way `dispatch` says."""
    if dispatch == "direct":
        return [f"fetch({blk}, {slot}).start()"]
    if dispatch == "switch-noarg":
        return [f"jax.lax.switch({slot}, [lambda k=k: fetch({blk}, k).start() for k in range(NSLOT)])"]
    if dispatch == "cond":
        if nslot == 2:
            return [f"jax.lax.cond({slot} == 0, BR[0], BR[1], {blk})"]
        return [f"jax.lax.cond({slot} == 0, BR[0], lambda b: jax.lax.cond({slot} == 1, BR[1], BR[2], b), {blk})"]
    if dispatch == "when-per-slot":
        return ["for k in range(NSLOT):", f"    pl.when({slot} == k)(functools.partial(start_into, {blk}, k))"]
    return [f"jax.lax.switch({slot}, BR, {blk})"]


def guarded(rng: random.Random, cond: str | None, body: list[str], name: str) -> list[str]:
    """`body` run when `cond` holds (always when None): `@pl.when`, `pl.when(c)(f)` or `lax.cond`."""
    if cond is None:
        return body
    style = rng.choice(GUARDS)
    if style == "decorator":
        return [f"@pl.when({cond})", f"def {name}():", *indent(body)]
    func = [f"def {name}():", *indent(body)]
    if style == "call":
        return [*func, f"pl.when({cond})({name})"]
    return [*func, f"jax.lax.cond({cond}, {name}, lambda: None)"]


@dataclass
class Grid:
    """The grid and how its steps are numbered: `s` is the step's index over the whole grid."""

    dims: tuple[int, ...]
    restart: bool          # the pipeline starts again at the first step of the last axis
    cores: int = 1

    @property
    def names(self) -> list[str]:
        return ["i", "j", "l"][: len(self.dims)]

    @property
    def total(self) -> int:
        out = 1
        for n in self.dims:
            out *= n
        return out

    def linear(self) -> str:
        terms = []
        for axis, name in enumerate(self.names):
            stride = 1
            for n in self.dims[axis + 1:]:
                stride *= n
            terms.append(f"{name} * {stride}" if stride != 1 else name)
        return " + ".join(terms)

    def first(self, rng: random.Random) -> str:
        """A condition true on the first step of the pipeline."""
        names = [self.names[-1]] if self.restart else self.names
        if len(names) == 1:
            return rng.choice([f"{names[0]} == 0", f"jnp.logical_not({names[0]} > 0)", f"{names[0]} < 1"])
        if rng.random() < 0.2:
            return "s == 0"
        eqs = [f"{n} == 0" for n in names]
        return rng.choice([" & ".join(f"({e})" for e in eqs), _nest("jnp.logical_and", eqs),
                           "jnp.logical_not(" + " | ".join(f"({n} > 0)" for n in names) + ")",
                           "jnp.logical_not(" + _nest("jnp.logical_or", [f"{n} != 0" for n in names]) + ")"])

    def not_last(self, rng: random.Random, off: int = 0) -> str:
        """A condition true on every step of the pipeline but its last (`off` moves the bound)."""
        if self.restart or len(self.dims) == 1:
            name, n = self.names[-1], self.dims[-1]
            axis = len(self.dims) - 1
            if off:
                return f"{name} + 1 < {n + off}"
            return rng.choice([f"{name} + 1 < {n}", f"{name} < {n - 1}", f"{name} + 1 < pl.num_programs({axis})",
                               f"jnp.logical_not({name} == {n - 1})"])
        if off:
            return f"s + 1 < {self.total + off}"
        below = [f"{n} < {d - 1}" for n, d in zip(self.names, self.dims)]
        return rng.choice([f"s + 1 < {self.total}", "s < TOTAL - 1", "jnp.logical_not(s == TOTAL - 1)",
                           " | ".join(f"({b})" for b in below), _nest("jnp.logical_or", below)])


def _nest(fn: str, terms: list[str]) -> str:
    out = terms[-1]
    for t in reversed(terms[:-1]):
        out = f"{fn}({t}, {out})"
    return out


@dataclass
class Part:
    scratch: list[tuple[str, str]] = field(default_factory=list)   # (parameter, scratch type)
    helpers: list[str] = field(default_factory=list)                # module-level code
    lines: list[str] = field(default_factory=list)                  # kernel body
    what: str = ""


def grid_pipeline(rng: random.Random, g: Grid, nslot: int, mistake: str) -> Part:
    """Prefetch the next step's block into the next slot, wait for this step's."""
    holder, dispatch = rng.choice(HOLDERS), rng.choice(DISPATCH)
    part = Part([("buf", f"pltpu.VMEM(({nslot}, R, C), jnp.float32)"), ("sems", f"pltpu.SemaphoreType.DMA(({nslot},))")])
    part.what = f"grid pipeline: {nslot} slots, fetch={holder}, start={dispatch}, restart={g.restart}"
    if holder in HELPERS:
        part.helpers.append("\n".join(dedent(HELPERS[holder])))
    lines = [*dedent(FETCH[holder]), *BRANCHES[dispatch], "slot = s % NSLOT"]
    prologue_start = start_lines(dispatch if rng.random() < 0.5 else "direct", "s", "slot", nslot)
    if mistake != "no-prologue":
        lines += guarded(rng, g.first(rng), prologue_start, "_prologue")
    off = rng.choice([-1, 1]) if mistake == "off-by-one" else 0
    cond = None if mistake == "unguarded-prefetch" else g.not_last(rng, off)
    lines += guarded(rng, cond, start_lines(dispatch, "s + 1", "(s + 1) % NSLOT", nslot), "_prefetch")
    if mistake != "drop-wait":
        lines += rng.choice([
            ["fetch(s, slot).wait()"],
            ["pltpu.make_async_copy(buf.at[slot], buf.at[slot], sems.at[slot]).wait()"],
            ["jax.lax.switch(slot, [lambda k=k: fetch(s, k).wait() for k in range(NSLOT)])"],
        ])
    lines.append("o_ref[...] = buf[slot] + 1.0")
    part.lines = lines
    return part


def loop_pipeline(rng: random.Random, mistake: str, first: bool, trips: int) -> Part:
    """Double-buffered chunks of this step's rows in a loop: prologue, prefetch of the
    next chunk (guarded), wait for this one."""
    form = rng.choice(LOOPS)
    part = Part([("lbuf", "pltpu.VMEM((2, R, C), jnp.float32)"), ("lsems", "pltpu.SemaphoreType.DMA((2,))")])
    part.what = f"loop pipeline: {form}, {trips} trips"
    lines = dedent('''
        base = s * K

        def lfetch(blk, slot):
            return pltpu.make_async_copy(x_hbm.at[pl.ds(blk * R, R)], lbuf.at[slot], lsems.at[slot])
        ''')
    if mistake != "no-prologue":
        lines.append("lfetch(base, 0).start()")
    n = "K" if mistake != "off-by-one" else rng.choice(["K - 1", "K + 1"])
    step = ["slot = k % 2"]
    step += guarded(rng, None if mistake == "unguarded-prefetch" else "k + 1 < K",
                    ["lfetch(base + k + 1, 1 - slot).start()"], "_next")
    if mistake != "drop-wait":
        step.append("lfetch(base + k, slot).wait()")
    store = "=" if first else "+="
    if form == "fori_loop":
        lines += ["def body(k, acc):", *indent(step), "    return acc + lbuf[slot]",
                  f"acc = jax.lax.fori_loop(0, {n}, body, jnp.zeros((R, C), jnp.float32))", f"o_ref[...] {store} acc"]
    elif form == "pl.loop":
        lines += ["o_ref[...] = jnp.zeros((R, C), jnp.float32)" if first else "",
                  f"@pl.loop(0, {n})", "def _(k):", *indent(step), "    o_ref[...] += lbuf[slot]"]
    else:
        lines += ["def body(carry):", "    k, acc = carry", *indent(step), "    return k + 1, acc + lbuf[slot]",
                  f"_, acc = jax.lax.while_loop(lambda c: c[0] < {n}, body, (0, jnp.zeros((R, C), jnp.float32)))",
                  f"o_ref[...] {store} acc"]
    part.lines = lines
    return part


def gather(rng: random.Random, mistake: str) -> Part:
    """Several copies into parts of one buffer on one semaphore, one wait for the whole."""
    m = rng.choice([2, 4])
    held = rng.choice(["list", "tuple", "dict", "loop"])
    part = Part([("gbuf", "pltpu.VMEM((R, C), jnp.float32)"), ("gsem", "pltpu.SemaphoreType.DMA")])
    part.what = f"gather: {m} copies, held in a {held}"
    n = f"{m} - 1" if mistake == "off-by-one" else str(m)
    copy = f"pltpu.make_async_copy(x_hbm.at[pl.ds(s * R + q * {8 // m}, {8 // m})], gbuf.at[pl.ds(q * {8 // m}, {8 // m})], gsem)"
    if held == "loop":
        lines = [f"for q in range({n}):", f"    {copy}.start()"]
    else:
        made = {"list": f"[{copy} for q in range({n})]", "tuple": f"tuple({copy} for q in range({n}))",
                "dict": f"{{q: {copy} for q in range({n})}}"}[held]
        items = "gcopies.values()" if held == "dict" else "gcopies"
        lines = [f"gcopies = {made}", *rng.choice([[f"for c in {items}:", "    c.start()"],
                                                   [f"jax.tree.map(lambda c: c.start(), list({items}))"]])]
    if mistake != "drop-wait":
        lines.append("pltpu.make_async_copy(x_hbm.at[pl.ds(s * R, R)], gbuf, gsem).wait()")
    lines.append("o_ref[...] += gbuf[...]")
    part.lines = lines
    return part


def signals(rng: random.Random, mistake: str) -> Part:
    """`n` signals of a REGULAR semaphore, waited for."""
    n = rng.choice([1, 2, 3])
    part = Part([("rsem", "pltpu.SemaphoreType.REGULAR")], what=f"signals: {n}")
    sig_n, wait_n = n, n
    if mistake == "off-by-one":
        if rng.random() < 0.5 or n == 1:
            sig_n, wait_n = (n + 1, n) if rng.random() < 0.5 else (n, n + 1)
        else:
            wait_n = n - 1
    lines = rng.choice([[f"pl.semaphore_signal(rsem, {sig_n})"],
                        [f"for t in range({sig_n}):", "    pl.semaphore_signal(rsem)"]])
    if mistake != "drop-wait":
        lines += rng.choice([[f"pl.semaphore_wait(rsem, {wait_n})"],
                             [f"for t in range({wait_n}):", "    pl.semaphore_wait(rsem, 1)"]])
    part.lines = lines
    return part


def scoped(rng: random.Random, mistake: str) -> Part:
    """A copy started and waited in a `pl.run_scoped` body."""
    style = rng.choice(["positional", "keyword", "decorator"])
    part = Part(what=f"run_scoped copy ({style})")
    body = ["c = pltpu.make_async_copy(x_hbm.at[pl.ds(s * R, R)], tmp, sem)", "c.start()"]
    if mistake != "drop-wait":
        body.append("c.wait()")
    body.append("o_ref[...] += tmp[...]")
    types = "pltpu.VMEM((R, C), jnp.float32), pltpu.SemaphoreType.DMA"
    if style == "decorator":
        part.lines = ["@functools.partial(pl.run_scoped, tmp=pltpu.VMEM((R, C), jnp.float32), "
                      "sem=pltpu.SemaphoreType.DMA(()))", "def _(tmp, sem):", *indent(body)]
    else:
        part.lines = ["def scoped(tmp, sem):", *indent(body)]
        part.lines.append(f"pl.run_scoped(scoped, {types})" if style == "positional" else
                          "pl.run_scoped(scoped, tmp=pltpu.VMEM((R, C), jnp.float32), sem=pltpu.SemaphoreType.DMA)")
    return part


EXTRAS = {"gather": (gather, ("drop-wait", "off-by-one")), "signals": (signals, ("drop-wait", "off-by-one")),
          "scoped": (scoped, ("drop-wait",))}
MAIN_TAKES = ("drop-wait", "no-prologue", "unguarded-prefetch", "off-by-one")


@dataclass(frozen=True)
class Kernel:
    seed: str
    family: str
    what: str        # the constructs drawn, and where the mistake is
    text: str


def _grid(rng: random.Random) -> tuple[int, ...]:
    while True:
        dims = tuple(rng.choice([1, 2, 2, 3, 4]) for _ in range(rng.choice([1, 1, 2, 2, 3])))
        total = 1
        for n in dims:
            total *= n
        if 2 <= total <= 8:
            return dims


def kernel(seed: str, family: str) -> Kernel:
    """The kernel of `seed`, correct or with one mistake of `family`."""
    rng = random.Random(seed)
    dims = _grid(rng)
    main_is_grid = rng.random() < 0.6
    g = Grid(dims, restart=len(dims) > 1 and rng.random() < 0.5)
    if dims[0] % 2 == 0 and (g.restart or not main_is_grid) and rng.random() < 0.3:
        g.cores = 2
    # JAX's interpreter sends a signal without `core_index` to core 0 (Mosaic: the local
    # core): on two cores, signal counts are left out.
    extras = rng.sample([e for e in sorted(EXTRAS) if g.cores == 1 or e != "signals"], rng.choice([0, 1, 1, 2]))
    at = "main"
    if family != "correct":
        spots = ["main", *(e for e in extras if family in EXTRAS[e][1])]
        at = rng.choice(spots)
    trips = rng.choice([2, 3]) if not main_is_grid else 1
    first_mistake = family if at == "main" else "correct"
    nslot = rng.choice([2, 3]) if main_is_grid else 2
    main = grid_pipeline(rng, g, nslot, first_mistake) if main_is_grid else loop_pipeline(rng, first_mistake, True, trips)
    parts = [main, *(EXTRAS[e][0](rng, family if at == e else "correct") for e in extras)]
    what = "; ".join(p.what for p in parts) + f"; grid {dims}, {g.cores} core(s)"
    if family != "correct":
        what += f"; the mistake in: {parts[0].what if at == 'main' else at}"
    return Kernel(seed, family, what, _module(seed, family, what, g, nslot, trips, parts))


def _module(seed: str, family: str, what: str, g: Grid, nslot: int, trips: int, parts: list[Part]) -> str:
    params = [name for p in parts for name, _ in p.scratch]
    types = [t for p in parts for _, t in p.scratch]
    helpers = "\n\n\n".join(h for p in parts for h in p.helpers)
    ids = ", ".join(g.names) + " = " + ", ".join(f"pl.program_id({a})" for a in range(len(g.dims)))
    body = [ids, f"s = {g.linear()}", *(ln for p in parts for ln in p.lines)]
    semantics = ", ".join(['"parallel"' if g.cores == 2 and a == 0 else '"arbitrary"' for a in range(len(g.dims))])
    cores = ", num_cores_or_threads=2" if g.cores == 2 else ""
    head = f'"""Protocol fuzz kernel {seed} ({family}): {what}."""'
    return "\n".join([
        head, "", "import dataclasses", "import functools", "", "import jax", "import jax.numpy as jnp",
        "from jax.experimental import pallas as pl", "from jax.experimental.pallas import tpu as pltpu", "",
        "R, C = 8, 128", f"GRID = {g.dims!r}", f"TOTAL = {g.total}", f"NSLOT = {nslot}", f"K = {trips}", "", "",
        *([helpers, "", ""] if helpers else []),
        f"def kernel(x_hbm, o_ref, {', '.join(params)}):", *indent(body), "", "",
        "def run(x):", "    return pl.pallas_call(", "        kernel,",
        "        out_shape=jax.ShapeDtypeStruct((TOTAL * R, C), jnp.float32),",
        "        grid=GRID,", "        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],",
        f"        out_specs=pl.BlockSpec((R, C), lambda {', '.join(g.names)}: ({g.linear()}, 0)),",
        f"        scratch_shapes=[{', '.join(types)}],",
        f"        compiler_params=pltpu.CompilerParams(dimension_semantics=({semantics},)),",
        f'        interpret=pltpu.InterpretParams(dma_execution_mode="eager"{cores}),', "    )(x)", "", "",
        "def jax_check():", "    return run(jnp.ones((TOTAL * K * R, C), jnp.float32))", ""])
