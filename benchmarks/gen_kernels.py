#!/usr/bin/env python3
"""Seeded generator of synthetic Pallas TPU kernel files for the benchmarks.

Each file is a module of realistic-looking kernels (double buffering,
copy/compute, matmul, scalar-prefetch gather, row reduction, semaphore
handshakes, run_scoped copies, plain helpers).  A fraction of the kernels
that use semaphores carry one deliberate mistake: a whole semaphore array
passed where JAX needs a single semaphore.  Every mistake is listed, with
its 1-based line and the rule code pallas-lsp must report there, in a
``<file>.meta.json`` written beside the file.

The files parse but are not meant to run.  Standard library only.

    python benchmarks/gen_kernels.py --lines 300 3000 20000 --out-dir benchmarks/.bench
"""

import argparse
import ast
import json
import random
import re
from pathlib import Path

MARK_RE = re.compile(r"@@(PAL\d{3})@@")


def mark(bad, code="PAL001"):
    """Marker placed on the line of a deliberate mistake (removed on output)."""
    return f"@@{code}@@" if bad else ""


def _t_double_buffer(k, r, bad):
    bm, bn = r.choice([8, 16, 32, 64]), r.choice([128, 256, 512])
    scale = r.choice(["0.5", "2.0", "scale"])
    sem = "sem" if bad else "sem.at[slot]"
    extra = ", scale=1.0" if scale == "scale" else ""
    return f'''
def double_buffer_kernel_{k}(x_hbm_ref, o_ref, buf_ref, sem, *, n_blocks{extra}):
    """Stream row blocks of x through a two-slot VMEM buffer."""

    def copy_in(i, slot):
        return pltpu.make_async_copy(
            x_hbm_ref.at[pl.ds(i * {bm}, {bm})],
            buf_ref.at[slot],
            {sem},{mark(bad)}
        )

    copy_in(0, 0).start()

    def body(i, acc):
        slot = i % 2

        @pl.when(i + 1 < n_blocks)
        def _prefetch():
            copy_in(i + 1, 1 - slot).start()

        copy_in(i, slot).wait()
        block = buf_ref[slot].astype(jnp.float32)
        return acc + jnp.sum(block * {scale}, axis=0, keepdims=True)

    init = jnp.zeros((1, {bn}), jnp.float32)
    acc = jax.lax.fori_loop(0, n_blocks, body, init)
    o_ref[...] = acc.astype(o_ref.dtype)


def double_buffer_{k}(x):
    n_blocks = x.shape[0] // {bm}
    return pl.pallas_call(
        functools.partial(double_buffer_kernel_{k}, n_blocks=n_blocks),
        out_shape=jax.ShapeDtypeStruct((1, {bn}), x.dtype),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pltpu.VMEM),
        scratch_shapes=[
            pltpu.VMEM((2, {bm}, {bn}), x.dtype),
            pltpu.SemaphoreType.DMA((2,)),
        ],
    )(x)
'''


def _t_copy_compute(k, r, bad):
    rows, cols = r.choice([64, 128, 256]), r.choice([128, 256])
    op = r.choice(["jnp.tanh(x)", "jnp.maximum(x, 0.0)", "x * jax.nn.sigmoid(x)",
                   "jnp.exp(x - jnp.max(x, axis=-1, keepdims=True))"])
    sem_in = "sems" if bad else "sems.at[0]"
    return f'''
def copy_compute_kernel_{k}(x_hbm_ref, o_hbm_ref, x_vmem, o_vmem, sems):
    idx = pl.program_id(0)
    rows = pl.ds(idx * {rows}, {rows})
    in_copy = pltpu.make_async_copy(x_hbm_ref.at[rows], x_vmem, {sem_in}){mark(bad)}
    in_copy.start()
    in_copy.wait()
    x = x_vmem[...].astype(jnp.float32)
    y = {op}
    o_vmem[...] = y.astype(o_vmem.dtype)
    out_copy = pltpu.make_async_copy(o_vmem, o_hbm_ref.at[rows], sems.at[1])
    out_copy.start()
    out_copy.wait()


def copy_compute_{k}(x):
    grid = (x.shape[0] // {rows},)
    return pl.pallas_call(
        copy_compute_kernel_{k},
        grid=grid,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pl.ANY),
        scratch_shapes=[
            pltpu.VMEM(({rows}, {cols}), x.dtype),
            pltpu.VMEM(({rows}, {cols}), x.dtype),
            pltpu.SemaphoreType.DMA((2,)),
        ],
    )(x)
'''


