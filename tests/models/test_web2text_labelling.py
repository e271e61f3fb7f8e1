"""Web2Text automatic block labelling (section 4.1): constructed cases with exact labels, and real CleanEval pages."""

from __future__ import annotations

import random
import time
from itertools import islice

import numpy as np
import pytest

from pagesieve.eval import bag_of_words_prf, iter_gold_pages
from pagesieve.models.page import parse_page, visible_text
from pagesieve.models.web2text.labelling import (
    GAP_OPEN,
    _dp_pairs,
    align,
    align_blocks,
    label_blocks,
    normalise,
)

INTRO = "The quick brown fox jumps over the lazy dog near the riverbank at dawn."
BODY = "Meanwhile, seventeen owls debated quantum chromodynamics beneath a crimson moon."
OUTRO = "Finally the committee adjourned, having resolved nothing of any consequence whatsoever."
MENU = "Home | About us | Products and services | Contact"


def test_identical_text_is_all_content():
    blocks = [INTRO, BODY, OUTRO]
    assert align(blocks, "\n".join(blocks)) == [1.0, 1.0, 1.0]
    assert label_blocks(blocks, "\n".join(blocks)) == [True, True, True]


def test_gold_is_a_subset_of_blocks_in_order():
    blocks = [MENU, INTRO, "Advertisement: buy cheap widgets today", BODY, "Copyright 2007 Example Inc.", OUTRO]
    gold = "\n".join([INTRO, BODY, OUTRO])
    assert label_blocks(blocks, gold) == [False, True, False, True, False, True]
    assert align(blocks, gold) == [0.0, 1.0, 0.0, 1.0, 0.0, 1.0]


@pytest.mark.parametrize("keep_first", [True, False])
def test_repeated_menu_only_the_copy_in_the_gold_is_content(keep_first):
    # The menu occurs twice on the page, so none of its snippets is unique on the page; only its
    # position between the (unique) content decides which copy the gold's single menu aligns with.
    blocks = [MENU, INTRO, BODY, MENU]
    gold = "\n".join([MENU, INTRO, BODY] if keep_first else [INTRO, BODY, MENU])
    expected = [True, True, True, False] if keep_first else [False, True, True, True]
    assert label_blocks(blocks, gold) == expected


def test_repeated_short_blocks_between_content():
    blocks = ["Home", INTRO, "Home", BODY, "Home", OUTRO, "Home"]
    gold = "\n".join([INTRO, "Home", BODY, OUTRO])
    assert label_blocks(blocks, gold) == [False, True, True, True, False, True, False]


def test_threshold_two_thirds():
    # A 30-character block of which 18 (60 %), 20 (2/3) or 21 (70 %) characters are in the gold.
    block = "abcdefghijklmnopqrstuvwxyz0123"
    for kept, share, label in [(18, 0.6, False), (20, 2 / 3, True), (21, 0.7, True)]:
        gold = "\n".join([INTRO, block[:kept], OUTRO])
        shares = align([INTRO, block, OUTRO], gold)
        assert shares[0] == shares[2] == 1.0
        assert shares[1] == pytest.approx(share)
        assert label_blocks([INTRO, block, OUTRO], gold) == [True, label, True]
        assert label_blocks([INTRO, block, OUTRO], gold, threshold=0.65) == [True, kept >= 20, True]


def test_gold_text_that_is_in_no_block():
    blocks = [INTRO, "Subscribe to our newsletter", BODY]
    gold = "\n".join([INTRO, "An editor's note that the page never showed, rather long.", BODY])
    assert label_blocks(blocks, gold) == [True, False, True]
    # Extra text inside a paragraph does not stop the block around it from aligning.
    gold = INTRO[:30] + " [sic] (inserted by the annotator) " + INTRO[30:] + "\n" + BODY
    assert label_blocks(blocks, gold) == [True, False, True]


def test_boilerplate_does_not_pick_up_scattered_letters():
    # The gap between the content has gold text and a boilerplate block that share many letters
    # but no run longer than a few characters: the boilerplate must stay unaligned.
    blocks = [INTRO, "Copyright all rights reserved by the site owner", OUTRO]
    gold = "\n".join([INTRO, "Totally different words are placed right here instead", OUTRO])
    shares = align(blocks, gold)
    assert shares[1] < 0.3
    assert label_blocks(blocks, gold) == [True, False, True]


