"""Random small kernels, each traced by JAX: the analyzer's verdict must equal JAX's.

Each kernel declares one semaphore of a random kind and shape ((), (1,), (2,), (2, 3),
(3, 2), (2, 2, 2)), views it through a random chain of `.at[...]` indices (ints, traced
ints, slices, `pl.ds`, `:`, `...`), and hands it to a DMA start or a signal/wait through a
random route (direct, helper function, closure, variable, tuple unpacking, accessor,
`run_scoped`, an object's method, a Python loop, next to a dead branch, a helper chain, or a chain of `.at` split between a caller
and a helper), with the scratch laid out as a list, a dict (keyword
parameters), a nested tuple, or after a scalar-prefetch operand. JAX (CPU, interpret mode) raises `non-()-shaped semaphore` or not; the
analyzer must report PAL001/PAL002 exactly then. Kernels JAX rejects for another reason
are counted, not compared.

Usage (needs jax; ~1 s per kernel on 2 cores):

    .venv/bin/python tests/analysis/jax_random_kernels.py COUNT SEED [--keep DIR] [-v]
"""
import logging
import os
import random
import re
import sys
import tempfile
import warnings

from pallas_lsp.analysis.engine import analyze_source

os.environ.setdefault("JAX_PLATFORMS", "cpu")

SHAPES = [(), (1,), (2,), (2, 3), (3, 2), (2, 2, 2)]

def rand_index(rng, shape):
    """A chain of .at[...] and the resulting shape (None if invalid)."""
    text, cur = "", list(shape)
    for _ in range(rng.choice([0, 1, 1, 2])):
        if not cur:
            break
        n = rng.randint(1, len(cur))
        parts, out, pos = [], [], 0
        use_ell = rng.random() < 0.2 and n < len(cur)
        ell_at = rng.randint(0, n) if use_ell else None
        explicit = n
        for k in range(n + (1 if use_ell else 0)):
            if use_ell and k == ell_at:
                parts.append("...")
                span = len(cur) - explicit
                out.extend(cur[pos:pos + span]); pos += span
                continue
            d = cur[pos]
            kind = rng.choice(["int", "int", "traced", "slice", "ds", "full", "ds1"])
            if kind == "int":
                parts.append(str(rng.randrange(d)))
            elif kind == "traced":
                parts.append(f"pl.program_id(0) % {d}")
            elif kind == "slice":
                a = rng.randrange(d); b = rng.randint(a + 1, d)
                parts.append(f"{a}:{b}"); out.append(b - a)
            elif kind == "ds":
                a = rng.randrange(d); sz = rng.randint(1, d - a)
                parts.append(f"pl.ds({a}, {sz})"); out.append(sz)
            elif kind == "ds1":
                parts.append(f"pl.ds(pl.program_id(0) % {d}, 1)"); out.append(1)
            else:
                parts.append(":"); out.append(d)
            pos += 1
        out.extend(cur[pos:])
        text += ".at[" + ", ".join(parts) + "]"
        cur = out
    return text, tuple(cur)

