"""A pure model of JAX arrays: shapes, dtypes and the rules of the operations kernels use.

A leaf package: it imports nothing else from `pallas_lsp`, nor jax or numpy.  `table.apply`
is the entry point; `dtypes`, `shapes` and `args` define the values it works on.
"""
