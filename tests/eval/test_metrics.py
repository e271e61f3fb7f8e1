"""Metrics on hand-computed cases; the arithmetic is written next to every expected number."""

from __future__ import annotations

import statistics

import pytest

from pagesieve.eval.metrics import (
    PRF,
    aeb_aggregate,
    aggregate,
    bag_of_words_prf,
    block_scores,
    exact_match,
    shingle_counts,
    shingle_prf,
    shingles,
    snippet_counts,
    snippet_scores,
    tokenize,
)

approx = pytest.approx


def _check(s: PRF, precision: float, recall: float, f1: float, tp: int, predicted: int, gold: int) -> None:
    assert (s.precision, s.recall, s.f1) == (approx(precision), approx(recall), approx(f1))
    assert (s.true_positives, s.predicted, s.gold) == (tp, predicted, gold)


# --- tokenize / bag of words -------------------------------------------------------------------


def test_tokenize_unicode_and_case_folding():
    assert tokenize("Hello, WORLD! it's 2-for-1_deal") == ["hello", "world", "it", "s", "2", "for", "1_deal"]
    assert tokenize("Straße") == ["strasse"]  # casefold: ß -> ss
    assert tokenize("Привет, МИР!") == ["привет", "мир"]
    assert tokenize("東京は晴れ 東京") == ["東京は晴れ", "東京"]  # a CJK run without spaces is one token
    assert tokenize("cafe\u0301") == ["cafe"]  # a combining accent (Mn) is not \w: it splits tokens
    assert tokenize("  ... \n") == []


def test_bow_repeated_tokens():
    # pred {the:3, cat:2} (5 tokens), gold {the:2, cat:1, sat:1} (4 tokens)
    # tp = min(3,2) + min(2,1) = 3; P = 3/5; R = 3/4; F1 = 2*.6*.75/(.6+.75) = .9/1.35 = 2/3
    _check(bag_of_words_prf("the cat the cat the", "the cat sat the"), 0.6, 0.75, 2 / 3, 3, 5, 4)


def test_bow_unicode_case_folding():
    # "STRASSE" and "Straße" both fold to "strasse"; Cyrillic upper/lower fold together: tp = 3 of 3
    _check(bag_of_words_prf("STRASSE Привет МИР", "Straße, привет мир."), 1, 1, 1, 3, 3, 3)
    # CJK: "東京は晴れ" is one token, the gold "東京は 晴れ" two -> tp = 0; P = 0/1, R = 0/2, F1 = 0
    _check(bag_of_words_prf("東京は晴れ", "東京は 晴れ"), 0, 0, 0, 0, 1, 2)


def test_bow_empty_conventions():
    _check(bag_of_words_prf("", ""), 1, 1, 1, 0, 0, 0)  # both empty -> 1/1/1
    _check(bag_of_words_prf("!!", " -- "), 1, 1, 1, 0, 0, 0)  # no tokens counts as empty
    _check(bag_of_words_prf("", "a b"), 1, 0, 0, 0, 0, 2)  # empty prediction: P = 1, R = 0/2, F1 = 0
    _check(bag_of_words_prf("a b c", ""), 0, 1, 0, 0, 3, 0)  # empty gold: P = 0/3, R = 1, F1 = 0


# --- shingles ------------------------------------------------------------------------------------


def test_shingles_construction():
    assert shingles("a b c d e") == {("a", "b", "c", "d"): 1, ("b", "c", "d", "e"): 1}  # 5 - 4 + 1 = 2
    assert shingles("a b c d") == {("a", "b", "c", "d"): 1}  # exactly n tokens: 1 shingle
    assert shingles("a, b!") == {("a", "b"): 1}  # 2 < 4 tokens: one shingle of all tokens
    assert shingles("...") == {}  # no tokens, no shingle
    assert shingles("x y x y x y", n=2) == {("x", "y"): 3, ("y", "x"): 2}  # 6 - 2 + 1 = 5 shingles
    assert shingles("The cat") == {("The", "cat"): 1}  # not case-folded by default
    with pytest.raises(ValueError):
        shingles("a", n=0)


