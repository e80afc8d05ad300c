"""The published-files latency benchmark: which files it picks, how it judges the goals."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import published
import published_latency

KERNEL = "from jax.experimental.pallas import tpu as pltpu\nout = pl.pallas_call(k, grid=(2,))(x)\n"


def _module(path: Path, lines: int, head: str = KERNEL) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(head + "".join(f"x{i} = {i}\n" for i in range(lines - head.count("\n") - 1)))


def test_kernel_files_are_large_tpu_kernel_modules_once_each_largest_first(tmp_path):
    root = tmp_path / "lib-1.0-py3-none-any"
    _module(root / "lib" / "big.py", 1500)
    _module(root / "lib" / "bigger.py", 2500)
    _module(root / "lib" / "copy_of_big.py", 1500)            # the same text: counted once
    _module(root / "lib" / "small.py", 900)                   # under 1,000 lines
    _module(root / "lib" / "big_test.py", 3000)               # a test module
    _module(root / "lib" / "gpu.py", 3000, "import jax\nout = pl.pallas_call(k)(x)\n")   # not TPU
    _module(root / "lib" / "no_call.py", 3000, "from jax.experimental.pallas import tpu as pltpu\n")
    found = published.kernel_files([root])
    assert [(f.name, f.lines) for f in found] == [("lib/lib/bigger.py", 2500), ("lib/lib/big.py", 1500)]
    assert len(published.kernel_files([root], count=1)) == 1


def _file(edit, p95, open_ms, rss):
    row = {"edit_median": edit, "edit_p95": p95, "open": open_ms, "rss": rss}
    return {"rows": {"pallas-lsp": row}}


def test_goals_take_the_median_file_and_the_worst_file():
    met = published_latency.goals([_file(10, 40, 100, 60), _file(30, 90, 140, 80), _file(15, 20, 50, 70)])
    assert [(label.split(" <=")[0], v, ok) for label, v, ok in met] == [
        ("the median file's edit median", 15, True), ("every file's edit median", 30, True),
        ("every file's edit p95", 90, True), ("every open", 140, True), ("peak RSS", 80, True)]
    missed = published_latency.goals([_file(10, 40, 100, 60), _file(12, 40, 100, 60), _file(60, 120, 160, 101)])
    assert [ok for _, _, ok in missed] == [True, False, False, False, False]
    assert published_latency.goals([_file(None, None, None, None)])[0][2] is False   # no answer: not met
