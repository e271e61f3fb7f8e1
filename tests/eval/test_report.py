"""The evaluation report's figures per dataset and method, from page scores built by hand."""

from __future__ import annotations

from pagesieve.eval.harness import PageScore
from pagesieve.eval.metrics import PRF
from pagesieve.eval.report import _markdown, summarise


def _score(method: str, page_id: str, status: str, n_chars: int) -> PageScore:
    prf = PRF(1.0, 1.0, 1.0, 3, 3, 3) if n_chars else PRF(0.0, 0.0, 0.0, 0, 0, 3)
    return PageScore("pool", page_id, method, status, prf, prf, bool(n_chars), 1.0, n_chars)


def test_empty_outputs_are_counted_per_method_whatever_the_status() -> None:
    scores = [_score("a", "1", "ok", 120), _score("a", "2", "empty", 0), _score("a", "3", "timeout", 0),
              _score("b", "1", "ok", 80), _score("b", "2", "ok", 10), _score("b", "3", "ok", 0)]
    summary = summarise(scores)
    assert (summary["pool"]["a"]["empty_outputs"], summary["pool"]["b"]["empty_outputs"]) == (2, 1)
    table = _markdown(summary, {}, {"date": "d", "machine": "m", "python": "3.11", "warmup": 0})
    assert "| method | pages | empty |" in table
    assert "| b | 3 | 1 |" in table