def test_shingle_prf_hand_example():
    # pred {abcd, bcde}, gold {abcd, bcdf}: tp = 1 (abcd), fp = 1 (bcde), fn = 1 (bcdf)
    # P = 1/(1+1) = .5; R = 1/(1+1) = .5; F1 = .5
    _check(shingle_prf("a b c d e", "a b c d f"), 0.5, 0.5, 0.5, 1, 2, 2)
    assert shingle_counts("a b c d e", "a b c d f") == approx((1 / 3, 1 / 3, 1 / 3))  # 1,1,1 over 3


def test_shingle_prf_repeated_shingles():
    # n = 2: pred {xy:3, yx:2}, gold "x y x y" {xy:2, yx:1}
    # tp = min(3,2) + min(2,1) = 3; fp = (3-2) + (2-1) = 2; fn = 0
    # P = 3/5 = .6; R = 3/3 = 1; F1 = 2*.6*1/1.6 = .75; normalised (3, 2, 0)/5
    _check(shingle_prf("x y x y x y", "x y x y", n=2), 0.6, 1, 0.75, 3, 5, 3)
    assert shingle_counts("x y x y x y", "x y x y", n=2) == approx((0.6, 0.4, 0.0))


def test_shingle_prf_texts_shorter_than_n():
    # pred one shingle (a,b), gold one shingle (a,b,c): no common shingle -> tp 0, fp 1, fn 1
    _check(shingle_prf("a b", "a b c"), 0, 0, 0, 0, 1, 1)
    # both are the single shingle (a,b,c): tp = 1 -> 1/1/1
    _check(shingle_prf("a b c", "a, b, c."), 1, 1, 1, 1, 1, 1)


def test_shingle_prf_case_and_empty():
    # case differs in the first token: (The,cat,sat,down) != (the,cat,sat,down) -> tp 0
    _check(shingle_prf("The cat sat down", "the cat sat down"), 0, 0, 0, 0, 1, 1)
    _check(shingle_prf("The cat sat down", "the cat sat down", casefold=True), 1, 1, 1, 1, 1, 1)
    # empty prediction vs 5 tokens (2 shingles): P = 1 by convention, R = 0/2, F1 = 0
    _check(shingle_prf("", "a b c d e"), 1, 0, 0, 0, 0, 2)
    assert shingle_counts("", "a b c d e") == (0.0, 0.0, 1.0)  # (0, 0, 2) / 2
    # empty gold vs 2 tokens (1 shingle): P = 0/1, R = 1, F1 = 0
    _check(shingle_prf("x y", ""), 0, 1, 0, 0, 1, 0)
    assert shingle_counts("x y", "") == (0.0, 1.0, 0.0)  # (0, 1, 0) / 1
    _check(shingle_prf("", "?!"), 1, 1, 1, 0, 0, 0)  # both empty
    assert shingle_counts("", "") == (0.0, 0.0, 0.0)  # 0/0 left at 0


def test_exact_match():
    assert exact_match("Hello, world!", "Hello   world")  # punctuation and spacing ignored
    assert not exact_match("hello world", "Hello world")  # not case-folded (as the benchmark)
    assert exact_match("hello world", "Hello world", casefold=True)
    assert not exact_match("world hello", "hello world")  # order matters
    assert not exact_match("a a", "a")  # repetition matters
    assert exact_match("", " ... ")  # no tokens on both sides


# --- aggregates ----------------------------------------------------------------------------------


def _three_pages() -> list[PRF]:
    return [
        bag_of_words_prf("a b c d", "a b c d"),  # tp 4, pred 4, gold 4: P 1, R 1, F1 1
        bag_of_words_prf("a b", "a b c d e f"),  # tp 2, pred 2, gold 6: P 1, R 1/3, F1 = (2/3)/(4/3) = .5
        bag_of_words_prf("a x y z", "a w"),  # tp 1, pred 4, gold 2: P .25, R .5, F1 = .25/.75 = 1/3
    ]


