"""The checks: a semaphore argument of a checked call is an error (or warning) when its
abstract value is a non-scalar `Sem`.  Also turns raw findings into `Finding`s: JAX's
message, what the semaphore is and where it was declared, and the data the fixes need.
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass
from typing import Any

from .findings import Finding, FixData, Related
from .index_choice import IndexSuggestion, suggest_index
from .pallas.indexed_use import judged_against
from .pallas.indexing import index_elts, indexed_text, is_at
from .pallas.model import SemRole
from .pallas.sems import Sem
from .records import record
from .report import loc_span
from .rules import RULES
from .values import Loc, SliceV, shape_text


@record
class CallContext:
    """What the index suggestion needs from where a call is."""

    slice_names: frozenset = frozenset()   # names in the call's `.at[...]`s bound to slices
    loop_var: str | None = None            # the innermost loop variable around the call


@record
class SemUse:
    """One semaphore argument of a checked call (or of a descriptor's method)."""

    rule: str
    verb: str                 # JAX's word: "Cannot {verb} on a non-()-shaped semaphore"
    api_name: str
    value: Any                # the abstract value given
    at: Loc | None            # the argument expression
    call: Loc | None          # the call (its other arguments suggest the index)
    stmt: Loc | None = None   # the statement holding it (None: the current one)
    role: SemRole | None = None
    remote: bool = False
    context: CallContext | None = None


@record
class InnerUse:
    """Where the check itself happened (inside the helper the array was passed to)."""

    at: Loc
    stmt: Loc | None
    call: Loc | None
    direct: bool
    context: CallContext


@record
class Via:
    helper: str               # the helper's name, for messages
    use: Loc | None           # where it uses the semaphore


@dataclass(eq=False)
class RawFinding:
    """A finding in terms of AST locations (document positions are computed later, so a
    cached finding stays right when lines are inserted above it)."""

    code: str
    verb: str
    api_name: str
    sem: Sem
    at: Loc                 # the expression reported (argument, or helper call argument)
    stmt: Loc | None        # the statement holding it (the guard goes above)
    call: Loc | None        # the call whose other arguments suggest the index
    via: Via | None         # the helper it went through
    direct: bool            # the reported expression is the semaphore itself
    role: SemRole | None = None
    remote: bool = False
    context: CallContext = CallContext()
    decl_indexed: bool = False             # the declared array is indexed elsewhere (keep it an array)
    sites: tuple = ()                      # helper calls the array went through, outermost first
    inner: InnerUse | None = None          # where the check itself happened (inside the helper)
    handed: Via | None = None              # where a helper of another module passed the whole array on


def call_context(call_loc: Loc | None, frame: Any) -> CallContext:
    """The context of a call at the current point of `frame`."""
    return CallContext(_slice_names(call_loc, frame), _loop_var(frame))


def check_semaphore(ctx: Any, use: SemUse, frame: Any) -> None:
    """Record a finding when `use.value` is a semaphore array (anything else: silent)."""
    value = use.value
    if ctx.silent or not isinstance(value, Sem) or value.scalar:
        return
    stmt = use.stmt
    if stmt is None:
        stmt = frame.loc(frame.stmt) if frame.stmt is not None else use.call
    inner_at = use.at or use.call
    inner = None
    if inner_at is not None:
        context = use.context if use.context is not None else call_context(use.call, frame)
        inner = InnerUse(inner_at, stmt, use.call, use.at is not None, context)
    site = value.site
    reported = site.arg if site is not None else inner_at
    if value.evidence and (reported is None or not judged_against(value, reported)):
        return   # indexed only on another branch: that configuration may declare it whole
    if site is not None:
        raw = RawFinding(use.rule, use.verb, use.api_name, value, at=site.arg, stmt=site.stmt, call=site.call,
                         via=Via(site.callee, inner_at), direct=site.direct, role=use.role, remote=use.remote,
                         sites=value.sites, inner=inner)
    elif inner is not None:
        raw = RawFinding(use.rule, use.verb, use.api_name, value, at=inner.at, stmt=inner.stmt, call=inner.call,
                         via=None, direct=inner.direct, role=use.role, remote=use.remote, context=inner.context)
    else:
        return
    ctx.findings.append(raw)


def report_inside_indexing_helpers(findings: list[RawFinding], indexed_sites: set[int],
                                   kernel_nodes: set | frozenset = frozenset()) -> None:
    """A helper that indexes the array it was given (`sems.at[i]` somewhere) knows it is
    an array, and so does a function that is itself a kernel (it gets the array straight
    from scratch elsewhere): their use of the whole array is the bug, so the finding moves
    inside the innermost such function: to the next helper call it makes with the array,
    or to the DMA itself."""
    for raw in findings:
        inner = raw.inner
        if not raw.sites or inner is None:
            continue
        aware = [i for i, s in enumerate(raw.sites)
                 if id(s) in indexed_sites or s.callee_node in kernel_nodes]
        if not aware:
            continue
        k = aware[-1]
        if k + 1 < len(raw.sites):
            nxt = raw.sites[k + 1]
            if nxt.arg.path is not None:   # a call in another module: shown at the outer site
                raw.handed = Via(raw.sites[k].callee, nxt.arg)
                continue
            raw.at, raw.stmt, raw.call, raw.direct = nxt.arg, nxt.stmt, nxt.call, nxt.direct
            raw.via, raw.sites = Via(nxt.callee, inner.at), raw.sites[k + 1:]
            raw.context = CallContext()
            continue
        if inner.at.path is not None or (is_at(inner.at.node) and id(raw.sites[-1]) in indexed_sites
                                         and raw.sites[-1].callee_node not in kernel_nodes):
            continue  # the helper used a view: the caller passed the wrong rank
        raw.at, raw.stmt, raw.call, raw.direct = inner.at, inner.stmt, inner.call, inner.direct
        raw.context = CallContext(inner.context.slice_names, inner.context.loop_var)
        raw.via, raw.sites = None, ()


def _loop_var(frame):
    f = frame
    while f is not None:
        if f.loops:
            return f.loops[-1]
        f = f.parent
    return None


def _slice_names(call, frame):
    """Names used as `.at[name]` in the call that hold a slice (`rows = pl.ds(...)`):
    they are not slots, so they are no index suggestion."""
    if call is None or not isinstance(call.node, ast.Call):
        return frozenset()
    out = set()
    for a in list(call.node.args) + [k.value for k in call.node.keywords]:
        if is_at(a):
            for e in index_elts(a):
                if isinstance(e, ast.Name):
                    f = frame
                    while f is not None and e.id not in f.env:
                        f = f.parent
                    if f is not None and isinstance(f.env[e.id], SliceV):
                        out.add(e.id)
    return frozenset(out)


# --------------------------------------------------------------------------- conversion

def _line_no(loc: Loc | None) -> str | None:
    """'line 12', or 'common.py:12' for a place in another file."""
    if loc is None:
        return None
    line = loc.block.start + loc.node.lineno
    if loc.path is not None:
        return f"{os.path.basename(loc.path)}:{line}"
    return f"line {line}"


def position_key(raw: RawFinding) -> tuple:
    """The block positions a formatted finding depends on (it is re-made when one moves)."""
    locs = (raw.at, raw.stmt, raw.sem.decl, raw.via.use if raw.via else None)
    return tuple(loc.block.start if loc is not None else -1 for loc in locs)


@record
class _Static:
    """The parts of a finding that do not depend on where its blocks are now."""

    text: str
    short: str
    index: IndexSuggestion | None
    hint: str                 # the message's advice: the safe fix, or the choices
    kind: str
    shape: str


def _static(raw: RawFinding) -> _Static:
    st = raw.__dict__.get("_static")
    if st is None:
        sem = raw.sem
        text = raw.at.block.segment(raw.at.node)
        short = text if len(text) <= 40 and "\n" not in text else text.split("\n")[0][:37] + "..."
        index = suggest_index(raw, len(sem.dims)) if raw.direct and sem.dims else None
        if index is not None and index.safe and sem.evidence:   # an array known by its use: a choice
            first = ("0",) * len(index.index)
            index = IndexSuggestion(index.index, False, (first,) if index.index != first else ())
        st = _Static(text, short, index, _fix_hint(text, index, raw.context.slice_names),
                     "semaphore" if sem.kind == "?" else f"{sem.kind} semaphore", shape_text(sem.dims))
        raw.__dict__["_static"] = st
    return st


def to_finding(raw: RawFinding) -> Finding:
    sem = raw.sem
    rule = RULES[raw.code]
    st = _static(raw)
    shape, text, short, index, kind = st.shape, st.text, st.short, st.index, st.kind
    at_span = loc_span(raw.at)

    if raw.code == "PAL003":
        if raw.api_name.endswith("semaphore_read"):
            head = f"semaphore_read of a non-()-shaped semaphore: {shape}"
        else:
            head = f"`.{raw.verb}()` on a DMA whose semaphore is non-()-shaped: {shape}"
        tail = " JAX does not check this when tracing; the kernel fails or misbehaves at run time."
    else:
        head = f"Cannot {raw.verb} on a non-()-shaped semaphore: {shape}"
        tail = ""
    subject = f"`{short}`" if raw.at is not raw.call else f"the semaphore `{short}` gets"   # no argument to name
    what = (f"{subject} is a {kind} array of shape {shape}" if sem.dims is not None
            else f"{subject} is a {kind} array on every path (its shape depends on the path)")
    what += _origin(sem)
    if raw.remote and raw.role:
        what += f", given as the {'source semaphore (send_sem)' if raw.role is SemRole.SRC else 'destination semaphore (recv_sem)'}"
    if raw.via is not None:
        helper, use = raw.via.helper, raw.via.use
        use_line = _line_no(use)
        action = "starts a DMA with it" if raw.code == "PAL001" else "uses it"
        what += f"; it is passed to `{helper}`, which {action}" + (f" at {use_line}" if use_line else "")
    message = f"{head} — {what}{st.hint}.{tail}"

    related = _related(raw)

    fix = None
    if raw.at.path is None and raw.at is not raw.call:   # an expression to index or guard
        stmt = raw.stmt or raw.at
        stmt_line = stmt.block.start + stmt.node.lineno - 1
        line_text = stmt.block.line(stmt.node.lineno - 1)
        indent = line_text[: len(line_text) - len(line_text.lstrip())]
        scalar_decl = scalar_text = None
        if sem.scalar_decl and not raw.decl_indexed and sem.scalar_decl[0] is not None and sem.scalar_decl[0].path is None and sem.scalar_decl[1]:
            scalar_decl, scalar_text = loc_span(sem.scalar_decl[0]), sem.scalar_decl[1]
        fix = FixData(
            sem_text=text,
            index=index.index if index else (),
            guard_line=stmt_line,
            guard_indent=indent,
            guard_target=text,
            scalar_decl=scalar_decl,
            scalar_decl_text=scalar_text,
            safe=index.safe if index else True,
            alternatives=index.alternatives if index else (),
        )
    return Finding(raw.code, rule.severity, message, at_span, tuple(sem.dims or ()), tuple(related), fix)


def _origin(sem: Sem) -> str:
    """Where the message says the array comes from: its declaration, or the view that
    shows an undeclared one is an array."""
    decl_line = _line_no(sem.decl)
    if decl_line is not None:
        return f" (declared at {decl_line})"
    if sem.evidence:
        at = sem.evidence[0].at
        return f" (indexed as one at {_line_no(at)}: `{at.block.segment(at.node)}`)"
    if sem.library:
        return f" (a field JAX gives every `{sem.library}`)"
    return ""


def _related(raw: RawFinding) -> list[Related]:
    """The declaration, the use inside the helper, and every call on the way that passes
    the whole array on to a further helper."""
    sem = raw.sem
    related = []
    if sem.decl is not None:
        related.append(Related(loc_span(sem.decl), "the semaphore array is declared here", sem.decl.path))
    for view in sem.evidence[:3]:
        related.append(Related(loc_span(view.at), "indexed as a semaphore array here", view.at.path))
    if raw.via is not None and raw.via.use is not None:
        related.append(Related(loc_span(raw.via.use), f"`{raw.via.helper}` uses the semaphore here", raw.via.use.path))
    if raw.handed is not None and raw.handed.use is not None:
        related.append(Related(loc_span(raw.handed.use), f"`{raw.handed.helper}` passes the whole array on here",
                               raw.handed.use.path))
    if raw.via is not None:
        seen = {(r.span, r.path) for r in related}
        for site in raw.sites[1:]:
            if (loc_span(site.arg), site.arg.path) not in seen:
                related.append(Related(loc_span(site.arg), f"the whole array is passed on to `{site.callee}` here",
                                       site.arg.path))
    return related


def _fix_hint(text: str, index: IndexSuggestion | None, slice_names: frozenset[str]) -> str:
    """What the message advises: the edit the safe index fix makes ("e.g."), or every
    choice when the index is not certain."""
    if index is None:
        return "; pass one semaphore (index it with `.at[...]`)"
    if index.safe:
        return f"; pass one semaphore, e.g. `{indexed_text(text, index.index, slice_names)}`"
    shown = [f"`{indexed_text(text, i, slice_names)}`" for i in (index.index, *index.alternatives)]
    listed = shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"
    return f"; pass one semaphore; which index is right is not certain: {listed}"