def _t_matmul(k, r, bad):
    bm, bn, bk = r.choice([128, 256]), r.choice([128, 256]), r.choice([128, 256, 512])
    return f'''
def matmul_kernel_{k}(a_ref, b_ref, o_ref, acc_ref, *, n_k):
    @pl.when(pl.program_id(2) == 0)
    def _init():
        acc_ref[...] = jnp.zeros_like(acc_ref)

    acc_ref[...] += jnp.dot(
        a_ref[...], b_ref[...], preferred_element_type=jnp.float32
    )

    @pl.when(pl.program_id(2) == n_k - 1)
    def _store():
        o_ref[...] = acc_ref[...].astype(o_ref.dtype)


def matmul_{k}(a, b, bm={bm}, bn={bn}, bk={bk}):
    m, kdim = a.shape
    _, n = b.shape
    n_k = kdim // bk
    return pl.pallas_call(
        functools.partial(matmul_kernel_{k}, n_k=n_k),
        grid=(m // bm, n // bn, n_k),
        in_specs=[
            pl.BlockSpec((bm, bk), lambda i, j, kk: (i, kk)),
            pl.BlockSpec((bk, bn), lambda i, j, kk: (kk, j)),
        ],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j, kk: (i, j)),
        out_shape=jax.ShapeDtypeStruct((m, n), a.dtype),
        scratch_shapes=[pltpu.VMEM((bm, bn), jnp.float32)],
        compiler_params=pltpu.CompilerParams(
            dimension_semantics=("parallel", "parallel", "arbitrary")
        ),
    )(a, b)
'''


def _t_gather(k, r, bad):
    chunks, chunk = r.choice([2, 4, 8]), r.choice([8, 16, 32])
    sem = "sem" if bad else "sem.at[c]"
    return f'''
NUM_CHUNKS_{k} = {chunks}


def gather_rows_kernel_{k}(idx_ref, table_hbm, o_ref, rows_vmem, sem):
    """Gather rows of an HBM table chosen by scalar-prefetched indices."""
    base = pl.program_id(0) * {chunk}
    for c in range(NUM_CHUNKS_{k}):
        row = idx_ref[base + c]
        pltpu.make_async_copy(
            table_hbm.at[pl.ds(row, 1)],
            rows_vmem.at[pl.ds(c, 1)],
            {sem},{mark(bad)}
        ).start()
    for c in range(NUM_CHUNKS_{k}):
        pltpu.make_async_copy(
            table_hbm.at[pl.ds(0, 1)],
            rows_vmem.at[pl.ds(c, 1)],
            sem.at[c],
        ).wait()
    o_ref[...] = rows_vmem[...]


def gather_rows_{k}(idx, table):
    grid_spec = pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=1,
        grid=(idx.shape[0] // {chunk},),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec((NUM_CHUNKS_{k}, table.shape[1]), lambda i, idx_ref: (i, 0)),
        scratch_shapes=[
            pltpu.VMEM((NUM_CHUNKS_{k}, table.shape[1]), table.dtype),
            pltpu.SemaphoreType.DMA((NUM_CHUNKS_{k},)),
        ],
    )
    return pl.pallas_call(
        gather_rows_kernel_{k},
        grid_spec=grid_spec,
        out_shape=jax.ShapeDtypeStruct((idx.shape[0], table.shape[1]), table.dtype),
    )(idx, table)
'''


def _t_helpers(k, r, bad):
    m = r.choice([8, 128])
    return f'''
def _round_up_{k}(x, m={m}):
    return (x + m - 1) // m * m


def _pad_rows_{k}(x, multiple={m}):
    pad = _round_up_{k}(x.shape[0], multiple) - x.shape[0]
    if pad == 0:
        return x
    return jnp.pad(x, ((0, pad), (0, 0)))


def _block_shape_{k}(shape, max_rows=512):
    rows = min(shape[0], max_rows)
    while shape[0] % rows:
        rows //= 2
    return (rows, shape[1])
'''


def _t_reduce(k, r, bad):
    bm = r.choice([64, 128, 256])
    sem = "sem" if bad else "sem.at[slot]"
    return f'''
def row_sum_kernel_{k}(x_hbm_ref, o_ref, buf, acc_ref, sem, *, n_steps):
    acc_ref[...] = jnp.zeros_like(acc_ref)

    def fetch(step, slot):
        src = x_hbm_ref.at[pl.ds(step * {bm}, {bm})]
        return pltpu.make_async_copy(src, buf.at[slot], {sem}){mark(bad)}

    fetch(0, 0).start()
    for step in range(n_steps):
        slot = step % 2
        if step + 1 < n_steps:
            fetch(step + 1, 1 - slot).start()
        fetch(step, slot).wait()
        acc_ref[...] += jnp.sum(buf[slot].astype(jnp.float32), axis=0, keepdims=True)
    o_ref[...] = acc_ref[...]


def row_sum_{k}(x):
    n_steps = x.shape[0] // {bm}
    return pl.pallas_call(
        functools.partial(row_sum_kernel_{k}, n_steps=n_steps),
        out_shape=jax.ShapeDtypeStruct((1, x.shape[1]), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        scratch_shapes=[
            pltpu.VMEM((2, {bm}, x.shape[1]), x.dtype),
            pltpu.VMEM((1, x.shape[1]), jnp.float32),
            pltpu.SemaphoreType.DMA((2,)),
        ],
    )(x)
'''