def program(rng):
    kind = rng.choice(["DMA", "DMA", "REGULAR"])
    shape = rng.choice(SHAPES)
    decl = f"pltpu.SemaphoreType.{kind}" if shape == () and rng.random() < 0.5 else f"pltpu.SemaphoreType.{kind}({shape!r})"
    idx, final = rand_index(rng, shape)
    expr = "sem" + idx
    route = rng.choice(["direct", "helper", "closure", "var", "tuple", "accessor", "run_scoped", "class", "split",
                        "chain", "loop", "dead_branch"])
    layout = rng.choice(["list", "dict", "nested", "prefetch"])
    if kind == "DMA":
        call = rng.choice(["pltpu.async_copy(x_hbm, o_ref, {e}).wait()", "pltpu.make_async_copy(x_hbm, o_ref, {e}).start()",
                           "cp = pltpu.make_async_copy(x_hbm, o_ref, sem={e})\n    cp.start()\n    cp.wait()"])
    else:
        call = rng.choice(["pl.semaphore_signal({e})", "pl.semaphore_signal({e}, 1)\n    pl.semaphore_wait({e}, 1)"])
    helper = ""
    body = ""
    if route == "direct":
        body = "    " + call.format(e=expr)
    elif route == "helper":
        helper = "def use(x_hbm, o_ref, s):\n    " + call.format(e="s") + "\n"
        body = f"    use(x_hbm, o_ref, {expr})"
    elif route == "closure":
        body = "    def go():\n        " + call.format(e=expr).replace("\n    ", "\n        ") + "\n    go()"
    elif route == "var":
        body = f"    v = {expr}\n    " + call.format(e="v")
    elif route == "tuple":
        body = f"    pair = (other, {expr})\n    a, b = pair\n    " + call.format(e="b")
    elif route == "accessor":
        body = f"    def get():\n        return {expr}\n    " + call.format(e="get()")
    elif route == "split":
        # the caller applies the first `.at[...]`s, the helper the rest
        cut = rng.choice([m.start() for m in re.finditer(r"\.at\[", idx)] + [len(idx)])
        helper = "def use(x_hbm, o_ref, s):\n    " + call.format(e="s" + idx[cut:]) + "\n"
        body = f"    use(x_hbm, o_ref, sem{idx[:cut]})"
    elif route == "chain":
        helper = ("def use(x_hbm, o_ref, s):\n    " + call.format(e="s") + "\n"
                  "def outer(x_hbm, o_ref, s):\n    use(x_hbm, o_ref, s)\n")
        body = f"    outer(x_hbm, o_ref, {expr})"
    elif route == "loop":
        body = "    for k in range(2):\n        " + call.format(e=expr).replace("\n    ", "\n        ")
    elif route == "dead_branch":
        cond = rng.choice(["LIMIT < 0", "LIMIT == 0", "not LIMIT", "LIMIT is None", "len(MODES) > 3"])
        dead = "pl.semaphore_wait(sem)" if kind == "REGULAR" else "pltpu.async_copy(x_hbm, o_ref, sem).wait()"
        helper = "LIMIT = 1\nMODES = ('a', 'b')\n"
        body = f"    if {cond}:\n        {dead}\n    " + call.format(e=expr)
    elif route == "class":
        helper = ("class Holder:\n    def __init__(self, x_hbm, o_ref, s):\n        self.x_hbm, self.o_ref, self.s = x_hbm, o_ref, s\n"
                  "    def go(self):\n        x_hbm, o_ref = self.x_hbm, self.o_ref\n        "
                  + call.format(e="self.s").replace("\n    ", "\n        ") + "\n")
        body = f"    Holder(x_hbm, o_ref, {expr}).go()"
    other = f"pltpu.SemaphoreType.{kind}"
    operands, call_kw = "x", ""
    if layout == "dict":
        scratch, kparams = f"dict(other={other}, sem={decl})", "x_hbm, o_ref, *, sem, other"
    elif layout == "nested":
        scratch, kparams = f"[({other}, {decl})]", "x_hbm, o_ref, pair"
        body = "    other, sem = pair\n" + body
    elif layout == "prefetch":
        scratch, kparams = f"[{decl}, {other}]", "idx_ref, x_hbm, o_ref, sem, other"
        operands = "jnp.zeros((1,), jnp.int32), x"
    else:
        scratch, kparams = f"[{decl}, {other}]", "x_hbm, o_ref, sem, other"
    if route == "run_scoped":
        body = ("    def scoped(sem, other):\n        " + call.format(e=expr).replace("\n    ", "\n        ")
                + f"\n    pl.run_scoped(scoped, {decl}, pltpu.SemaphoreType.{kind})")
        kparams, scratch, layout, operands = "x_hbm, o_ref", "[]", "list", "x"
    if layout == "prefetch":
        call_kw = (f"grid_spec=pltpu.PrefetchScalarGridSpec(num_scalar_prefetch=1, grid=(1,), "
                   f"in_specs=[pl.BlockSpec(memory_space=pl.ANY)], out_specs=pl.BlockSpec(memory_space=pl.ANY), "
                   f"scratch_shapes={scratch})")
    else:
        call_kw = (f"grid=(1,), in_specs=[pl.BlockSpec(memory_space=pl.ANY)], "
                   f"out_specs=pl.BlockSpec(memory_space=pl.ANY), scratch_shapes={scratch}")
    src = f"""import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

OUT = jax.ShapeDtypeStruct((8, 128), jnp.float32)
{helper}
def kernel({kparams}):
{body}

def run(x):
    return pl.pallas_call(kernel, out_shape=OUT, {call_kw}, interpret=True)({operands})
"""
    return src, final

def main(n, seed, folder):
    import jax
    import jax.numpy as jnp

    warnings.simplefilter("ignore")
    logging.disable(logging.CRITICAL)
    rng = random.Random(seed)
    X = jnp.zeros((8, 128), jnp.float32)
    stats = {"agree": 0, "disagree": 0, "other": 0}
    for i in range(n):
        src, final = program(rng)
        ours = [f for f in analyze_source(src) if f.code in ("PAL001", "PAL002")]
        ns = {"__name__": f"g{i}"}
        fn = os.path.join(folder, f"kernel_{seed}_{i}.py")
        with open(fn, "w", encoding="utf-8") as fh:
            fh.write(src)
        try:
            exec(compile(src, fn, "exec"), ns)  # noqa: S102 - generated test kernels
            jax.block_until_ready(ns["run"](X))
            jv = "ok"
        except Exception as e:  # noqa: BLE001 - every failure is a verdict to classify
            msg = str(e).splitlines()[0] if str(e) else type(e).__name__
            jv = "ERROR" if "non-()-shaped" in msg else "other: " + msg[:100]
        if jv.startswith("other"):
            stats["other"] += 1
            if "-v" in sys.argv:
                print("OTHER", fn, jv)
            continue
        agree = (jv == "ERROR") == bool(ours)
        stats["agree" if agree else "disagree"] += 1
        if not agree:
            print("DISAGREE", fn, "jax:", jv, "ours:", [(f.span.line + 1, f.code, f.shape) for f in ours], "expected final", final)
    print(stats)
    return 1 if stats["disagree"] else 0


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("-")]
    keep = sys.argv[sys.argv.index("--keep") + 1] if "--keep" in sys.argv else None
    if keep:
        args.remove(keep)
    folder = keep or tempfile.mkdtemp(prefix="pallas-random-kernels-")
    os.makedirs(folder, exist_ok=True)
    sys.exit(main(int(args[0]) if args else 100, int(args[1]) if len(args) > 1 else 0, folder))
