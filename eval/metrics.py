"""Extraction metrics: bag-of-words and shingle P/R/F1 on text, exact match, aggregates, block scores,
and snippet (with / without passage) counts by trafilatura's protocol."""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence

from pagesieve.models.page.overlap import PRF, bag_of_words_prf, bag_prf, tokenize
from pagesieve.models.page.overlap import WORD as _WORD
from pagesieve.models.page.overlap import prf as _prf
from pagesieve.models.page.words import fold_space

__all__ = [
    "PRF",
    "tokenize",
    "bag_of_words_prf",
    "bag_prf",
    "shingles",
    "shingle_prf",
    "shingle_counts",
    "exact_match",
    "aggregate",
    "aeb_aggregate",
    "block_scores",
    "block_counts_scores",
    "snippet_counts",
    "snippet_scores",
]

def _words(text: str, casefold: bool) -> list[str]:
    return tokenize(text) if casefold else _WORD.findall(text)


def shingles(text: str, n: int = 4, *, casefold: bool = False) -> Counter[tuple[str, ...]]:
    """Multiset of the n-token shingles of `text`, as the article-extraction-benchmark builds them.

    Tokens are the `\\w+` matches of `text`, not case-folded by default (the benchmark compiles
    `\\w+` with `re.IGNORECASE`, which does not change the matched text). A text of k >= n tokens
    gives the k - n + 1 shingles `tokens[i:i+n]`; a text of 1 <= k < n tokens gives one shingle of
    all its k tokens; a text without tokens gives none.
    """
    if n < 1:
        raise ValueError(f"shingle size must be >= 1, got {n}")
    tokens = _words(text, casefold)
    if not tokens:
        return Counter()
    return Counter(tuple(tokens[i : i + n]) for i in range(max(1, len(tokens) - n + 1)))


def _shingle_tp_fp_fn(predicted: str, gold: str, n: int, casefold: bool) -> tuple[int, int, int]:
    p, g = shingles(predicted, n, casefold=casefold), shingles(gold, n, casefold=casefold)
    return sum((p & g).values()), sum((p - g).values()), sum((g - p).values())


def shingle_prf(predicted: str, gold: str, n: int = 4, *, casefold: bool = False) -> PRF:
    """Shingle precision, recall and F1 of one page (the article-extraction-benchmark's page metric).

    With P and G the shingle multisets of `shingles(predicted, n)` and `shingles(gold, n)`:
    tp = |P ∩ G|, fp = |P − G|, fn = |G − P| (multiset intersection and differences),
    precision = tp / (tp + fp), recall = tp / (tp + fn), F1 = 2·precision·recall / (precision + recall).
    Tokens are not case-folded unless `casefold=True`. The empty conventions are those of
    `bag_of_words_prf`: both texts without tokens -> 1/1/1; empty prediction -> P = 1, R = 0, F1 = 0;
    empty gold -> P = 0, R = 1, F1 = 0. `true_positives`, `predicted` and `gold` count shingles.
    """
    tp, fp, fn = _shingle_tp_fp_fn(predicted, gold, n, casefold)
    return _prf(tp, tp + fp, tp + fn)


def shingle_counts(predicted: str, gold: str, n: int = 4, *, casefold: bool = False) -> tuple[float, float, float]:
    """The benchmark's per-page (tp, fp, fn): shingle counts as in `shingle_prf`, divided by tp + fp + fn.

    The three values sum to 1 so that every page weighs the same; when both texts have no tokens
    (tp + fp + fn = 0) the result is (0.0, 0.0, 0.0).
    """
    tp, fp, fn = _shingle_tp_fp_fn(predicted, gold, n, casefold)
    total = tp + fp + fn
    return (tp / total, fp / total, fn / total) if total else (0.0, 0.0, 0.0)


def exact_match(predicted: str, gold: str, *, casefold: bool = False) -> bool:
    """True when the `\\w+` token sequences of the two texts are equal (the benchmark's page "accuracy").

    Order and repetitions matter; punctuation and white space do not. Not case-folded unless
    `casefold=True`, as in the benchmark. Two texts without tokens match.
    """
    return _words(predicted, casefold) == _words(gold, casefold)


def aggregate(scores: Sequence[PRF]) -> dict:
    """Summaries of per-page scores: page count, mean, median and micro average.

    `mean` and `median` are the arithmetic mean and the median over pages of each page's precision,
    recall and F1 (a page with an even count takes the mean of the two middle values). `micro` pools
    the counts: precision = Σ true_positives / Σ predicted, recall = Σ true_positives / Σ gold,
    F1 from those two, with the empty conventions of `bag_of_words_prf` on the sums.

    Returns:
        {"pages": n, "mean": {"precision", "recall", "f1"}, "median": {...}, "micro": {...}}.

    Raises:
        ValueError: `scores` is empty.
    """
    if not scores:
        raise ValueError("aggregate() needs at least one page score")
    keys = ("precision", "recall", "f1")
    micro = _prf(sum(s.true_positives for s in scores), sum(s.predicted for s in scores), sum(s.gold for s in scores))
    return {
        "pages": len(scores),
        "mean": {k: statistics.fmean(getattr(s, k) for s in scores) for k in keys},
        "median": {k: statistics.median(getattr(s, k) for s in scores) for k in keys},
        "micro": {k: getattr(micro, k) for k in keys},
    }


