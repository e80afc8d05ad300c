"""Evaluate a model case with JAX itself (`jax.eval_shape`) and compare the verdicts.

Model arguments become JAX ones: an `ArrayV` with a static shape and a dtype becomes a
`jax.ShapeDtypeStruct` (weak flag included) passed through `eval_shape`; `Py` values are
passed as Python values (`("slice", a, b, c)` as a `slice`); `DTypeArg` as a numpy dtype;
`Seq` as a tuple; `OPAQUE` as a traced int32 scalar.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

from pallas_lsp.analysis.arrays.args import Arg, Dims, DTypeArg, Opaque, Py, Seq
from pallas_lsp.analysis.arrays.dtypes import DType
from pallas_lsp.analysis.arrays.shapes import ArrayV, Rejected, static_or_none

PROPERTIES = {"T", "shape", "dtype", "ndim", "size"}
_MODULES = {
    "jax.numpy.": jnp, "jax.lax.": jax.lax, "jax.nn.": jax.nn,
    "jax.scipy.special.": jax.scipy.special, "pltpu.": pltpu, "pl.": pl,
    "operator.": operator,
}


def resolve(name: str) -> Callable[..., Any]:
    """The JAX callable of a canonical name."""
    if name.startswith("Array."):
        attr = name.removeprefix("Array.")
        if attr in PROPERTIES:
            return lambda x: getattr(x, attr)
        return lambda x, *a, **k: getattr(x, attr)(*a, **k)
    for info in ("finfo", "iinfo"):
        prefix = f"jax.numpy.{info}."
        if name.startswith(prefix):
            field_name = name.removeprefix(prefix)
            return lambda d: getattr(getattr(jnp, info)(d), field_name)
    for prefix, module in _MODULES.items():
        if name.startswith(prefix):
            return getattr(module, name.removeprefix(prefix))
    raise KeyError(name)


def _to_python(value: Any) -> Any:
    if isinstance(value, tuple):
        if len(value) == 4 and value[0] == "slice":
            return slice(*value[1:])
        return tuple(_to_python(v) for v in value)
    return value


class _Arrays:
    """Collects the arrays of a call: they become `eval_shape` arguments."""

    def __init__(self) -> None:
        self.structs: list[jax.ShapeDtypeStruct] = []

    def convert(self, arg: Arg) -> Any:
        if isinstance(arg, ArrayV):
            shape = static_or_none(arg.shape)
            assert shape is not None and arg.dtype is not None, arg
            self.structs.append(
                jax.ShapeDtypeStruct(shape, jnp.dtype(arg.dtype.name), weak_type=arg.dtype.weak)
            )
            return _Slot(len(self.structs) - 1)
        if isinstance(arg, Py):
            return _to_python(arg.value)
        if isinstance(arg, DTypeArg):
            return jnp.dtype(arg.dtype.name)
        if isinstance(arg, Seq):
            return tuple(self.convert(a) for a in arg.items)
        if isinstance(arg, Opaque):  # a traced int32 scalar
            self.structs.append(jax.ShapeDtypeStruct((), jnp.int32))
            return _Slot(len(self.structs) - 1)
        if isinstance(arg, Dims):
            return tuple(arg.items)
        raise TypeError(f"cannot give {arg!r} to JAX")


@dataclass(frozen=True)
class _Slot:
    index: int


def _fill(value: Any, arrays: tuple[Any, ...]) -> Any:
    if isinstance(value, _Slot):
        return arrays[value.index]
    if isinstance(value, tuple):
        return tuple(_fill(v, arrays) for v in value)
    return value


@dataclass
class JaxResult:
    """What JAX did: `value` (a ShapeDtypeStruct or a Python value) or `error`."""

    value: Any = None
    error: BaseException | None = None
    captured: list[Any] = field(default_factory=list)


def run_jax(name: str, args: list[Arg], kwargs: dict[str, Arg]) -> JaxResult:
    function = resolve(name)
    arrays = _Arrays()
    call_args = [arrays.convert(a) for a in args]
    call_kwargs = {k: arrays.convert(v) for k, v in kwargs.items()}
    result = JaxResult()

    def traced(*values: Any) -> Any:
        out = function(
            *(_fill(a, values) for a in call_args),
            **{k: _fill(v, values) for k, v in call_kwargs.items()},
        )
        result.captured.append(out)
        if isinstance(out, (jax.Array, np.generic, np.ndarray)):
            return jnp.asarray(out)
        return jnp.zeros(())

    try:
        result.value = jax.eval_shape(traced, *arrays.structs)
    except Exception as error:  # JAX raising is a verdict, not a test failure
        result.error = error
    return result


def model_value_matches(model: Any, jax_value: Any) -> bool:
    """A non-array model result (a property) against the Python value JAX gave."""
    if isinstance(model, Py):
        return bool(model.value == jax_value)
    if isinstance(model, DTypeArg):
        return model.dtype == DType(str(jnp.dtype(jax_value)))
    return False


def compare(model: Any, jax_result: JaxResult) -> str | None:
    """Why the model disagrees with JAX, or None when it does not."""
    error = jax_result.error
    if isinstance(model, Rejected):
        if error is None:
            return f"model rejects ({model.message!r}) but JAX accepts"
        first = str(error).strip().splitlines()[0] if str(error).strip() else ""
        if _unordered(first) != _unordered(model.message):
            return f"message differs:\n  model: {model.message}\n  jax:   {first}"
        return None
    if model is None:
        return None
    if isinstance(model, ArrayV):
        return _compare_array(model, jax_result)
    if error is not None:
        return f"model gives {model!r} but JAX raises {type(error).__name__}: {error}"
    captured = jax_result.captured[0]
    if not model_value_matches(model, captured):
        return f"model {model!r} != JAX {captured!r}"
    return None


def _unordered(message: str) -> str:
    """JAX lists the dtypes of a promotion error in set order: compare them sorted."""
    head, sep, rest = message.partition(") have no available")
    if not message.startswith("Input dtypes (") or not sep:
        return message
    names = sorted(head.removeprefix("Input dtypes (").split(", "))
    return f"Input dtypes ({', '.join(names)}{sep}{rest}"


def _compare_array(model: ArrayV, jax_result: JaxResult) -> str | None:
    error = jax_result.error
    static = static_or_none(model.shape)
    if error is not None:
        if static is not None and model.dtype is not None:
            return f"model gives {model!r} but JAX raises {type(error).__name__}: {error}"
        return None
    out = jax_result.value
    if model.shape is not None:
        if len(model.shape) != len(out.shape) or any(
            isinstance(d, int) and d != o for d, o in zip(model.shape, out.shape)
        ):
            return f"shape {model.shape} != JAX {out.shape}"
    if model.dtype is not None:
        expected = DType(str(out.dtype), weak=bool(out.weak_type))
        if model.dtype != expected:
            return f"dtype {model.dtype} != JAX {expected}"
    return None
