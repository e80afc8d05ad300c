"""Whether a choice is a fix: applied to the text, it must remove its finding and leave no
finding of another rule behind (an index that makes the copy's wait hang, a semantics tuple
that makes an output revisited).  Checked by analysing the text with the choice applied,
so it is for callers that apply choices without the author looking (`check --fix
--unsafe-fixes`) and for the editor's quick-fix menu (judged off the event loop, once per
analysed text), and bounded to files of `MAX_LINES` lines.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from .findings import Finding
from .fixes import Fix, apply_edits

MAX_LINES = 5_000


class ChoiceCheck:
    """Judges the choices offered on one text (each applied choice analysed once)."""

    def __init__(self, text: str, findings: Sequence[Finding], analyze: Callable[[str], Sequence[Finding]]) -> None:
        self.text = text
        self.before = Counter(f.code for f in findings)
        self.analyze = analyze
        self.enabled = text.count("\n") < MAX_LINES
        self._verdicts: dict[tuple, bool] = {}

    def judged(self, finding: Finding, fix: Fix) -> bool | None:
        """`sound`'s answer if it is known without analysing (None: not judged yet)."""
        if fix.safe or not self.enabled:
            return True
        return self._verdicts.get((finding.code, fix.edits))

    def sound(self, finding: Finding, fix: Fix) -> bool:
        """True for a safe fix; for a choice, whether applying it leaves nothing behind
        (True unchecked past `MAX_LINES`)."""
        if fix.safe or not self.enabled:
            return True
        key = (finding.code, fix.edits)
        if key not in self._verdicts:
            after = Counter(f.code for f in self.analyze(apply_edits(self.text, fix.edits)))
            self._verdicts[key] = not (after - self.before) and after[finding.code] < self.before[finding.code]
        return self._verdicts[key]
