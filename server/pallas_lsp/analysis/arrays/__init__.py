"""A pure model of JAX arrays: shapes, dtypes and the rules of the operations kernels use.

A leaf package: it imports nothing else from `pallas_lsp`, nor jax or numpy.

* `dtypes` -- `DType(name, weak)`, `promote`, `short`, `bits`, `by_name`;
* `shapes` -- `ArrayV(shape, dtype)`, `Rejected`, `text`, `join_arrays`, `broadcast`;
* `args` -- the other argument kinds: `Py`, `DTypeArg`, `Dims`, `Seq`, `OPAQUE`;
* `table` -- `OPS` (canonical name -> `OpSpec`) and `apply(name, args, kwargs)`.

The rules live in `elementwise`, `linalg`, `reductions`, `structural`, `indexing` and
`creation`; `tests/arrays` checks every entry of `OPS` against `jax.eval_shape`.
"""