def test_empty_gold_is_all_boilerplate():
    blocks = [INTRO, BODY]
    assert align(blocks, "") == [0.0, 0.0]
    assert label_blocks(blocks, "") == [False, False]
    assert label_blocks(blocks, " \n\t ") == [False, False]


def test_empty_blocks():
    assert align([], "some gold") == []
    assert label_blocks([], "") == []
    blocks = ["", INTRO, "   \n ", BODY, ""]
    assert align(blocks, INTRO + " " + BODY) == [0.0, 1.0, 0.0, 1.0, 0.0]
    assert label_blocks(blocks, INTRO + " " + BODY) == [False, True, False, True, False]


def test_unicode_case_and_whitespace():
    blocks = ["ÉCOLE NORMALE SUPÉRIEURE — İstanbul şubesi", "Главная страница", "日本語のテキストはここにあります。",
              "🍕 Pizza 🍕 menu"]
    gold = "école   normale\nsupérieure — İSTANBUL ŞUBESİ\n日本語のテキスト はここにあります。"
    assert normalise("İ a\u00a0B\n") == "İab"
    assert label_blocks(blocks, gold) == [True, False, True, False]


def test_whitespace_and_line_breaks_do_not_matter():
    blocks = [INTRO, BODY]
    gold = INTRO.replace(" ", "\n").upper() + "\n\n" + BODY.replace(" ", "")
    assert align(blocks, gold) == [1.0, 1.0]


def test_reordered_gold_keeps_the_longest_order_preserving_part():
    # The alignment is monotone: with the gold in the order B, A of page blocks A, B, only the
    # longer of the two (A here) can be aligned; the other is labelled boilerplate.
    a_block = INTRO + " " + OUTRO
    blocks = [a_block, BODY]
    assert label_blocks(blocks, BODY + "\n" + a_block) == [True, False]
    assert label_blocks(blocks[::-1], BODY + "\n" + a_block) == [True, True]


def test_block_texts_spanning_a_gold_paragraph():
    # Inline blocks (links) split a gold paragraph; the short ones are aligned through their neighbours.
    blocks = ["For details see", "here", "or the", "FAQ page", "and mail us any questions you have."]
    gold = "For details see here or the FAQ page and mail us any questions you have."
    assert label_blocks(blocks, gold) == [True] * 5


def _reference_best_score(x: str, y: str, gap_open: int) -> int:
    """Best alignment score by enumerating chains of matched pairs (tiny inputs only)."""

    def gaps(dx: int, dy: int) -> int:
        return gap_open * ((dx > 0) + (dy > 0))

    pairs = [(i, j) for i in range(len(x)) for j in range(len(y)) if x[i] == y[j]]
    best: dict[tuple[int, int], int] = {}
    for i, j in pairs:  # pairs are sorted by (i, j): predecessors come first
        score = 1 - gaps(i, j)
        for (pi, pj), s in best.items():
            if pi < i and pj < j:
                score = max(score, s + 1 - gaps(i - pi - 1, j - pj - 1))
        best[(i, j)] = score
    result = -gaps(len(x), len(y))
    for (i, j), s in best.items():
        result = max(result, s - gaps(len(x) - i - 1, len(y) - j - 1))
    return result


def _score(pairs: list[tuple[int, int]], a: int, b: int, gap_open: int) -> int:
    score, pi, pj = 0, -1, -1
    for i, j in [*pairs, (a, b)]:
        score -= gap_open * ((i - pi > 1) + (j - pj > 1))
        pi, pj = i, j
    return score + len(pairs)


def test_dp_is_optimal_on_random_small_pairs():
    rng = random.Random(7)
    for _ in range(300):
        x = "".join(rng.choice("abc") for _ in range(rng.randint(1, 7)))
        y = "".join(rng.choice("abc") for _ in range(rng.randint(1, 7)))
        gap_open = rng.choice([0, 1, 2, GAP_OPEN])
        pairs = _dp_pairs(np.array([ord(c) for c in x]), np.array([ord(c) for c in y]), gap_open)
        assert all(x[i] == y[j] for i, j in pairs)
        assert all(i1 < i2 and j1 < j2 for (i1, j1), (i2, j2) in zip(pairs, pairs[1:], strict=False))
        assert _score(pairs, len(x), len(y), gap_open) == _reference_best_score(x, y, gap_open), (x, y, gap_open)