def _t_handshake(k, r, bad):
    n_rounds = r.choice([2, 4, 8])
    sig = "flags" if bad else "flags.at[slot]"
    return f'''
def handshake_kernel_{k}(x_ref, o_ref, flags, *, n_rounds):
    """Ping-pong on a pair of REGULAR semaphores, one per slot."""
    for step in range(n_rounds):
        slot = step % 2
        pl.semaphore_signal({sig}, 1){mark(bad, "PAL002")}
        pl.semaphore_wait(flags.at[slot], 1)
    o_ref[...] = x_ref[...] + n_rounds


def handshake_{k}(x):
    return pl.pallas_call(
        functools.partial(handshake_kernel_{k}, n_rounds={n_rounds}),
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        scratch_shapes=[pltpu.SemaphoreType.REGULAR((2,))],
    )(x)
'''


def _t_scoped(k, r, bad):
    rows, cols = r.choice([8, 16, 64]), r.choice([128, 256])
    read = "sems" if bad else "sems.at[0]"
    return f'''
def scoped_copy_kernel_{k}(x_hbm_ref, o_ref):
    """Copy one block through a run_scoped buffer and report pending DMAs."""

    def body(buf, sems):
        copy = pltpu.make_async_copy(x_hbm_ref.at[pl.ds(0, {rows})], buf, sems.at[0])
        copy.start()
        pending = pl.semaphore_read({read}){mark(bad, "PAL003")}
        copy.wait()
        o_ref[...] = buf[...] + pending.astype(buf.dtype)

    pl.run_scoped(
        body,
        pltpu.VMEM(({rows}, {cols}), jnp.float32),
        pltpu.SemaphoreType.DMA((2,)),
    )


def scoped_copy_{k}(x):
    return pl.pallas_call(
        scoped_copy_kernel_{k},
        out_shape=jax.ShapeDtypeStruct(({rows}, {cols}), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
    )(x)
'''


# (template, uses semaphores)
TEMPLATES = [(_t_double_buffer, True), (_t_copy_compute, True), (_t_matmul, False),
             (_t_gather, True), (_t_helpers, False), (_t_reduce, True),
             (_t_handshake, True), (_t_scoped, True)]

HEADER = '''"""Synthetic Pallas TPU kernels (generated by benchmarks/gen_kernels.py, seed={seed}).

Not meant to run: realistic-looking input for language-server benchmarks.
"""
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

LANES = 128
SUBLANES = 8
'''


def generate(n_lines, seed=0, mistake_rate=0.12):
    """Return ``(text, mistakes)`` for a module of exactly ``n_lines`` lines.

    ``mistakes`` lists dicts with ``line`` (1-based), ``code`` (the rule
    pallas-lsp must report), ``kernel_index``, ``template`` and ``text``.
    The second semaphore-using kernel is always broken, so every file of a
    useful size has at least one mistake.
    """
    if n_lines < 1:
        raise ValueError(f"n_lines must be positive, got {n_lines}")
    r = random.Random(seed)
    lines = HEADER.format(seed=seed).rstrip("\n").split("\n")
    mistakes = []
    k = 0
    sem_blocks = 0
    while True:
        fn, uses_sems = r.choice(TEMPLATES)
        bad = False
        if uses_sems:
            sem_blocks += 1
            bad = r.random() < mistake_rate or (sem_blocks == 2 and not mistakes)
        block = [""] + fn(k, r, bad).rstrip("\n").split("\n")
        if len(lines) + len(block) > n_lines:
            break
        for j, line in enumerate(block):
            m = MARK_RE.search(line)
            if m:
                block[j] = MARK_RE.sub("", line)
                mistakes.append({"line": len(lines) + j + 1, "code": m.group(1),
                                 "kernel_index": k, "template": fn.__name__[3:],
                                 "text": block[j].strip()})
        lines.extend(block)
        k += 1
    del lines[n_lines:]
    i = 0
    while len(lines) < n_lines:  # pad to the exact size with module constants
        lines.append(f"TILE_{i} = ({8 * (1 + i % 4)}, {128 * (1 + i % 2)})")
        i += 1
    return "\n".join(lines) + "\n", mistakes


def write_kernel_file(path, n_lines, seed=0):
    """Write the file and its ``.meta.json``; return the meta dict."""
    text, mistakes = generate(n_lines, seed)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    meta = {"lines": text.count("\n"), "seed": seed, "generator": "benchmarks/gen_kernels.py",
            "deliberate_mistakes": mistakes}
    Path(str(path) + ".meta.json").write_text(json.dumps(meta, indent=1))
    return meta


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--lines", type=int, nargs="+", default=[300, 3000, 20000])
    p.add_argument("--out-dir", default=str(Path(__file__).resolve().parent / ".bench"))
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    for n in a.lines:
        if n < 1:
            p.error(f"--lines must be positive, got {n}")
        out = Path(a.out_dir) / f"kernels_{n}.py"
        meta = write_kernel_file(out, n, a.seed)
        try:
            ast.parse(out.read_text())
            ok = "parses"
        except SyntaxError as e:
            ok = f"SYNTAX ERROR {e}"
        codes = sorted({m["code"] for m in meta["deliberate_mistakes"]})
        print(f"wrote {out}: {meta['lines']} lines, {len(meta['deliberate_mistakes'])} deliberate "
              f"mistakes {codes} (listed in {out}.meta.json), {ok}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
