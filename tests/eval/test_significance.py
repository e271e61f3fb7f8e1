"""The paired bootstrap: exact where the answer is known, the textbook width where it is not, clear errors."""

from __future__ import annotations

import numpy as np
import pytest

from pagesieve.eval.significance import paired_bootstrap


def test_a_constant_gap_has_an_interval_of_that_gap_alone():
    rng = np.random.default_rng(1)
    b = rng.uniform(0.3, 1.0, 60)          # pages of very different difficulty: pairing removes all of it
    gap = paired_bootstrap(b + 0.02, b)
    assert gap.difference == pytest.approx(0.02)
    assert gap.low == pytest.approx(0.02) and gap.high == pytest.approx(0.02)
    assert (gap.wins, gap.ties, gap.losses, gap.pages) == (60, 0, 0, 60) and gap.excludes_zero


def test_equal_scores_tie_everywhere():
    gap = paired_bootstrap([0.5, 0.9, 0.0], [0.5, 0.9, 0.0])
    assert (gap.difference, gap.low, gap.high) == (0.0, 0.0, 0.0)
    assert (gap.wins, gap.ties, gap.losses) == (0, 3, 0) and not gap.excludes_zero


def test_the_interval_has_the_width_of_the_standard_error():
    # per-page gaps with spread 0.1 over 400 pages: the mean's standard error is 0.005, so the 95% interval
    # is mean +- 1.96 * 0.005 up to resampling noise
    rng = np.random.default_rng(7)
    b = rng.uniform(0.5, 0.9, 400)
    d = rng.normal(0.0, 0.1, 400)
    gap = paired_bootstrap(b + d, b, rounds=20_000)
    se = d.std(ddof=1) / np.sqrt(len(d))
    assert gap.low < gap.difference < gap.high
    assert gap.difference - gap.low == pytest.approx(1.96 * se, rel=0.08)
    assert gap.high - gap.difference == pytest.approx(1.96 * se, rel=0.08)
    narrower = paired_bootstrap(b + d, b, rounds=20_000, level=0.5)
    assert gap.low < narrower.low < narrower.high < gap.high


def test_the_seed_fixes_the_interval():
    rng = np.random.default_rng(3)
    a, b = rng.uniform(0, 1, 30), rng.uniform(0, 1, 30)
    assert paired_bootstrap(a, b, seed=5) == paired_bootstrap(list(a), list(b), seed=5)
    assert paired_bootstrap(a, b, seed=5).low != paired_bootstrap(a, b, seed=6).low


@pytest.mark.parametrize(("a", "b", "kwargs", "message"), [
    ([], [], {}, "no pages"),
    ([0.1, 0.2], [0.1], {}, "one length"),
    ([0.1, float("nan")], [0.1, 0.2], {}, "finite"),
    ([0.1], [0.2], {"level": 1.0}, "level"),
    ([0.1], [0.2], {"rounds": 0}, "rounds"),
])
def test_bad_input_is_refused_with_what_is_wrong(a, b, kwargs, message):
    with pytest.raises(ValueError, match=message):
        paired_bootstrap(a, b, **kwargs)


def test_paired_bootstrap_counts_is_the_difference_of_micro_f1s():
    from pagesieve.eval.significance import paired_bootstrap_counts

    # a finds every passage on every page; b misses half of them on page 2 and keeps one `without` passage
    a = np.array([[4, 0, 0, 2], [6, 0, 0, 1], [2, 0, 0, 3]])
    b = np.array([[4, 0, 0, 2], [3, 1, 3, 0], [2, 0, 0, 3]])
    d = paired_bootstrap_counts(a, b, rounds=2_000)
    micro_b = 2 * 9 / (2 * 9 + 1 + 3)
    assert d.difference == pytest.approx(1.0 - micro_b)
    assert 0 <= d.low <= d.difference <= d.high
    assert (d.wins, d.ties, d.losses) == (1, 2, 0)


def test_paired_bootstrap_counts_refuses_per_page_scores():
    from pagesieve.eval.significance import paired_bootstrap_counts

    with pytest.raises(ValueError, match="pages, 4"):
        paired_bootstrap_counts(np.array([0.5, 0.7]), np.array([0.4, 0.6]))