def test_aggregate_mean_median_micro():
    agg = aggregate(_three_pages())
    assert agg["pages"] == 3
    # mean P = (1 + 1 + .25)/3 = .75; mean R = (1 + 1/3 + 1/2)/3 = 11/18; mean F1 = (1 + .5 + 1/3)/3 = 11/18
    assert agg["mean"] == approx({"precision": 0.75, "recall": 11 / 18, "f1": 11 / 18})
    # medians of (1, 1, .25), (1, 1/3, .5), (1, .5, 1/3)
    assert agg["median"] == approx({"precision": 1.0, "recall": 0.5, "f1": 0.5})
    # micro: tp = 4+2+1 = 7, pred = 4+2+4 = 10, gold = 4+6+2 = 12: P = .7, R = 7/12, F1 = 2*7/(10+12) = 7/11
    assert agg["micro"] == approx({"precision": 0.7, "recall": 7 / 12, "f1": 7 / 11})


def test_aggregate_empty_raises():
    with pytest.raises(ValueError):
        aggregate([])
    with pytest.raises(ValueError):
        aeb_aggregate([])


def _aeb_pages() -> list[tuple[str, str]]:
    return [
        ("a b c d e", "a b c d f"),  # P .5, R .5 (pred 2, gold 2 shingles)
        ("", "a b c d"),  # P 1 (no prediction: left out of the precision mean), R 0
        ("x y", ""),  # P 0, R 1 (no gold: left out of the recall mean)
        ("p q r s t", "p q r s"),  # pred {pqrs, qrst}, gold {pqrs}: tp 1, fp 1, fn 0 -> P .5, R 1
        ("", ""),  # both empty: left out of both means
    ]


def test_aeb_aggregate_hand_computed():
    pages = _aeb_pages()
    scores = [shingle_prf(p, g) for p, g in pages]
    agg = aeb_aggregate(scores, [exact_match(p, g) for p, g in pages])
    # precision over pages 1, 3, 4: (.5 + 0 + .5)/3 = 1/3; recall over pages 1, 2, 4: (.5 + 0 + 1)/3 = .5
    # F1 = 2 * (1/3) * .5 / (1/3 + .5) = (1/3)/(5/6) = .4 (the mean of page F1s would be (.5+0+0+2/3+1)/5)
    assert agg == approx(
        {
            "pages": 5,
            "precision": 1 / 3,
            "recall": 0.5,
            "f1": 0.4,
            "precision_pages": 3,
            "recall_pages": 3,
            "accuracy": 0.2,
        }  # only page 5 matches exactly: 1/5
    )
    assert "accuracy" not in aeb_aggregate(scores)
    with pytest.raises(ValueError):
        aeb_aggregate(scores, [True])


def test_aeb_aggregate_matches_benchmark_formula():
    """The same pages through a transcription of the benchmark's metrics_from_tp_fp_fns."""
    counts = [shingle_counts(p, g) for p, g in _aeb_pages()]

    def p_score(tp, fp, fn):
        return 1.0 if fp == fn == 0 else 0.0 if tp == fp == 0 else tp / (tp + fp)

    def r_score(tp, fp, fn):
        return 1.0 if fp == fn == 0 else 0.0 if tp == fn == 0 else tp / (tp + fn)

    precision = statistics.mean(p_score(*c) for c in counts if c[0] + c[1] > 0)
    recall = statistics.mean(r_score(*c) for c in counts if c[0] + c[2] > 0)
    agg = aeb_aggregate([shingle_prf(p, g) for p, g in _aeb_pages()])
    assert (agg["precision"], agg["recall"]) == approx((precision, recall))
    assert agg["f1"] == approx(2 * precision * recall / (precision + recall))


def test_aeb_aggregate_no_prediction_at_all():
    # every prediction empty: no page qualifies for the precision mean -> 1.0; recall (0 + 0)/2 = 0; F1 = 0
    agg = aeb_aggregate([shingle_prf("", "a b"), shingle_prf("", "c d e f g")])
    assert (agg["precision"], agg["recall"], agg["f1"], agg["precision_pages"]) == (1.0, 0.0, 0.0, 0)


# --- block scores --------------------------------------------------------------------------------