def test_greedy_fallback_is_counted_and_still_labels():
    blocks = [MENU, INTRO, BODY, "Footer text nobody wants", OUTRO]
    gold = "\n".join([INTRO, BODY, OUTRO])
    # Snippets of 200 characters are never unique here, so everything is one remaining pair,
    # and with a DP limit of 100 cells it must be aligned greedily.
    res = align_blocks(blocks, gold, snippet_length=200, max_dp_cells=100)
    assert res.greedy_fallbacks == 1 and res.dp_pairs == 0
    # A remaining pair (gold note vs. footer) above the DP limit is aligned greedily and counted.
    blocks = [INTRO, "Footer text nobody wants", BODY, OUTRO]
    gold = "\n".join([INTRO, "An editor's note that the page never showed.", BODY, OUTRO])
    res = align_blocks(blocks, gold, max_dp_cells=0)
    assert res.greedy_fallbacks == 1 and res.dp_pairs == 0
    assert [s >= 2 / 3 for s in res.shares] == [True, False, True, True]
    res = align_blocks(blocks, gold)
    assert (res.greedy_fallbacks, res.dp_pairs) == (0, 1)
    # No snippet of a page made of two copies of the menu is unique: the greedy scan takes the
    # first copy at or after its position.
    res = align_blocks([MENU, MENU], MENU, max_dp_cells=0)
    assert res.greedy_fallbacks == 1 and res.anchor_runs == 0
    assert res.shares == [1.0, 0.0]
    res = align_blocks([MENU, INTRO], MENU + INTRO, snippet_length=200, max_dp_cells=0)
    assert res.greedy_fallbacks == 1 and res.shares == [0.0, 0.0]  # no 200-character window to start from


def test_large_repetitive_page_needs_no_deep_recursion():
    # 100k characters of a repeated menu around the content: no recursion, bounded DP.
    blocks = [MENU] * 1000 + [INTRO, BODY] + [MENU] * 1000
    res = align_blocks(blocks, INTRO + "\n" + BODY)
    assert res.shares[1000:1002] == [1.0, 1.0]
    assert sum(res.shares[:1000]) + sum(res.shares[1002:]) == 0.0
    assert res.dp_cells <= 2_000_000 * (res.dp_pairs or 1)


def test_real_cleaneval_pages(shared_data):
    pages = list(islice(iter_gold_pages(shared_data / "cleaneval", "web2text_train"), 20))
    assert len(pages) == 20
    f1s: list[float] = []
    seconds = 0.0
    fallbacks = 0
    for page in pages:
        blocks = visible_text(parse_page(page.html).body).split("\n\n")
        start = time.perf_counter()
        res = align_blocks(blocks, page.gold)
        seconds += time.perf_counter() - start
        fallbacks += res.greedy_fallbacks
        predicted = "\n".join(b for b, s in zip(blocks, res.shares, strict=True) if s >= 2 / 3)
        f1s.append(bag_of_words_prf(predicted, page.gold).f1)
    mean_f1 = sum(f1s) / len(f1s)
    print(f"web2text labelling, 20 CleanEval pages: mean BoW F1 {mean_f1:.4f}, "
          f"{seconds / len(pages) * 1000:.1f} ms per page, {fallbacks} greedy fallbacks")
    assert mean_f1 >= 0.9


def test_snippet_labels_mark_only_the_blocks_a_passage_quotes():
    from pagesieve.models.web2text import label_blocks_from_snippets

    blocks = ["Die Katze sitzt auf der Matte, und   der Hund schläft.", "Teilen auf Facebook", "der Hund",
              "Impressum", "a"]
    labels, weights = label_blocks_from_snippets(
        blocks, with_=["sitzt auf der Matte, und der Hund"], without=["Teilen auf Facebook | Twitter"])
    # block 0 holds the `with` passage (white space folded); block 2 lies inside it; block 1 inside `without`
    assert labels == [1.0, 0.0, 1.0, 0.0, 0.0]
    assert weights == [1.0, 1.0, 1.0, 0.0, 0.0]     # "Impressum" is quoted by nothing; "a" is too short


def test_snippet_labels_leave_a_block_both_kinds_quote_unlabelled():
    from pagesieve.models.web2text import label_blocks_from_snippets

    labels, weights = label_blocks_from_snippets(["Mehr lesen"], with_=["Mehr lesen"], without=["Mehr lesen"])
    assert (labels, weights) == ([0.0], [0.0])
