"""Is a gap between two methods' mean scores real? A paired bootstrap over the pages.

A benchmark's test part holds 5 to 150 pages, and one hard page moves a mean F1 by 0.01 or more, so two means
alone do not say whether a gap of 0.003 would hold on other pages like these. The paired bootstrap (Efron and
Tibshirani 1993, ch. 16) draws the pages again with replacement, each page with both methods' scores, and
reads the interval from the spread of the difference of means. Pairing matters: most of a page's score is the
page (its size, its markup), which both methods share. On a handful of pages (Scrapinghub's test part has 5)
the interval is too narrow: a resample can only repeat the pages there are, so it cannot show the pages that
were not drawn. `FEW_PAGES` marks where to read it as a hint only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["FEW_PAGES", "PairedDifference", "paired_bootstrap", "paired_bootstrap_counts"]

FEW_PAGES = 20        # under this many pages the percentile interval understates the spread (see above)

_CHUNK = 1_000        # resamples drawn at once: memory stays at _CHUNK x pages indices


@dataclass(frozen=True, slots=True)
class PairedDifference:
    """mean(a) - mean(b) over the same pages, its bootstrap interval at `level`, and the page-by-page count."""

    pages: int
    difference: float
    low: float
    high: float
    level: float
    wins: int        # pages where a scores higher than b
    ties: int
    losses: int

    @property
    def excludes_zero(self) -> bool:
        """The interval lies wholly on one side of 0: the gap holds at this level."""
        return self.low > 0 or self.high < 0


def _interval(statistic: Callable[[np.ndarray], np.ndarray], pages: int, rounds: int, level: float,
              seed: int) -> tuple[float, float]:
    """Percentile interval at `level` of `statistic` over `rounds` resamples of `pages` pages; `statistic` maps a
    (resamples, pages) array of drawn page indices to one value per resample."""
    rng = np.random.default_rng(seed)
    values = np.concatenate([statistic(rng.integers(0, pages, size=(min(_CHUNK, rounds - start), pages)))
                             for start in range(0, rounds, _CHUNK)])
    tail = (1 - level) / 2
    low, high = np.quantile(values, [tail, 1 - tail])
    return float(low), float(high)


def paired_bootstrap(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray, rounds: int = 10_000,
                     level: float = 0.95, seed: int = 0) -> PairedDifference:
    """Percentile interval of mean(a - b) from `rounds` resamples of the pages (a[i] and b[i]: page i).

    Fixed `seed`: the same scores give the same interval on every run.
    """
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.ndim != 1 or a.shape != b.shape:
        raise ValueError(f"paired scores need two 1-d sequences of one length, got shapes {a.shape} and {b.shape}")
    if len(a) == 0:
        raise ValueError("no pages to compare")
    if not np.isfinite(a).all() or not np.isfinite(b).all():
        raise ValueError("scores must be finite numbers")
    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1, got {level}")
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, got {rounds}")
    d = a - b
    low, high = _interval(lambda draw: d[draw].mean(axis=1), len(d), rounds, level, seed)
    return PairedDifference(pages=len(d), difference=float(d.mean()), low=low, high=high, level=level,
                            wins=int((d > 0).sum()), ties=int((d == 0).sum()), losses=int((d < 0).sum()))


def _micro_f1(counts: np.ndarray) -> np.ndarray:
    """F1 of summed (tp, fp, fn, ...) counts along the last axis: 2tp / (2tp + fp + fn), 0 where that is 0/0."""
    tp, fp, fn = counts[..., 0], counts[..., 1], counts[..., 2]
    denominator = 2 * tp + fp + fn
    return np.divide(2 * tp, denominator, out=np.zeros(denominator.shape), where=denominator > 0)


def paired_bootstrap_counts(a: np.ndarray, b: np.ndarray, rounds: int = 10_000, level: float = 0.95,
                            seed: int = 0) -> PairedDifference:
    """`paired_bootstrap` for a score summed over pages before it is divided (snippet F1 of trafilatura's
    protocol: tp, fp, fn, tn of all passages): each resample draws pages, sums each method's counts over them
    and takes the difference of the two F1s. `a` and `b`: (pages, 4) counts, row i from page i. `wins` compares
    the pages' own F1s."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.ndim != 2 or a.shape != b.shape or a.shape[1] < 3 or len(a) == 0:
        raise ValueError(f"paired counts need two (pages, 4) arrays of one shape, got {a.shape} and {b.shape}")
    low, high = _interval(lambda draw: _micro_f1(a[draw].sum(axis=1)) - _micro_f1(b[draw].sum(axis=1)), len(a),
                          rounds, level, seed)
    per_page = _micro_f1(a) - _micro_f1(b)
    return PairedDifference(pages=len(a), difference=float(_micro_f1(a.sum(0)) - _micro_f1(b.sum(0))),
                            low=low, high=high, level=level, wins=int((per_page > 0).sum()),
                            ties=int((per_page == 0).sum()), losses=int((per_page < 0).sum()))
