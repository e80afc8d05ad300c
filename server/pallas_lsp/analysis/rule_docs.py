"""The README's rules tables, one entry per rule of `rules.py` (`docs/generate.py` writes the
tables from it): the table a rule is listed in, what it finds and what JAX says, in short.
`Rule.summary` is the longer text `pallas-lsp rule CODE` prints."""

from __future__ import annotations

from .records import record




@record
class RuleDoc:
    family: str     # "semaphores", "contract", "bodies" or "files": the README table it is in
    what: str       # what the rule finds (Markdown)
    jax_says: str   # JAX's words and the stage where it says them (Markdown)
    severity: str = "error"   # as shown: "error / warning" where a finding can be either


RULE_DOCS: dict[str, RuleDoc] = {
    "PAL001": RuleDoc("semaphores",
                      'a non-scalar semaphore given to a DMA start: `make_async_copy(...).start()`, `async_copy`, '
                      '`make_async_remote_copy(...).start()` / `async_remote_copy` — the destination (`recv_sem`) '
                      '**and** the source (`send_sem`) semaphore',
                      '`Cannot signal on a non-()-shaped semaphore: (2,)` (trace)'),
    "PAL002": RuleDoc("semaphores",
                      'a non-scalar semaphore given to `pl.semaphore_signal` / `pl.semaphore_wait` (and the '
                      'deprecated `pltpu.` aliases), `pltpu.core_barrier`, the `plgpu.semaphore_*` family',
                      '`Cannot signal on a non-()-shaped semaphore` (trace)'),
    "PAL003": RuleDoc("semaphores",
                      'a DMA `.wait()` / `.wait_recv()` / `.wait_send()` or `pl.semaphore_read` on a non-scalar '
                      'semaphore',
                      'nothing when tracing; the kernel fails or misbehaves at run time',
                      severity='warning'),
    "PAL301": RuleDoc("semaphores",
                      'a DMA semaphore given to `pl.semaphore_signal` / `semaphore_wait`, or a REGULAR / BARRIER '
                      'one waited by a DMA',
                      '`Must signal semaphores of the following types: ...`; `dma_wait requires a DMA semaphore, '
                      'but got a regular semaphore` (TPU lowering)'),
    "PAL302": RuleDoc("semaphores",
                      'a DMA started and never waited: counted over the grid steps and loop iterations, a copy is '
                      "still in flight at the kernel's end (the last step's prefetch, a forgotten `.wait()`)",
                      "nothing raised; JAX's TPU interpreter prints `Semaphore ... has non-zero count ... at "
                      'kernel exit`',
                      severity='error / warning'),
    "PAL303": RuleDoc("semaphores",
                      "a wait that takes more than was started or signalled before it: a DMA's `.wait()` (a "
                      'prefetched pipeline with no first-step prologue, a copy never started), '
                      '`pl.semaphore_wait(sem, n)` after fewer than `n` signals',
                      'the kernel hangs',
                      severity='error / warning'),
    "PAL304": RuleDoc("semaphores",
                      '`pl.semaphore_signal` counts no `pl.semaphore_wait` takes (`signal(sem, 2)` then '
                      '`wait(sem)`, a signal per loop trip and one wait)',
                      '`Semaphore ... has non-zero count ... at kernel exit`',
                      severity='error / warning'),
    "PAL305": RuleDoc("semaphores",
                      'a DMA (`make_async_copy`, `async_copy`, the remote ones) whose source and destination '
                      'differ in dtype or shape where both are known: scratch buffers, blocks, `out_shape`, the '
                      'arrays a driver passes, static `.at[...]` views (`x_hbm.at[pl.ds(i, 8)]` is (8, ...) '
                      "whatever `x_hbm`'s rank)",
                      '`DMA source and target element type mismatch` / `DMA source and target shape mismatch.` '
                      "(Mosaic's verifier, on a TPU); JAX's TPU interpreter fails on a shorter source or another "
                      'dtype'),
    "PAL101": RuleDoc("contract",
                      "the kernel's parameters against the refs Pallas passes (`*scalar_prefetch, *inputs, "
                      '*outputs, *scratch`; a tuple `out_shape` gives one per element, a dict one); the message '
                      'says which parameter receives which ref',
                      '`kernel() takes 3 positional arguments but 4 were given` / `missing 1 required positional '
                      'argument` (trace)'),
    "PAL102": RuleDoc("contract",
                      "an `index_map` taking a different number of arguments than the grid's rank (plus the "
                      'scalar-prefetch refs)',
                      'a `TypeError` from the index map (trace)'),
    "PAL103": RuleDoc("contract",
                      'an `index_map` returning a different number of indices than `block_shape` has dimensions',
                      '`Index map function ... must return N values to match block_shape=...` (trace)'),
    "PAL104": RuleDoc("contract",
                      'a `block_shape` of another rank than its array',
                      '`Block shape for ... must have the same number of dimensions as the array shape` (trace)'),
    "PAL105": RuleDoc("contract",
                      '`out_specs` not shaped like `out_shape`; `in_specs` not one per input',
                      '`Pytree for `out_specs` and `out_shape` do not match` (trace)'),
    "PAL106": RuleDoc("contract",
                      '`dimension_semantics` not one per grid axis',
                      '`Length of grid does not match length of dimension semantics` (TPU lowering)'),
    "PAL107": RuleDoc("contract",
                      '`pl.program_id(axis)` / `pl.num_programs(axis)` beyond the grid, in the kernel or a helper '
                      'it calls',
                      '`Axis 1 is out of bounds for grid (8,)` (trace)'),
    "PAL201": RuleDoc("contract",
                      'TPU block tiling: the last two block dimensions neither divisible by 8 and 128 nor equal to '
                      "the array's (`None` counts as 1)",
                      '`The Pallas TPU lowering currently requires that the last two dimensions of your block '
                      'shape are divisible by 8 and 128 ...` (TPU lowering)'),
    "PAL202": RuleDoc("contract",
                      'a rank-1 block neither the whole array, a multiple of 1024, nor a power of 2 of at least '
                      '128 * (32 // bitwidth)',
                      "the TPU lowering's rank-1 rule"),
    "PAL306": RuleDoc("contract",
                      'an output block revisited: the output\'s `index_map` ignores a grid axis marked "parallel", '
                      'or an axis before one it uses (a reduction axis must be "arbitrary" and last)',
                      "nothing on a TPU (wrong results, races); JAX's TPU interpreter: `Revisited block ... of "
                      'output ...`'),
    "PAL401": RuleDoc("bodies",
                      'a value of another dtype stored into an array ref: `o_ref[...] = acc` with an f32 `acc` and '
                      'a bf16 `o_ref`, a `+=` whose sum promotes, a Python int into a float ref, a bool into an '
                      'int ref. `=` converts only a Python float into a float ref and any integer into an integer '
                      'ref (an int8 value into an int32 ref is fine). Safe fix: `acc.astype(o_ref.dtype)`',
                      '``Invalid dtype for `swap`. Ref dtype: bfloat16. Value dtype: float32.`` (trace)'),
    "PAL402": RuleDoc("bodies",
                      'a value of another shape stored into an array ref or the part its index selects: `=` never '
                      'broadcasts, not even a scalar (`acc_ref[...] = 0.0`); `+=` does (the add comes first)',
                      '``Invalid shape for `swap`. Ref shape: (16, 1). Expected shape: (16, 1). Value shape: (16, '
                      '16). Transforms: ().`` (trace)'),
    "PAL403": RuleDoc("bodies",
                      'a `jnp.dot` / `jnp.matmul` / `@` / `lax.dot_general` / `pl.dot` whose contracting '
                      'dimensions differ (`q @ k` for `q @ k.T`, swapped operands); the message gives each '
                      "operand's shape",
                      '`dot_general requires contracting dimensions to have the same shape, got (128,) and '
                      '(256,).` (trace)'),
    "PAL404": RuleDoc("bodies",
                      'a 2-D or batched 3-D matmul (`jnp.dot` / `matmul` / `@` / `dot_general`, an `einsum` that '
                      'contracts) whose result is bf16 / int8 / int4 / fp8 (narrow operands without '
                      '`preferred_element_type`). Fix: add `preferred_element_type=jnp.float32` (`int32` for '
                      'integers), safe where every use takes the 32-bit result (`.astype(...)`, `acc_ref[...] +=` '
                      'into an f32 ref); else the safe fix casts it back (`.astype(jnp.bfloat16)`) and the plain '
                      'one is a choice',
                      "`'tpu.matmul' op Expected matmul acc to be 32-bit` (TPU lowering)"),
    "PAL405": RuleDoc("bodies",
                      'other operations JAX rejects: operands that do not broadcast (a `jnp.mean` that lost '
                      '`keepdims=True`), a reduction axis out of range, a reshape to another size, a concatenate '
                      'of different ranks, an `einsum` whose label has two sizes (keys laid out `khd` read as '
                      '`hkd`) or a term of another rank than its operand. Fix: `keepdims=True` on the reduction '
                      'that made an operand, where that makes it broadcast (safe where it is the reduction\'s only '
                      'use, else a choice)',
                      '`Incompatible shapes for broadcasting: shapes=[(16, 256), (16,)]`, `axis 2 is out of bounds '
                      "for array of dimension 2`, `cannot reshape array of shape ...`, `Size of label 'h' for "
                      'operand 1 (2) does not match previous terms (8).` (trace)'),
    "PAL406": RuleDoc("bodies",
                      'a ref read or stored with an index JAX rejects: more indices than the ref has dimensions (a '
                      'squeezed `None` block dim indexed), a `pl.ds` with a static non-zero start that ends past '
                      'its dimension',
                      '``Out of bound slice: start=3, size=128, stride=1, dim=130.``, `` `indices` must not be '
                      'longer than `shape` `` (trace)'),
    "PAL407": RuleDoc("bodies",
                      'a `lax.fori_loop` / `while_loop` body that returns its carry with another shape or dtype (a '
                      'bf16 accumulator given an f32 product, a total that lost its axis); a weakly typed initial '
                      "carry (`0.0`) takes the body's dtype",
                      '`scan body function carry input and carry output must have equal types, but they differ:` '
                      '(trace)'),
    "PAL408": RuleDoc("bodies",
                      'one element stored into a VMEM ref (a block, a `pltpu.VMEM` scratch): `o_ref[0, 0] = 1.5`, '
                      '`acc_ref[0, 0] += jnp.sum(x)`; the TPU stores vectors there. Fix: a slice of size 1 '
                      '(`o_ref[0:1, 0:1] = jnp.full((1, 1), 1.5, o_ref.dtype)`), or an SMEM ref, which takes '
                      'scalars',
                      '`Cannot store scalars to VMEM` (TPU lowering)'),
    "PAL409": RuleDoc("bodies",
                      'a float where the TPU wants integers: a traced float scalar as a ref index or a `pl.ds` '
                      'start (`w = pl.program_id(0) / 2`), a float iota (`lax.broadcasted_iota(jnp.float32, ...)`, '
                      '`jnp.arange(n, dtype=jnp.float32)`). Fix: integer arithmetic (`//`, `lax.div`); an int32 '
                      'iota and `.astype`',
                      "`'arith.index_cast' op operand #0 must be signless-...-integer-like ..., but got 'f32'`, "
                      "`'tpu.iota' op result #0 must be vector of integer or index values` (TPU lowering)"),
    "PAL410": RuleDoc("bodies",
                      'a ref used where an array goes, without `[...]`: given to a `jnp` function (`jnp.dot(x_ref, '
                      'w_ref[...])`), to an operator (`x * g + res_ref`), stored (`buf_ref[...] = x_ref`). Fix: '
                      '`x_ref[...]`',
                      "``dot requires ndarray or scalar arguments, got <class '...DynamicJaxprTracer'> at position "
                      "0.``, `'AbstractRef' object has no attribute '_add'`, ``Cannot store a Ref into another "
                      'Ref. Did you forget to load from it using `[...]`?`` (trace)'),
    "PAL411": RuleDoc("bodies",
                      'Python control flow on a traced value: `if pl.program_id(0) == 0:`, `while`, `assert`, '
                      '`and` / `or` / `not`, `a if s > 0 else b` (NumPy scalars such as `np.float32(...)` and '
                      '`jnp.finfo(t).min` are not traced: no finding). Fix: `pl.when`, `jnp.where`, `lax.cond`, '
                      '`&` / `\\|` for masks',
                      '`Attempted boolean conversion of traced array with shape bool[].`, `The truth value of an '
                      'array with more than one element is ambiguous.` (trace)'),
    "PAL412": RuleDoc("bodies",
                      'a kernel reading a JAX array made outside any function (`BIAS = jnp.ones((1, 64))`, `SCALE '
                      '= jnp.float32(0.125)` at module level); reported on the line that applies the '
                      '`pallas_call`, with the read as related location. Fix: pass it as an operand, or make it in '
                      'the kernel (a Python number is fine)',
                      '`The kernel function in the pallas_call ... captures constants [f32[1,64]]. You should pass '
                      'them as inputs.` (trace)'),
    "E999": RuleDoc("files",
                      'a file Python cannot parse, reported at the syntax error; the file is not analysed further',
                      '`SyntaxError` when the module is imported'),
    "E902": RuleDoc("files",
                      'a file that cannot be read or decoded: an OS error, a binary file, bytes that are not UTF-8 '
                      'or not in the encoding its coding cookie declares, a notebook that is not JSON',
                      '`SyntaxError` / `UnicodeDecodeError` / `OSError` when the module is imported'),
}