def aeb_aggregate(scores: Sequence[PRF], exact_matches: Sequence[bool] | None = None) -> dict:
    """The article-extraction-benchmark's summary of per-page `shingle_prf` scores.

    precision = mean of the page precisions over pages with a non-empty prediction (`predicted` > 0);
    recall = mean of the page recalls over pages with a non-empty gold (`gold` > 0); F1 =
    2·precision·recall / (precision + recall) from these averages (0 when both are 0), not the mean
    of page F1s. The benchmark leaves out pages without shingles on the respective side exactly so;
    where no page qualifies (the benchmark would fail) the value is 1.0, the convention for a page
    with an empty side. With `exact_matches` (one `exact_match` result per page) the result also
    has "accuracy", the share of True.

    Returns:
        {"pages", "precision", "recall", "f1", "precision_pages", "recall_pages"[, "accuracy"]},
        where *_pages are the numbers of pages each average is taken over.

    Raises:
        ValueError: `scores` is empty or `exact_matches` has a different length.
    """
    if not scores:
        raise ValueError("aeb_aggregate() needs at least one page score")
    p_vals = [s.precision for s in scores if s.predicted > 0]
    r_vals = [s.recall for s in scores if s.gold > 0]
    precision = statistics.fmean(p_vals) if p_vals else 1.0
    recall = statistics.fmean(r_vals) if r_vals else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    out = {
        "pages": len(scores),
        "precision": precision,
        "recall": recall,
        "f1": f1,
        "precision_pages": len(p_vals),
        "recall_pages": len(r_vals),
    }
    if exact_matches is not None:
        if len(exact_matches) != len(scores):
            raise ValueError(f"{len(exact_matches)} exact-match flags for {len(scores)} pages")
        out["accuracy"] = sum(map(bool, exact_matches)) / len(scores)
    return out


def block_scores(predicted: Sequence[bool], gold: Sequence[bool]) -> dict:
    """Block classification scores of the content class (True = content), every block weighted equally.

    As in Web2Text (ECIR 2018, Table 1): over aligned blocks, tp = predicted and gold content,
    fp = predicted content but gold boilerplate, fn = predicted boilerplate but gold content,
    tn = both boilerplate; accuracy = (tp + tn) / blocks, precision = tp / (tp + fp),
    recall = tp / (tp + fn), F1 = 2·precision·recall / (precision + recall). Any 0/0 is 0 (so a
    page set without content blocks in gold and prediction has accuracy 1 and P = R = F1 = 0; no
    blocks at all gives 0 everywhere). For several pages concatenate their block labels.

    Returns:
        {"blocks", "accuracy", "precision", "recall", "f1", "tp", "fp", "fn", "tn"}.

    Raises:
        ValueError: the two sequences differ in length.
    """
    if len(predicted) != len(gold):
        raise ValueError(f"block label lengths differ: {len(predicted)} predicted, {len(gold)} gold")
    pairs = Counter((bool(p), bool(g)) for p, g in zip(predicted, gold, strict=True))
    return block_counts_scores(pairs[True, True], pairs[True, False], pairs[False, True], pairs[False, False])


def block_counts_scores(tp: int, fp: int, fn: int, tn: int) -> dict:
    """`block_scores` from the four counts (summed over pages, for instance)."""
    n = tp + fp + fn + tn
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {
        "blocks": n,
        "accuracy": (tp + tn) / n if n else 0.0,
        "precision": precision,
        "recall": recall,
        "f1": f1,
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "tn": tn,
    }


def snippet_counts(predicted: str, with_: Sequence[str], without: Sequence[str]) -> tuple[int, int, int, int]:
    """(tp, fp, fn, tn) of one page's snippet gold, as trafilatura's own evaluation counts them.

    White-space runs of the output and of each passage are folded to one space (and the ends
    stripped); then a `with` passage found in the output (plain, case-sensitive substring) is a
    true positive and one missing a false negative, a `without` passage found is a false positive
    and one absent a true negative. Protocol of adbar/trafilatura `tests/eval_common.py`
    (`norm`, `count_item`, commit d5f6da0) and, before it, `tests/comparison.py` / `tests/evaluate.py`
    (`evaluate_result`).
    """
    text = fold_space(predicted)
    tp = sum(1 for w in with_ if fold_space(w) in text)
    fp = sum(1 for w in without if fold_space(w) in text)
    return tp, fp, len(with_) - tp, len(without) - fp


def snippet_scores(tp: int, fp: int, fn: int, tn: int) -> dict:
    """Precision, recall, F1 and accuracy of snippet counts summed over all passages of all pages (micro).

    precision = tp/(tp+fp), recall = tp/(tp+fn), F1 = 2·tp/(2·tp+fp+fn), accuracy = (tp+tn)/all
    passages; each 0.0 when its denominator is 0 (adbar/trafilatura `tests/eval_common.py`,
    `ConfusionMatrix.scores`).

    Returns:
        {"passages", "precision", "recall", "f1", "accuracy", "tp", "fp", "fn", "tn"}.
    """
    n = tp + fp + fn + tn
    return {
        "passages": n,
        "precision": tp / (tp + fp) if tp + fp else 0.0,
        "recall": tp / (tp + fn) if tp + fn else 0.0,
        "f1": 2 * tp / (2 * tp + fp + fn) if 2 * tp + fp + fn else 0.0,
        "accuracy": (tp + tn) / n if n else 0.0,
        "tp": tp,
        "fp": fp,
        "fn": fn,
        "tn": tn,
    }
