"""Every entry of the array model's table, checked against `jax.eval_shape`.

For each case: a fully static `ArrayV` from the model must equal JAX's shape, dtype and
weak flag; a `Rejected` must be a JAX error with the same first line; where JAX raises,
the model may say "unknown" (None or a partly unknown value) but never a static value.
"""

from __future__ import annotations

import warnings

import pytest

pytest.importorskip("jax", reason="the array model is checked against jax, not installed")

from pallas_lsp.analysis.arrays.table import OPS, apply  # noqa: E402

from .cases import cases_for  # noqa: E402
from .oracle import compare, run_jax  # noqa: E402


def test_every_entry_has_cases() -> None:
    missing = [name for name in OPS if not cases_for(name)]
    assert not missing, f"entries of OPS without cases: {missing}"


def test_table_agrees_with_jax() -> None:
    failures: list[str] = []
    checked = unknown_on_error = unmodelled = 0
    warnings.simplefilter("ignore")
    for name in OPS:
        for args, kwargs in cases_for(name):
            model = apply(name, args, kwargs)
            jax_result = run_jax(name, args, kwargs)
            checked += 1
            if model is None and jax_result.error is not None:
                unknown_on_error += 1
            elif model is None:
                unmodelled += 1
            problem = compare(model, jax_result)
            if problem:
                failures.append(f"{name}{tuple(args)} {kwargs}: {problem}")
    print(f"\n{checked} cases; model unknown where JAX raises: {unknown_on_error}; "
          f"model unknown where JAX accepts: {unmodelled}")
    assert not failures, f"{len(failures)} disagreements:\n" + "\n".join(failures[:400])
