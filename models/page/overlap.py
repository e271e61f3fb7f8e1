"""Bag-of-words overlap of two texts: the measure the evaluation scores main text with (`eval.metrics`) and the
`consensus` method votes with (each candidate's agreement with the others), one definition for both."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

__all__ = ["PRF", "WORD", "bag_of_words_prf", "bag_prf", "prf", "tokenize"]

WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True, slots=True)
class PRF:
    """Scores of one page; `true_positives`, `predicted` and `gold` are the unit counts they come from."""

    precision: float
    recall: float
    f1: float
    true_positives: int
    predicted: int
    gold: int


def tokenize(text: str) -> list[str]:
    """Unicode word tokens (`\\w+`), case-folded.

    A token is a maximal run of Unicode word characters (letters, digits, `_`) of `text.casefold()`,
    so `ß` folds to `ss` and punctuation and white space never count. Scripts written without
    spaces (Chinese, Japanese) give one token per unbroken run of characters.
    """
    return WORD.findall(text.casefold())


def prf(tp: int, n_pred: int, n_gold: int) -> PRF:
    """Precision, recall and F1 from unit counts, with `bag_of_words_prf`'s conventions for empty sides."""
    precision = tp / n_pred if n_pred else 1.0
    recall = tp / n_gold if n_gold else 1.0
    if n_pred == 0 and n_gold == 0:
        f1 = 1.0
    elif n_pred == 0 or n_gold == 0 or tp == 0:
        f1 = 0.0
    else:
        f1 = 2 * precision * recall / (precision + recall)
    return PRF(precision, recall, f1, tp, n_pred, n_gold)


def bag_of_words_prf(predicted: str, gold: str) -> PRF:
    """Token-multiset precision, recall and F1 of a prediction against the gold text of one page.

    With P and G the multisets of `tokenize(predicted)` and `tokenize(gold)` (case-folded `\\w+`):
    tp = |P ∩ G| (a token counts min(count in P, count in G) times), precision = tp / |P|,
    recall = tp / |G|, F1 = 2·precision·recall / (precision + recall) (0 when tp = 0).

    Empty sides: both empty -> P = R = F1 = 1; empty prediction with non-empty gold -> P = 1
    (nothing wrong was said), R = 0, F1 = 0; empty gold with a non-empty prediction -> P = 0,
    R = 1, F1 = 0.
    """
    return bag_prf(Counter(tokenize(predicted)), Counter(tokenize(gold)))


def bag_prf(predicted: Counter[str], gold: Counter[str]) -> PRF:
    """`bag_of_words_prf` of two token multisets already counted (a text compared with several others is
    tokenized once)."""
    return prf(sum((predicted & gold).values()), sum(predicted.values()), sum(gold.values()))
