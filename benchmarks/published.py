"""The published Pallas TPU code the benchmarks run on: pinned wheels from PyPI.

`fetch(dest)` downloads the missing wheels into `dest` and unpacks them; `kernel_files(roots)`
picks the large kernel modules among them. Nothing from the wheels is imported or run.
"""

from __future__ import annotations

import dataclasses
import hashlib
import pathlib
import re
import subprocess
import sys
import zipfile

# The public kernel libraries whose wheels ship Pallas TPU code.
WHEELS = ["tokamax==0.0.17", "tpu-inference==0.32.0", "sglang-jax==0.0.2", "ejkernel==0.0.80.3",
          "easydel==0.3.0", "qwix==0.1.8", "ringattention==0.1.2", "maxtext==0.2.5", "fjformer==0.0.91",
          "axlearn==0.0.1.post20240213000026", "recurrentgemma==1.0.1"]

_KERNEL = re.compile(r"\bpallas_call\s*\(")
_TPU = re.compile(r"\bpltpu\b|\bpallas\.tpu\b|\bmosaic\b")
_TEST = re.compile(r"(^test_.*|.*_test)\.py$")


def fetch(dest: pathlib.Path, wheels: list[str] = WHEELS) -> list[pathlib.Path]:
    """The unpacked roots of `wheels` (downloaded into `dest` when missing)."""
    dest.mkdir(parents=True, exist_ok=True)
    missing = [w for w in wheels if not list(dest.glob(_wheel_glob(w)))]
    if missing:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "--only-binary=:all:",
                        "--python-version", "3.12", "-d", str(dest), *missing], check=True)
    roots = []
    for whl in sorted(w for req in wheels for w in dest.glob(_wheel_glob(req))):
        out = dest / whl.stem
        if not out.exists():
            with zipfile.ZipFile(whl) as z:
                z.extractall(out)
        roots.append(out)
    return roots


def _wheel_glob(requirement: str) -> str:
    """`easydel==0.3.0` -> the file name pattern of its wheel."""
    name, _, version = requirement.partition("==")
    return f"{name.replace('-', '_')}-{version}-*.whl"


@dataclasses.dataclass(frozen=True)
class KernelFile:
    path: pathlib.Path
    root: pathlib.Path   # the unpacked wheel it comes from
    lines: int

    @property
    def name(self) -> str:
        return f"{self.root.name.split('-')[0]}/{self.path.relative_to(self.root)}"


def kernel_files(roots: list[pathlib.Path], min_lines: int = 1000, count: int = 12) -> list[KernelFile]:
    """The `count` largest modules of at least `min_lines` lines that call `pallas_call` for a
    TPU (tests left out; a file shipped by several wheels counted once), largest first."""
    seen: set[str] = set()
    found = []
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            if _TEST.match(path.name):
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            lines = text.count("\n") + 1
            if lines < min_lines or not _KERNEL.search(text) or not _TPU.search(text):
                continue
            digest = hashlib.sha256(text.encode()).hexdigest()
            if digest not in seen:
                seen.add(digest)
                found.append(KernelFile(path, root, lines))
    found.sort(key=lambda f: (-f.lines, f.name))
    return found[:count]