def test_block_scores_hand_computed():
    pred = [True, True, False, False, True, False]
    gold = [True, False, True, False, True, False]
    s = block_scores(pred, gold)
    # tp = blocks 0,4 = 2; fp = block 1 = 1; fn = block 2 = 1; tn = blocks 3,5 = 2
    # accuracy = (2+2)/6 = 2/3; P = 2/3; R = 2/3; F1 = 2/3
    assert (s["tp"], s["fp"], s["fn"], s["tn"], s["blocks"]) == (2, 1, 1, 2, 6)
    assert (s["accuracy"], s["precision"], s["recall"], s["f1"]) == approx((2 / 3, 2 / 3, 2 / 3, 2 / 3))


def test_block_scores_many_pages_concatenated():
    # page 1: pred [T, F], gold [T, T]; page 2: pred [T], gold [F] -> tp 1, fp 1, fn 1, tn 0
    # accuracy = 1/3; P = 1/2; R = 1/2; F1 = 1/2
    s = block_scores([True, False] + [True], [True, True] + [False])
    assert (s["accuracy"], s["precision"], s["recall"], s["f1"]) == approx((1 / 3, 0.5, 0.5, 0.5))


def test_block_scores_all_negative_and_zero_division():
    # no content anywhere: accuracy 3/3 = 1; P = 0/0 := 0; R = 0/0 := 0; F1 := 0
    s = block_scores([False] * 3, [False] * 3)
    assert (s["accuracy"], s["precision"], s["recall"], s["f1"]) == (1.0, 0.0, 0.0, 0.0)
    # nothing predicted as content, one gold content block: accuracy 1/2; P = 0/0 := 0; R = 0/1; F1 = 0
    s = block_scores([False, False], [True, False])
    assert (s["accuracy"], s["precision"], s["recall"], s["f1"]) == (0.5, 0.0, 0.0, 0.0)
    s = block_scores([], [])
    assert (s["blocks"], s["accuracy"], s["f1"]) == (0, 0.0, 0.0)


def test_block_scores_length_mismatch():
    with pytest.raises(ValueError, match="lengths differ"):
        block_scores([True, False], [True])


# --- snippets (trafilatura's with / without protocol) ------------------------------------------


def test_snippet_counts_and_micro_scores_on_hand_made_pages():
    # page 1: white space folded on both sides, so "quick brown fox" is found across "quick  brown\nfox"
    #   with: "quick brown fox" found (tp), "lazy dog" missing (fn); without: "Cookie banner" found (fp),
    #   "Impressum" absent (tn)
    page1 = snippet_counts("The quick  brown\nfox jumps.\n\nCookie   banner",
                           ["quick brown fox", "lazy  dog"], [" Cookie banner ", "Impressum"])
    assert page1 == (1, 1, 1, 1)
    # page 2: matching is case-sensitive, as trafilatura's: "hello" is not in "Hello World" (fn)
    page2 = snippet_counts("Hello World", ["Hello World", "hello"], ["Menu"])
    assert page2 == (1, 0, 1, 1)
    # an empty output finds nothing: every with passage a fn, every without passage a tn
    empty = snippet_counts("", ["a b", "c"], ["d"])
    assert empty == (0, 0, 2, 1)
    # micro over all passages of the three pages: tp 2, fp 1, fn 4, tn 3 (10 passages)
    tp, fp, fn, tn = (sum(c) for c in zip(page1, page2, empty, strict=True))
    s = snippet_scores(tp, fp, fn, tn)
    assert (s["passages"], s["tp"], s["fp"], s["fn"], s["tn"]) == (10, 2, 1, 4, 3)
    assert s["precision"] == approx(2 / 3)            # 2 / (2 + 1)
    assert s["recall"] == approx(2 / 6)               # 2 / (2 + 4)
    assert s["f1"] == approx(2 * 2 / (2 * 2 + 1 + 4))  # 4/9 = 2PR/(P+R) = 2·(2/3)(1/3)/(2/3 + 1/3)
    assert s["accuracy"] == approx(5 / 10)            # (2 + 3) / 10
    # the empty page alone: 0/0 precision and F1 are 0, as in trafilatura's ConfusionMatrix
    alone = snippet_scores(*empty)
    assert (alone["precision"], alone["recall"], alone["f1"], alone["accuracy"]) == (0.0, 0.0, 0.0, approx(1 / 3))
    assert snippet_scores(0, 0, 0, 0)["accuracy"] == 0.0
