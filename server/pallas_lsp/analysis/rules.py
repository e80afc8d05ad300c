"""The rule table: every code the analysis can report, in one place."""

from __future__ import annotations

from .records import record



JAX_SEMAPHORE_DOC = "https://docs.jax.dev/en/latest/pallas/tpu/distributed.html"
JAX_GRID_DOC = "https://docs.jax.dev/en/latest/pallas/grid_blockspec.html"
JAX_TPU_DOC = "https://docs.jax.dev/en/latest/pallas/tpu/details.html"
JAX_MATMUL_DOC = "https://docs.jax.dev/en/latest/pallas/tpu/matmul.html"
JAX_SHAPES_DOC = "https://docs.jax.dev/en/latest/_autosummary/jax.numpy.broadcast_shapes.html"
JAX_REF_DOC = "https://docs.jax.dev/en/latest/pallas/quickstart.html"
JAX_LOOP_DOC = "https://docs.jax.dev/en/latest/_autosummary/jax.lax.fori_loop.html"
PYTHON_ENCODING_DOC = "https://docs.python.org/3/reference/lexical_analysis.html#encoding-declarations"
PYTHON_SYNTAX_DOC = "https://docs.python.org/3/library/exceptions.html#SyntaxError"
# PAL302-PAL304: how sure a finding is.
_CERTAINTY = ("An error where every path is known (a static grid, loops with static bounds, conditions the "
              "analysis decides); a warning where it pairs starts and waits by semaphore without following every "
              "path (nothing anywhere in the kernel waits on, or signals, that semaphore).")


@record
class Rule:
    code: str
    name: str
    severity: str   # default severity: "error" or "warning"
    summary: str
    doc_url: str


