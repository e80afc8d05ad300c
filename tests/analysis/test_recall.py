"""An edit that takes the code back (an undo, a character typed and deleted) finds the
blocks and results of the text it returns to: nothing runs, and what the analyzer says
equals a fresh analysis.  A result whose dependencies changed meanwhile is not taken."""

import random
import re

from pallas_lsp.analysis.engine import ModuleAnalyzer
from pallas_lsp.analysis.parse import LEFT_BLOCKS, BlockList
from pallas_lsp.analysis.caches import CACHES

from .helpers import dedent
from .test_relay import CORPUS, KERNEL, edited_corpus, everything, fresh

IDENT = re.compile(r"[A-Za-z_]\w*")


def analysed(analyzer: ModuleAnalyzer, text: str) -> tuple:
    out = everything(analyzer, analyzer.analyze(text))
    assert out == fresh(text), text
    return out


def test_a_character_typed_and_deleted_runs_nothing():
    analyzer = ModuleAnalyzer()
    before = analysed(analyzer, KERNEL)
    typed = KERNEL.replace("cp = pltpu.make_async_copy(x_hbm, buf.at[slot], sems)",
                           "cp = pltpu.make_async_copy(x_hbm, buf.at[slotx], sems)")
    assert analysed(analyzer, typed) != before and analyzer.stats["entries_run"] >= 1
    assert analysed(analyzer, KERNEL) == before
    assert analyzer.stats["entries_run"] == 0


MODULE = dedent('''
    import jax
    import jax.numpy as jnp
    from jax.experimental import pallas as pl
    from jax.experimental.pallas import tpu as pltpu


    def pick(sems):
        return sems


    def kernel(x_hbm, o_ref, buf, sems):
        cp = pltpu.make_async_copy(x_hbm, buf, pick(sems))
        cp.start()
        cp.wait()
        o_ref[...] = buf[...]


    out = pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pltpu.ANY)],
        scratch_shapes=[pltpu.VMEM((8, 128), jnp.float32), pltpu.SemaphoreType.DMA((2,))],
    )(jnp.zeros((8, 128)))
''')


def test_a_result_whose_helper_changed_meanwhile_is_not_taken():
    analyzer = ModuleAnalyzer()
    whole_array = analysed(analyzer, MODULE)
    assert any(f.code == "PAL001" for f in whole_array[0])
    typed = MODULE.replace("(jnp.zeros((8, 128)))", "(jnp.zeros((8, 128x)))")
    analysed(analyzer, typed)
    indexed = typed.replace("    return sems\n", "    return sems.at[0]\n")
    analysed(analyzer, indexed)
    back = indexed.replace("128x", "128")   # the call's block is back; `pick` is not
    assert not any(f.code == "PAL001" for f in analysed(analyzer, back)[0])
    assert analyzer.stats["entries_run"] >= 1
    assert analysed(analyzer, MODULE) == whole_array   # both back: nothing runs
    assert analyzer.stats["entries_run"] == 0


def typed_and_deleted(lines: list[str], rng: random.Random) -> list[list[str]]:
    """Characters typed after names on two random lines, then deleted in turn."""
    spots = [i for i, line in enumerate(lines) if line.startswith(" ") and IDENT.search(line)]
    first, second = rng.sample(spots, 2)
    versions = [lines]
    for i, ch in ((first, "x"), (second, "y")):
        current = list(versions[-1])
        m = rng.choice(list(IDENT.finditer(current[i])))
        current[i] = current[i][:m.end()] + ch + current[i][m.end():]
        versions.append(current)
    return versions[1:] + [versions[1], lines]


def test_corpus_modules_typed_and_deleted_equal_a_fresh_analysis():
    recalled = sum(stats[-1]["entries_run"] == 0 for stats in edited_corpus(typed_and_deleted, 2))
    assert recalled >= len(CORPUS) // 2


def test_blocks_that_left_come_back_until_later_ones_push_them_out():
    blocks = BlockList()
    texts = [f"x{i} = {i}\n" for i in range(LEFT_BLOCKS + 2)]
    made = [blocks.update(texts[0])[0]]
    for text in texts[1:]:
        before = blocks.blocks
        made.append(blocks.update(text)[0])
        assert made[-2].tree is not None   # parsed: the block holds its tree
        blocks.retire(before)
    first = made[0]
    assert first not in CACHES.holders[first.tree]   # pushed out: it let its tree go
    assert blocks.update(texts[0])[0] is not first
    assert blocks.update(texts[2])[0] is made[2]    # still kept: the same block returns
    assert made[2] in CACHES.holders[made[2].tree]
