"""The grammar of `python_fuzz.py`: seeded plain-Python programs of the kind kernel
authors write around their kernels (static sizes, tuples of block shapes, flags, small
helpers, `for` and `while` loops, objects whose fields change, closures writing
`nonlocal`, a generator, a closure factory, lambdas, `try` / `except IndexError`,
`*args` / `**kwargs`, `functools.partial`, a frozen dataclass and
`dataclasses.replace`), with no JAX in them.

A program is a few helper functions and a function `program()` that starts every
variable with a literal, runs statements on them and returns them all; `result =
program()` is what both CPython and pallas-lsp's interpreter are asked for.  Every
variable keeps one kind (int, float, bool, str, tuple or list of ints, dict), so most
programs run; one that raises is drawn again by the driver.  Some programs hold a `Box`
whose field `n` top-level helpers read (`peek`) and change (`bump`, the method `grow`), a
generator `gen`, and a closure
`tick` that counts in `n0` (`nonlocal`), called directly or through `twice`: calls
repeated with the same arguments where what they read or change moved in between.  `program(seed)` draws every
choice from `random.Random(seed)`."""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace

KINDS = ("int", "float", "bool", "str", "tuple", "list", "dict")
INTS = (-3, -1, 0, 1, 2, 3, 4, 7, 8, 16, 128, 256)
FLOATS = ("0.5", "1.0", "-2.0", "1e-3", "3.25")
STRS = ("''", "'a'", "'ab'", "'kv'")
SMALL = ("0", "1", "2", "3")


@dataclass
class Scope:
    """The variables in reach, by kind (helpers take and give ints)."""

    kinds: dict[str, str] = field(default_factory=dict)
    helpers: list[tuple[str, int]] = field(default_factory=list)   # (name, positional parameters)
    loop: bool = False
    changers: list[str] = field(default_factory=list)   # helpers that change the list they are given
    boxes: list[str] = field(default_factory=list)      # `Box` objects (`peek` / `bump` take them)
    ticks: list[str] = field(default_factory=list)      # closures writing `n0` (`nonlocal`)

    def of(self, kind: str) -> list[str]:
        return [n for n, k in self.kinds.items() if k == kind]