RULES: dict[str, Rule] = {
    r.code: r
    for r in (
        Rule(
            "PAL001",
            "dma-nonscalar-semaphore",
            "error",
            "A DMA start (`.start()`, `async_copy`, `async_remote_copy`) is given a semaphore "
            "array instead of one semaphore; JAX raises `Cannot signal on a non-()-shaped "
            "semaphore` when the kernel is traced.",
            JAX_SEMAPHORE_DOC,
        ),
        Rule(
            "PAL002",
            "signal-wait-nonscalar-semaphore",
            "error",
            "`semaphore_signal` / `semaphore_wait` / `core_barrier` is given a semaphore array; "
            "JAX raises `Cannot signal (wait) on a non-()-shaped semaphore` when traced.",
            JAX_SEMAPHORE_DOC,
        ),
        Rule(
            "PAL003",
            "wait-read-nonscalar-semaphore",
            "warning",
            "A DMA `.wait()` / `.wait_recv()` / `.wait_send()` or `semaphore_read` uses a "
            "semaphore array. JAX does not check this at trace time, but the kernel is wrong "
            "(it crashes or misbehaves at run time).",
            JAX_SEMAPHORE_DOC,
        ),
        Rule("PAL101", "kernel-arity", "error",
             "The kernel's positional parameters do not match the refs `pallas_call` passes "
             "(`*scalar_prefetch, *inputs, *outputs, *scratch`; a tuple/list `out_shape` gives one per "
             "element, a dict ONE). JAX raises a raw `TypeError` when it traces the kernel.", JAX_GRID_DOC),
        Rule("PAL102", "index-map-arity", "error",
             "An `index_map` takes a different number of arguments than the grid has axes (plus one per "
             "scalar-prefetch ref). JAX raises a `TypeError` when it traces the call.", JAX_GRID_DOC),
        Rule("PAL103", "index-map-result", "error",
             "An `index_map` returns a different number of block indices than `block_shape` has dimensions "
             "(`Index map function ... must return N values to match block_shape=...`).", JAX_GRID_DOC),
        Rule("PAL104", "block-rank", "error",
             "A `block_shape` has a different rank than its array (`Block shape for ... must have the same "
             "number of dimensions as the array shape ...`).", JAX_GRID_DOC),
        Rule("PAL105", "spec-structure", "error",
             "`out_specs` does not have the structure of `out_shape`, or `in_specs` does not have one spec per "
             "input (`Pytree for `out_specs` and `out_shape` do not match`).", JAX_GRID_DOC),
        Rule("PAL106", "dimension-semantics-length", "error",
             "`dimension_semantics` does not have one entry per grid axis (`Length of grid does not match "
             "length of dimension semantics`, raised by the TPU lowering).", JAX_TPU_DOC),
        Rule("PAL107", "grid-axis-out-of-bounds", "error",
             "`pl.program_id(axis)` / `pl.num_programs(axis)` names an axis the grid does not have (`Axis a is "
             "out of bounds for grid g`).", JAX_GRID_DOC),
        Rule("PAL301", "semaphore-kind", "error",
             "A semaphore of the wrong kind: a DMA semaphore given to `pl.semaphore_signal` / `semaphore_wait` "
             "(`Must signal semaphores of the following types: ... Got dma_sem.`), or a REGULAR / BARRIER one "
             "waited by a DMA's `.wait()` (`dma_wait requires a DMA semaphore, but got a regular semaphore`). "
             "JAX raises when it traces the kernel for TPU.", JAX_SEMAPHORE_DOC),
        Rule("PAL302", "dma-never-waited", "error",
             "A DMA is started and never waited: counted over every grid step and loop iteration, a copy is "
             "still in flight when the kernel ends (JAX's TPU interpreter: `Semaphore ... has non-zero count ... "
             "at kernel exit`), and the kernel may use the buffer before it lands. " + _CERTAINTY,
             JAX_SEMAPHORE_DOC),
        Rule("PAL303", "wait-hangs", "error",
             "A wait takes more than was started or signalled before it: the wait hangs. A DMA's `.wait()` "
             "with no copy in flight (for instance, a copy each step prefetches for the next, with no first-step "
             "prologue), or `pl.semaphore_wait(sem, n)` with fewer than `n` signals. " + _CERTAINTY,
             JAX_SEMAPHORE_DOC),
        Rule("PAL304", "signal-never-waited", "error",
             "`pl.semaphore_signal` counts that no `pl.semaphore_wait` takes: the kernel ends with a non-zero "
             "semaphore (JAX's TPU interpreter: `Semaphore ... has non-zero count ... at kernel exit`). "
             + _CERTAINTY, JAX_SEMAPHORE_DOC),
        Rule("PAL305", "dma-shape-mismatch", "error",
             "A DMA whose source and destination differ in element type or shape where both are known (scratch "
             "buffers, blocks, `out_shape`, static `.at[...]` views): Mosaic's verifier rejects it when it compiles "
             "the kernel for a TPU (`DMA source and target element type mismatch` / `DMA source and target shape "
             "mismatch.`).", JAX_SEMAPHORE_DOC),
        Rule("PAL306", "output-revisited", "error",
             "An output's `index_map` ignores a grid axis marked \"parallel\" (cores race on the block), or "
             "ignores an axis that comes before one it uses (the grid comes back to a block: JAX's TPU interpreter "
             "raises `Revisited block ... of output ...`). A reduction axis must be \"arbitrary\" and last.",
             JAX_GRID_DOC),
        Rule("PAL201", "block-tiling", "error",
             "A block's last two dimensions are neither divisible by 8 and 128 nor equal to the array's "
             "(`The Pallas TPU lowering currently requires that the last two dimensions of your block shape are "
             "divisible by 8 and 128 respectively, or be equal to the respective dimensions of the overall "
             "array`).", JAX_TPU_DOC),
        Rule("PAL202", "block-tiling-rank1", "error",
             "A rank-1 block is neither the whole array, a multiple of 1024, nor a power of 2 of at least "
             "128 * (32 // bitwidth) (the TPU lowering's rule for rank-1 blocks).", JAX_TPU_DOC),
        # Kernel bodies: stores and array operations, where every shape and dtype involved is known.
        Rule("PAL401", "store-dtype", "error",
             "A value of another dtype stored into an array ref (`o_ref[...] = acc` with an f32 `acc` and a bf16 "
             "`o_ref`; a `+=` whose sum promotes). `=` converts only a Python float into a float ref and any "
             "integer into an integer ref; JAX raises ``Invalid dtype for `swap`. Ref dtype: bfloat16. Value "
             "dtype: float32.`` when it traces the kernel. Safe fix: `.astype(o_ref.dtype)` on the stored value (on "
             "the operand of `+=`, `-=`, `*=`). Stage: trace.", JAX_REF_DOC),
        Rule("PAL402", "store-shape", "error",
             "A value of another shape stored into an array ref or its indexed part: a store never broadcasts, "
             "not even a scalar (`+=` does: the add comes first). JAX raises ``Invalid shape for `swap`. Ref "
             "shape: ... Expected shape: ... Value shape: ...`` when it traces the kernel.", JAX_REF_DOC),
        Rule("PAL403", "dot-contracting-mismatch", "error",
             "`jnp.dot` / `jnp.matmul` / `@` / `lax.dot_general` / `pl.dot` whose contracting dimensions differ "
             "(`dot_general requires contracting dimensions to have the same shape, got (128,) and (256,).`), "
             "often a missing or misplaced `.T`. Stage: trace.", JAX_MATMUL_DOC),
        Rule("PAL404", "matmul-accumulator", "error",
             "A 2-D or batched 3-D matmul in a kernel (`jnp.dot` / `matmul` / `@` / `lax.dot_general`, an "
             "`einsum` that contracts) whose result is bf16, int8, int4 or fp8 (narrow operands without "
             "`preferred_element_type`): Mosaic needs a 32-bit accumulator (`'tpu.matmul' op Expected matmul acc "
             "to be 32-bit`). `pl.dot` always accumulates in 32 bits. Fix: `preferred_element_type=jnp.float32` "
             "(`jnp.int32` for integers; `a @ b` becomes `jnp.matmul`), safe where every use of the result takes "
             "the 32-bit value (an `.astype(...)`, a store or `+=` into an f32 accumulator ref); elsewhere the safe "
             "fix casts it back (`....astype(jnp.bfloat16)`: nothing after it changes) and the plain one is a "
             "choice, unless a use is known to break (a store into a bf16 ref). Stage: TPU lowering.",
             JAX_MATMUL_DOC),
        Rule("PAL405", "shape-mismatch", "error",
             "Another operation JAX rejects where shapes and dtypes are known: elementwise operands that do not "
             "broadcast (`Incompatible shapes for broadcasting: ...`), a reduction axis the array does not have "
             "(`axis 2 is out of bounds for array of dimension 2`), a reshape to another size, a concatenate of "
             "different ranks, an `einsum` label of two sizes (`Size of label 'h' for operand 1 (2) does not match "
             "previous terms (8).`). Fix, for operands that do not broadcast: `keepdims=True` on the reduction that "
             "made one (`jnp.max(x, axis=1)`, `x.mean(-1)`) where the kept axes make the broadcast succeed: safe "
             "where that is the reduction's only use, else a choice. Stage: trace.", JAX_SHAPES_DOC),
        Rule("PAL406", "ref-index", "error",
             "A ref read or stored with an index JAX rejects: more indices than the ref has dimensions "
             "(`` `indices` must not be longer than `shape` ``), or a `pl.ds(start, size)` with a static non-zero "
             "start that ends past its dimension (`Out of bound slice: start=3, size=128, stride=1, dim=130.`; "
             "`pl.ds(0, n)` and Python slices are not checked by JAX). Stage: trace.", JAX_REF_DOC),
        Rule("PAL407", "loop-carry-type", "error",
             "A `lax.fori_loop` / `lax.while_loop` body returns its carry with another shape or dtype than the "
             "carry it was given (`scan body function carry input and carry output must have equal types, but "
             "they differ`), as when a bf16 accumulator gets an f32 product added. A weakly typed initial carry "
             "(`0.0`) takes the body's dtype, not its shape. Stage: trace.", JAX_LOOP_DOC),
        Rule("PAL408", "store-scalar-vmem", "error",
             "One element stored into a VMEM ref (`o_ref[0, 0] = 1.5`, `acc_ref[i, j] += x` into a block or a "
             "`pltpu.VMEM` scratch): the TPU stores vectors into VMEM (`Cannot store scalars to VMEM`). Store a "
             "slice of size 1 (`o_ref[0:1, 0:1] = jnp.full((1, 1), 1.5, o_ref.dtype)`), or keep scalars in an "
             "SMEM ref, which takes them. Stage: TPU lowering.", JAX_TPU_DOC),
        Rule("PAL409", "float-index-iota", "error",
             "A float where the TPU lowering wants integers: a traced float scalar as a ref index or a `pl.ds` "
             "start (`pl.program_id(0) / 2`: `'arith.index_cast' op operand #0 must be ...integer-like ..., but "
             "got 'f32'`), or a float iota (`lax.broadcasted_iota(jnp.float32, ...)`, `jnp.arange(n, "
             "dtype=jnp.float32)`: `'tpu.iota' op result #0 must be vector of integer or index values`). Fix: "
             "integer arithmetic (`//`), or an int32 iota converted with `.astype`. Stage: TPU lowering.",
             JAX_TPU_DOC),
        Rule("PAL410", "ref-as-array", "error",
             "A ref used where an array goes, without reading it (`jnp.dot(x_ref, w)` for `jnp.dot(x_ref[...], "
             "w)`): a `jnp` function (`dot requires ndarray or scalar arguments, ... at position 0.`), an operator "
             "(`'AbstractRef' object has no attribute '_add'`), a store (`Cannot store a Ref into another Ref. Did "
             "you forget to load from it using `[...]`?`). Fix: `x_ref[...]`. Stage: trace.", JAX_REF_DOC),
        Rule("PAL411", "traced-condition", "error",
             "Python control flow on a traced value in a kernel: `if`, `while`, `assert`, `and` / `or` / `not`, a "
             "conditional expression on `x_ref[0, 0] > 0` or `pl.program_id(0) == 0`. Python decides once, while "
             "JAX traces the kernel (`Attempted boolean conversion of traced array with shape bool[].`; for more "
             "than one element `The truth value of an array with more than one element is ambiguous.`). Fix: "
             "`jnp.where`, `lax.cond`, `pl.when`. Stage: trace.", JAX_REF_DOC),
        Rule("PAL412", "kernel-captures-constant", "error",
             "A kernel reads a JAX array made outside any function (`BIAS = jnp.ones((1, 64))` at module level): "
             "tracing makes it a constant, which `pallas_call` refuses (`The kernel function in the pallas_call "
             "... captures constants [f32[1,64]]. You should pass them as inputs.`), on the line that applies the "
             "call. Reading its `.shape` or `.dtype` is fine. Fix: pass it as an operand, or build it in the "
             "kernel. Stage: trace.", JAX_REF_DOC),
        # A file that could not be checked (reported by the command line; ruff's codes).
        Rule("E902", "io-error", "error",
             "A file that could not be read or decoded, so it was not checked: an OS error (permission denied, "
             "a folder that vanished or cannot be listed, fixes that cannot be written back), a binary file, "
             "bytes that are not valid UTF-8 or not in the encoding a PEP 263 coding cookie declares, an unknown "
             "cookie, a notebook that is not valid JSON.", PYTHON_ENCODING_DOC),
        Rule("E999", "syntax-error", "error",
             "A file that Python cannot parse (`SyntaxError`), reported at the error; the file is not analysed "
             "further.", PYTHON_SYNTAX_DOC),
    )
}

# Not checks, but a file that could not be checked: a `select` that leaves them out still
# reports them (a file that cannot be read never passes silently); `ignore` turns them off.
FILE_ERRORS = ("E902", "E999")


def known_codes() -> str:
    """Every rule code, sorted, for messages that list them."""
    return ", ".join(sorted(RULES))


def selected(code: str, select: list[str] | tuple[str, ...] | None,
             ignore: list[str] | tuple[str, ...] | None) -> bool:
    """ruff-style selection: prefixes ("PAL", "PAL00") or exact codes; ignore wins.
    `select` None selects every rule, an empty one none (FILE_ERRORS aside)."""
    if select is not None and code not in FILE_ERRORS and not any(code.startswith(s) for s in select):
        return False
    return not (ignore and any(code.startswith(s) for s in ignore))
