"""`record`: the analysis's immutable records compare and hash as frozen dataclasses do,
and mypy rejects an assignment to a field of one (the run-time class is not frozen)."""

from __future__ import annotations

import ast
import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pallas_lsp.analysis.arrays.dtypes import DType
from pallas_lsp.analysis.records import record
from pallas_lsp.analysis.values import Const, Loc, Seq

SERVER = Path(__file__).resolve().parents[2] / "server"


@record(slots=True)
class _Point:
    x: int
    tags: tuple = ()


@record(eq=False)
class _Token:
    name: str


@record
class _Named:
    name: str

    def __hash__(self) -> int:
        return 7


@record
class _Compared:
    name: str

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Compared) and other.name.lower() == self.name.lower()


@record(order=True)
class _Version:
    major: int
    minor: int = 0


def test_records_compare_and_hash_as_frozen_dataclasses_do():
    assert _Point(1, ("a",)) == _Point(1, ("a",)) and _Point(1) != _Point(2)
    assert hash(_Point(1, ("a",))) == hash(_Point(1, ("a",)))
    assert len({_Point(1), _Point(1), _Point(2)}) == 2
    assert not hasattr(_Point(1), "__dict__")                        # slots=True kept
    assert _Token("a") != _Token("a")                                 # eq=False: identity
    token = _Token("a")
    assert token == token and hash(token) == object.__hash__(token)
    assert hash(_Named("a")) == 7                                     # a class's own hash stays
    assert hash(_Compared("a")) == hash(_Compared("a")) and _Compared("a") == _Compared("A")
    assert _Version(1, 2) < _Version(2) and sorted([_Version(2), _Version(1, 5)])[0] == _Version(1, 5)
    assert dataclasses.replace(_Point(1), x=3) == _Point(3)


def test_the_compiled_modules_dataclasses_compare_and_hash_as_records():
    # Python's values and the domains' records are plain dataclasses (mypyc compiles them
    # as native classes) that compare and hash as the records they were
    assert Const(3) == Const(3) and hash(Const(3)) == hash(Const(3))
    assert DType("float32") == DType("float32") and hash(DType("float32", True)) == hash(DType("float32", True))
    assert len({DType("float32"), DType("float32"), DType("int32")}) == 2
    loc = Loc(None, None)
    assert loc != Loc(None, None) and hash(loc) == object.__hash__(loc)
    assert Seq((Const(1),)) != Seq((Const(1),))


def _own_inits():
    """(module, class, its fields, its own `__init__`) of every dataclass of the analysis
    that writes its `__init__` (`records`: mypyc compiles it, not the generated one)."""
    for path in sorted((SERVER / "pallas_lsp" / "analysis").rglob("*.py")):
        for cls in ast.walk(ast.parse(path.read_text())):
            if not isinstance(cls, ast.ClassDef) or not any(
                    "dataclass" in ast.unparse(d) for d in cls.decorator_list):
                continue
            init = next((f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
            fields = [s for s in cls.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
                      and "ClassVar" not in ast.unparse(s.annotation)]
            if init is not None:
                yield path.name, cls.name, fields, init


def test_an_own_init_takes_the_fields_as_the_generated_one_would():
    inits = list(_own_inits())
    assert {name for _, name, _, _ in inits} >= {"Const", "Loc", "Api", "HelperCall", "NamedValue", "NamedSem", "Py"}
    for module, name, fields, init in inits:
        params, defaults = init.args.args[1:], init.args.defaults
        assert [p.arg for p in params] == [f.target.id for f in fields], (module, name)
        assert [ast.unparse(p.annotation) for p in params] == [ast.unparse(f.annotation) for f in fields], (module, name)
        field_defaults = [ast.unparse(f.value) for f in fields if f.value is not None]
        assert [ast.unparse(d) for d in defaults] == field_defaults, (module, name)
        assigned = [(s.targets[0].attr, s.value.id) for s in init.body
                    if isinstance(s, ast.Assign) and isinstance(s.targets[0], ast.Attribute)
                    and isinstance(s.value, ast.Name)]
        assert assigned == [(f.target.id, f.target.id) for f in fields], (module, name)


def test_mypy_rejects_an_assignment_to_a_record_field():
    pytest.importorskip("mypy")
    code = ("from pallas_lsp.analysis.findings import Span\n"
            "s = Span(1, 0, 1, 4)\n"
            "s.line = 2\n"
            "u = Span(1, 0, 1, 4, 5)\n")
    # In a process of its own: mypy changes the collector's thresholds of the process it runs in.
    run = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--follow-imports=silent", "-c", code],
                         capture_output=True, text=True, env={**os.environ, "MYPYPATH": str(SERVER)}, check=False)
    assert run.returncode == 1, run.stderr
    assert '<string>:3: error: Property "line" defined in "Span" is read-only' in run.stdout
    assert "<string>:4: error: Too many arguments" in run.stdout
