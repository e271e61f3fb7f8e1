"""Extraction metrics on text: bag-of-words precision, recall and F1."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

__all__ = ["PRF", "tokenize", "bag_of_words_prf"]

_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True, slots=True)
class PRF:
    precision: float
    recall: float
    f1: float
    true_positives: int
    predicted: int
    gold: int


def tokenize(text: str) -> list[str]:
    """Unicode word tokens (`\\w+`), case-folded."""
    return _WORD.findall(text.casefold())


def bag_of_words_prf(predicted: str, gold: str) -> PRF:
    """Token multiset P/R/F1 of a prediction against gold.

    Conventions for empty sides: both empty -> P = R = F1 = 1; empty prediction with non-empty
    gold -> P = 1 (nothing wrong was said), R = 0, F1 = 0; empty gold with a non-empty
    prediction -> P = 0, R = 1, F1 = 0.
    """
    p, g = Counter(tokenize(predicted)), Counter(tokenize(gold))
    tp = sum((p & g).values())
    n_p, n_g = sum(p.values()), sum(g.values())
    precision = tp / n_p if n_p else 1.0
    recall = tp / n_g if n_g else 1.0
    f1 = 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)
    if n_p == 0 and n_g == 0:
        f1 = 1.0
    elif n_p == 0 or n_g == 0:
        f1 = 0.0
    return PRF(precision, recall, f1, tp, n_p, n_g)