class Grammar:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.fresh = 0

    def pick(self, options):
        return self.rng.choice(options)

    def name(self, prefix: str) -> str:
        self.fresh += 1
        return f"{prefix}{self.fresh}"

    # ------------------------------------------------------------------ expressions
    def expr(self, kind: str, scope: Scope, depth: int = 0) -> str:
        names = scope.of(kind)
        if depth >= 3 or self.rng.random() < 0.25:
            return self.pick(names) if names and self.rng.random() < 0.6 else self.literal(kind)
        return getattr(self, f"_{kind}")(scope, depth + 1)

    def literal(self, kind: str) -> str:
        r = self.rng
        if kind == "int":
            return str(r.choice(INTS))
        if kind == "float":
            return r.choice(FLOATS)
        if kind == "bool":
            return r.choice(("True", "False"))
        if kind == "str":
            return r.choice(STRS)
        if kind in ("tuple", "list"):
            items = [str(r.choice(INTS)) for _ in range(r.randrange(0, 4))]
            return f"({', '.join(items)}{',' if len(items) == 1 else ''})" if kind == "tuple" else f"[{', '.join(items)}]"
        return "{" + ", ".join(f"'k{i}': {r.choice(INTS)}" for i in range(r.randrange(0, 3))) + "}"

    def _int(self, scope: Scope, depth: int) -> str:
        e = lambda k="int": self.expr(k, scope, depth)   # noqa: E731
        forms = [
            lambda: f"({e()} {self.pick(('+', '-', '*'))} {e()})",
            lambda: f"({e()} {self.pick(('//', '%'))} {self.pick(('2', '3', '-4', '8'))})",
            lambda: f"({e()} {self.pick(('<<', '>>'))} {self.pick(SMALL)})",
            lambda: f"({e()} {self.pick(('&', '|', '^'))} {e()})",
            lambda: f"{self.pick(('-', '~', '+'))}{e()}",
            lambda: f"{self.pick(('abs', 'int'))}({e()})",
            lambda: f"{self.pick(('min', 'max'))}({e()}, {e()})",
            lambda: f"len({e(self.pick(('tuple', 'list', 'str', 'dict')))})",
            lambda: f"int({e('float')})",
            lambda: f"({e()} if {e('bool')} else {e()})",
            lambda: f"({e()} {self.pick(('or', 'and'))} {e()})",   # the operand, not a bool
            lambda: f"{e('tuple')}[{self.pick(('0', '-1', '1'))}]",
            lambda: f"sum({e(self.pick(('tuple', 'list')))})",
            lambda: f"{self.pick(('min', 'max'))}({e(self.pick(('tuple', 'list')))})",
            lambda: f"({e()} ** {self.pick(('0', '1', '2'))})",
            lambda: f"({e('bool')} + {e()})",
            lambda: f"divmod({e()}, {self.pick(('3', '-2', '8'))})[{self.pick(('0', '1'))}]",
            lambda: f"round({e('float')})",
            lambda: f"math.{self.pick(('ceil', 'floor'))}({e('float')})",
            lambda: f"{e('dict')}.get('k{self.rng.randrange(3)}', {e()})",
            lambda: f"({e('tuple')}.index({e()}) if {e()} in {e('tuple')} else 0)",
            lambda: f"{e(self.pick(('tuple', 'list')))}.count({e()})",
            lambda: f"sum(x for x in {e(self.pick(('tuple', 'list')))} if x {self.pick(('>', '<', '!='))} {e()})",
            lambda: f"{self.pick(('min', 'max'))}({e(self.pick(('tuple', 'list')))}, default={e()})",
            lambda: f"max({e('tuple')}, key=lambda x: {self.pick(('-x', 'x % 3', 'abs(x)'))}, default={e()})",
            lambda: f"functools.reduce(lambda a, b: a {self.pick(('+', '*', '-'))} b, {e('tuple')}, {e()})",
            lambda: f"math.prod({e(self.pick(('tuple', 'list')))})",
            lambda: f"next(iter({e(self.pick(('tuple', 'list')))}), {e()})",
            lambda: f"len([x for x in {e('tuple')} for y in {e('list')} if x {self.pick(('>', '<', '!='))} y])",
            lambda: f"sum(v for k, v in {e('dict')}.items() if k != 'k{self.rng.randrange(3)}')",
            lambda: f"len(f\"{{{self.expr('int', scope, 3)}}}-{{{self.expr('str', scope, 3)}!r}}\")",
            lambda: f"len(f\"{{({self._int_target(scope)} := {self.literal('int')})}}\")",
            lambda: f"sum(itertools.accumulate({e('tuple')}))",
            lambda: f"({self._int_target(scope)} := {e()})",
        ]
        if scope.helpers:
            forms.append(lambda: self._helper_call(scope, depth))
        if scope.boxes:
            forms.append(lambda: f"{self.pick(scope.boxes)}.n")
            forms.append(lambda: f"peek({self.pick(scope.boxes)})")
            forms.append(lambda: f"{self.pick(scope.boxes)}.grow({self.pick(SMALL)})")
            forms.append(lambda: f"{self.pick(('sum', 'len'))}(list(gen({e()})))")
            # a top-level function given a closure that reads `n0` (changed between calls)
            forms.append(lambda: f"apply({self.pick(('read_n0', 'mix2'))}, {self.pick(SMALL)})")
            forms.append(lambda: f"make({self.pick(SMALL)})({e()})")
            forms.append(lambda: f"functools.partial(bump, {self.pick(scope.boxes)})({self.pick(SMALL)})")
            forms.append(lambda: f"spread(*{e('tuple')}, k={e()})")
            forms.append(lambda: f"dataclasses.replace(Cfg({e()}), b={e()}).b")
            forms.append(lambda: f"(lambda x: x {self.pick(('+', '*', '-'))} {e()})({e()})")
        return self.pick(forms)()

    def _helper_call(self, scope: Scope, depth: int) -> str:
        name, arity = self.pick(scope.helpers)
        args = [self.expr("int", scope, depth) for _ in range(self.rng.randrange(1, arity + 1))]
        if self.rng.random() < 0.3:
            args.append(f"scale={self.expr('int', scope, depth)}")
        return f"{name}({', '.join(args)})"

    def _float(self, scope: Scope, depth: int) -> str:
        e = lambda k="float": self.expr(k, scope, depth)   # noqa: E731
        return self.pick([
            lambda: f"({e()} {self.pick(('+', '-', '*'))} {e(self.pick(('int', 'float')))})",
            lambda: f"({e(self.pick(('int', 'float')))} / {self.pick(('2', '4.0', '-8'))})",
            lambda: f"float({e('int')})",
            lambda: f"math.sqrt(abs({e()}))",
            lambda: f"{self.pick(('min', 'max'))}({e()}, {e()})",
            lambda: f"abs({e()})",
            lambda: f"({e()} if {e('bool')} else {e()})",
        ])()

    def _bool(self, scope: Scope, depth: int) -> str:
        e = lambda k: self.expr(k, scope, depth)   # noqa: E731
        k = self.pick(KINDS)
        return self.pick([
            lambda: f"({e('int')} {self.pick(('<', '<=', '>', '>=', '==', '!='))} {e(self.pick(('int', 'float')))})",
            lambda: f"({e(k)} {self.pick(('==', '!='))} {e(k)})",
            lambda: f"({e(self.pick(('tuple', 'list')))} {self.pick(('==', '!='))} "
                    f"{e(self.pick(('tuple', 'list')))})",
            lambda: f"({e('int')} {self.pick(('in', 'not in'))} {e(self.pick(('tuple', 'list')))})",
            lambda: f"('k{self.rng.randrange(3)}' {self.pick(('in', 'not in'))} {e('dict')})",
            lambda: f"(not {e('bool')})",
            lambda: f"({e('bool')} {self.pick(('and', 'or'))} {e('bool')})",
            lambda: f"bool({e(self.pick(('int', 'str', 'tuple', 'list')))})",
            lambda: f"isinstance({e(k)}, {self.pick(('int', 'float', 'bool', 'str', 'tuple', 'list', 'dict'))})",
            lambda: f"({e(k)} is None)",
            lambda: f"{self.pick(('any', 'all'))}({e(self.pick(('tuple', 'list')))})",
            lambda: f"{e('str')}.startswith('a')",
            lambda: f"({e('int')} == {e('bool')})",
            lambda: f"(range({e('int')} % 4) == {e('tuple')})",
            lambda: f"({e('int')} {self.pick(('<', '<='))} {e('int')} {self.pick(('<', '<=', '!='))} {e('int')})",
            lambda: f"any(x {self.pick(('>', '==', '<'))} {e('int')} for x in {e(self.pick(('tuple', 'list')))})",
            lambda: f"isinstance({e(k)}, (int, {self.pick(('str', 'tuple', 'float'))}))",
            lambda: "(os.environ.get('PALLAS_LSP_FUZZ_UNSET') is None)",   # True, but not known to the interpreter
        ])()

    def _str(self, scope: Scope, depth: int) -> str:
        e = lambda k="str": self.expr(k, scope, depth)   # noqa: E731
        return self.pick([
            lambda: f"({e()} + {e()})",
            lambda: f"({e()} * {self.pick(SMALL)})",
            lambda: f"({e()} if {e('bool')} else {e()})",
            lambda: f"str({e('int')})",
            lambda: f"'-'.join(({e()}, {e()}))",
            lambda: f"{e()}.upper()",
        ])()

    def _tuple(self, scope: Scope, depth: int) -> str:
        e = lambda k="tuple": self.expr(k, scope, depth)   # noqa: E731
        i = lambda: self.expr("int", scope, depth)   # noqa: E731
        return self.pick([
            lambda: f"({i()}, {i()})",
            lambda: f"({e()} + {e()})",
            lambda: f"({e()} * {self.pick(SMALL)})",
            lambda: f"{e()}[{self.pick(('1:', ':-1', '::-1', '::2', '1:3'))}]",
            lambda: f"tuple({e('list')})",
            lambda: f"tuple(range({self.pick(SMALL)}, {i()} % 6))",
            lambda: f"tuple(x * {i()} for x in {e()})",
            lambda: f"tuple(sorted({e()}))",
            lambda: f"tuple(reversed({e()}))",
            lambda: f"tuple(a + b for a, b in zip({e()}, {e('list')}))",
            lambda: f"tuple(i * x for i, x in enumerate({e()}))",
            lambda: f"(*{e()}, {i()})",
            lambda: f"tuple({e('dict')}.values())",
            lambda: f"({e()} if {e('bool')} else {e()})",
            lambda: f"tuple(map(abs, {e()}))",
            lambda: f"tuple(i * x for i, x in enumerate({e()}, {self.pick(SMALL)}))",
            lambda: f"tuple(sorted({e()}, key=lambda x: {self.pick(('-x', 'x % 3', 'abs(x)'))}))",
            lambda: f"tuple(range({i()} % 5, {self.pick(('-1', '0'))}, -1))",
        ])()

    def _list(self, scope: Scope, depth: int) -> str:
        e = lambda k="list": self.expr(k, scope, depth)   # noqa: E731
        i = lambda: self.expr("int", scope, depth)   # noqa: E731
        return self.pick([
            lambda: f"[{i()}, {i()}]",
            lambda: f"list({e('tuple')})",
            lambda: f"[x + {i()} for x in {e(self.pick(('tuple', 'list')))} if x {self.pick(('>', '<', '!='))} {i()}]",
            lambda: f"sorted({e(self.pick(('tuple', 'list')))}{self.pick(('', ', reverse=True'))})",
            lambda: f"({e()} + {e()})",
            lambda: f"list(range({i()} % 5))",
            lambda: f"{e()}[::-1]",
            lambda: f"[*{e('tuple')}, {i()}]",
            lambda: f"list({e('dict')}.values())",
            lambda: f"({e()} if {e('bool')} else {e()})",
            lambda: f"({e()} or [{i()}])",
            lambda: f"[*range({i()} % 4)]",
            lambda: f"{e()}.copy()",
            lambda: f"[x * y for x in {e('tuple')} for y in {e()}]",
            lambda: f"list(itertools.accumulate({e('tuple')}))",
        ])()

    def _dict(self, scope: Scope, depth: int) -> str:
        i = lambda: self.expr("int", scope, depth)   # noqa: E731
        return self.pick([
            lambda: f"{{'k0': {i()}, 'k1': {i()}}}",
            lambda: f"dict(k0={i()}, k2={i()})",
            lambda: f"{{f'k{{j}}': j * {i()} for j in range(3)}}",
            lambda: f"{{**{self.expr('dict', scope, depth)}, 'k1': {i()}}}",
            lambda: f"dict(zip(('k0', 'k1', 'k2'), {self.expr('tuple', scope, depth)}))",
            lambda: f"{{k: v + {i()} for k, v in {self.expr('dict', scope, depth)}.items()}}",
        ])()

    # ------------------------------------------------------------------ statements
    def statements(self, scope: Scope, indent: str, depth: int, count: int) -> list[str]:
        out: list[str] = []
        for _ in range(count):
            out.extend(self.statement(scope, indent, depth))
        return out or [indent + "pass"]

    def statement(self, scope: Scope, indent: str, depth: int) -> list[str]:
        r = self.rng
        name = self.pick(list(scope.kinds))
        kind = scope.kinds[name]
        roll = r.random()
        if depth < 2 and roll < 0.15:
            body = self.statements(scope, indent + "    ", depth + 1, r.randrange(1, 3))
            lines = [f"{indent}if {self.expr('bool', scope)}:", *body]
            if r.random() < 0.5:
                lines += [f"{indent}else:", *self.statements(scope, indent + "    ", depth + 1, r.randrange(1, 3))]
            return lines
        if depth < 2 and roll < 0.27:
            return self._loop(scope, indent, depth)
        if (scope.boxes or scope.ticks) and r.random() < 0.2:
            return self._shared_change(scope, indent)
        if scope.boxes and kind == "int" and r.random() < 0.1:   # an index past the end is caught
            return [f"{indent}try:", f"{indent}    {name} = {self.expr('tuple', scope)}[{self.pick(('0', '2', '-1'))}]",
                    f"{indent}except IndexError:", f"{indent}    {name} = {self.expr('int', scope)}"]
        if roll < 0.35 and kind in ("int", "float", "str", "tuple", "list"):
            if kind in ("int", "float") and r.random() < 0.5:
                return [f"{indent}{name} {self.pick(('-=', '*=', '//=', '%='))} {self.pick(('2', '3', '-4'))}"]
            if kind != "float" and r.random() < 0.3:
                return [f"{indent}{name} *= {self.pick(SMALL)}"]
            rhs = "tuple" if kind == "list" and r.random() < 0.5 else kind   # a list += any iterable
            return [f"{indent}{name} += {self.expr(rhs, scope)}"]
        if roll < 0.45 and kind == "list":
            method = self.pick(("append", "extend", "insert", "pop", "reverse", "sort"))
            arg = {"append": self.expr("int", scope), "extend": self.expr("tuple", scope),
                   "insert": f"{self.pick(('0', '1', '-1'))}, {self.expr('int', scope)}"}.get(method, "")
            if method == "pop":
                return [f"{indent}if {name}:", f"{indent}    {self._int_target(scope)} = {name}.pop()"]
            return [f"{indent}{name}.{method}({arg})"]
        if roll < 0.5 and kind == "dict":
            return self._dict_change(name, scope, indent)
        if roll < 0.5 and kind == "list":
            return self._list_write(name, scope, indent)
        if roll < 0.55:
            others = [n for n in scope.of(kind) if n != name]
            if others:
                other = self.pick(others)
                return [f"{indent}{name}, {other} = {other}, {name}"]
        if roll < 0.6 and kind == "int":
            t = self.expr("tuple", scope)
            return [f"{indent}if len({t}) >= 2:", f"{indent}    {name}, *_rest = {t}"]
        if roll < 0.64 and kind == "list":
            others = [n for n in scope.of("list") if n != name]
            if others:
                return [f"{indent}{name} = {self.pick(others)}"]   # aliasing: one list, two names
        return [f"{indent}{name} = {self.expr(kind, scope)}"]

    def _dict_change(self, name: str, scope: Scope, indent: str) -> list[str]:
        """A key written, deleted or popped, or a dict method that changes it."""
        r = self.rng
        key = f"'k{r.randrange(3)}'"
        return self.pick([
            lambda: [f"{indent}if {key} in {name}:", f"{indent}    del {name}[{key}]"],
            lambda: [f"{indent}{name}[{key}] = {self.expr('int', scope)}"],
            lambda: [f"{indent}if {key} in {name}:", f"{indent}    {name}[{key}] += {self.expr('int', scope)}"],
            lambda: [f"{indent}{name}.update(k{r.randrange(3)}={self.expr('int', scope)})"],
            lambda: [f"{indent}{name}.update({self.expr('dict', scope)})"],
            lambda: [f"{indent}{self._int_target(scope)} = {name}.setdefault({key}, {self.expr('int', scope)})"],
            lambda: [f"{indent}{self._int_target(scope)} = {name}.pop({key}, {self.expr('int', scope)})"],
        ])()

    def _shared_change(self, scope: Scope, indent: str) -> list[str]:
        """A `Box`'s field set or bumped by a helper, `n0` counted by a closure, or read by
        one a helper is given."""
        forms = []
        if scope.boxes:
            box = self.pick(scope.boxes)
            forms += [lambda: [f"{indent}{box}.n = {self.expr('int', scope)}"],
                      lambda: [f"{indent}{self._int_target(scope)} = bump({box}, {self.pick(SMALL)})"]]
        if scope.ticks:
            tick = self.pick(scope.ticks)
            forms += [lambda: [f"{indent}twice({tick})"], lambda: [f"{indent}{tick}()"],
                      # a top-level function given a closure from one line, `n0` changed between
                      lambda: [f"{indent}for n0 in ({self.expr('int', scope)}, {self.pick(SMALL)}):",
                               f"{indent}    {self._int_target(scope)} = apply("
                               f"{self.pick(('read_n0', 'mix2'))}, {self.pick(SMALL)})"]]
        return self.pick(forms)()

    def _list_write(self, name: str, scope: Scope, indent: str) -> list[str]:
        """An item written, added to (its key may change a list, this one too) or deleted,
        or the list handed to a helper that changes it."""
        r = self.rng
        if scope.changers and r.random() < 0.3:   # a key that changes a list (this one, maybe)
            key = f"{self.pick(scope.changers)}({self.pick(scope.of('list'))}, {self.expr('int', scope)}) % len({name})"
            return [f"{indent}if {name}:", f"{indent}    {name}[{key}] += {self.expr('int', scope)}"]
        if scope.changers and r.random() < 0.4:
            return [f"{indent}{self.pick(scope.changers)}({name}, {self.expr('int', scope)})"]
        k = self.pick(("0", "1", "-1"))
        if r.random() < 0.2:
            return self.pick([
                lambda: [f"{indent}{name}[{self.pick(('1:3', ':1', '1:', '::2'))}] = {self.expr('tuple', scope)}"],
                lambda: [f"{indent}del {name}[{self.pick(('1:', ':1', '::2'))}]"],
                lambda: [f"{indent}if {self.expr('int', scope)} in {name}:",
                         f"{indent}    {name}.remove({self.expr('int', scope)})"],
                lambda: [f"{indent}{name}.clear()"],
            ])()
        if r.random() < 0.3:
            return [f"{indent}if len({name}) > 1:", f"{indent}    del {name}[{k}]"]
        return [f"{indent}if len({name}) > 1:", f"{indent}    {name}[{k}] = {self.expr('int', scope)}"]

    def changer(self, scope: Scope) -> list[str]:
        """A helper that changes the list it is given (in place: every name for it sees
        the change), through another name for it, or rebinds its own name first."""
        name = self.name("c")
        step = self.pick(("xs.append(x)", "xs += (x, x)", "xs.insert(0, x)", "ys = xs\n    ys.append(x)",
                          "xs = xs + [x]\n    xs.append(x)", "if xs:\n        xs[0] = x",
                          "if xs:\n        del xs[-1]",
                          "if os.environ.get('PALLAS_LSP_FUZZ_UNSET') is not None:\n        xs.append(x)"))
        scope.changers.append(name)
        return [f"def {name}(xs, x):", f"    {step}", "    return len(xs)"]

    def _int_target(self, scope: Scope) -> str:
        return self.pick(scope.of("int"))

    def _loop(self, scope: Scope, indent: str, depth: int) -> list[str]:
        r = self.rng
        var = self.name("i")
        inner = replace(scope, kinds={**scope.kinds, var: "int"}, loop=True)
        prelude: list[str] = []
        step: list[str] = []
        if r.random() < 0.25:   # its counter goes up first (a `continue` ends it too); the body
            inner = replace(scope, loop=True)   # does not set it
            prelude, step = [f"{indent}{var} = 0"], [f"{indent}    {var} += 1"]
            more = f" and {self.expr('bool', scope)}" if r.random() < 0.4 else ""
            head = f"while {var} < {self.pick(('2', '3', '4'))}{more}:"
        else:
            head = self.pick([
                f"for {var} in range({self.pick(SMALL)}, {self.expr('int', scope)} % 5 + 2):",
                f"for {var} in {self.expr(self.pick(('tuple', 'list')), scope)}:",
                f"for _k, {var} in enumerate({self.expr('tuple', scope)}):",
                f"for {var}, _v in zip({self.expr('tuple', scope)}, {self.expr('list', scope)}):",
                f"for _k, {var} in {self.expr('dict', scope)}.items():",
                f"for {var} in range({self.expr('int', scope)} % 5, {self.pick(('-1', '0', '1'))}, -1):",
            ])
        body = self.statements(inner, indent + "    ", depth + 1, r.randrange(1, 3))
        if r.random() < 0.3:   # before or after the body's statements (not inside one)
            jump = [f"{indent}    if {self.expr('bool', inner)}:", f"{indent}        {self.pick(('break', 'continue'))}"]
            body = jump + body if r.random() < 0.5 else body + jump
        lines = [*prelude, indent + head, *step, *body]
        if r.random() < 0.15:
            lines += [f"{indent}else:", f"{indent}    {self._int_target(scope)} += 1"]
        return lines

    # ------------------------------------------------------------------ programs
    def helper(self, scope: Scope) -> list[str]:
        name = self.name("h")
        arity = self.rng.randrange(1, 4)
        params = [f"a{k}" for k in range(arity)]
        inner = Scope({p: "int" for p in params} | {"scale": "int"}, list(scope.helpers))
        signature = ", ".join([params[0], *(f"{p}={self.pick(INTS)}" for p in params[1:]), "scale=1"])
        body = self.statements(inner, "    ", 1, self.rng.randrange(0, 3))
        lines = [f"def {name}({signature}):", *body, f"    return {self.expr('int', inner)} * scale"]
        scope.helpers.append((name, arity))
        return lines

    def program(self) -> str:
        scope = Scope()
        lines = ["import dataclasses", "import functools", "import itertools", "import math", "import os", ""]
        for _ in range(self.rng.randrange(0, 3)):
            lines += [*self.helper(scope), ""]
        for _ in range(self.rng.randrange(0, 2)):
            lines += [*self.changer(scope), ""]
        shared = self.rng.random() < 0.4
        if shared:
            lines += ["class Box:", "    def __init__(self, n):", "        self.n = n", "",
                      "    def grow(self, x):", "        self.n += x", "        return self.n", "",
                      "def gen(n):", "    for i in range(n % 4):", "        yield i * 2", "",
                      "def spread(*args, **kwargs):", "    return len(args) + sum(args) + kwargs.get('k', 0)", "",
                      "@dataclasses.dataclass(frozen=True)", "class Cfg:", "    a: int", "    b: int = 2", "",
                      "def make(k):", "    def scaled(x):", "        return x * k + len(seen)", "    seen = [k]",
                      "    return scaled", "",
                      "def peek(box):", "    return box.n * 2", "",
                      "def bump(box, x):", "    box.n = box.n + x", "    return box.n", "",
                      "def twice(fn):", "    fn()", "    fn()", "    return 0", "",
                      "def apply(fn, x):", "    return fn(x)", ""]
        names = []
        body = []
        for k in range(self.rng.randrange(3, 10)):
            kind = KINDS[k % len(KINDS)] if k < len(KINDS) else self.pick(KINDS)
            name = f"v{k}"
            body.append(f"    {name} = {self.literal(kind)}")
            scope.kinds[name] = kind
            names.append(name)
        scope.kinds["n0"] = "int"   # an int always in reach
        body.append(f"    n0 = {self.pick(INTS)}")
        names.append("n0")
        if scope.changers:   # a second list for them to change
            scope.kinds["w0"] = "list"
            body.append(f"    w0 = {self.literal('list')}")
            names.append("w0")
        if shared:
            body += [f"    b0 = Box({self.pick(INTS)})", "    def tick():", "        nonlocal n0",
                     "        n0 += 1", "    def read_n0(x):", "        return x + n0 * 2",
                     "    def mix(a, x):", "        return a * x - n0", "    mix2 = functools.partial(mix, 2)"]
            scope.boxes.append("b0")
            scope.ticks.append("tick")
        body += self.statements(scope, "    ", 0, self.rng.randrange(3, 9))
        lines += ["def program():", *body, f"    return ({', '.join(names)},)", "", "result = program()", ""]
        return "\n".join(lines)


def program(seed) -> str:
    return Grammar(random.Random(seed)).program()
