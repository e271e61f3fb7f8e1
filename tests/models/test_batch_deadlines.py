"""Per-page deadlines and times inside a batch (hostile-pass issue, item 10): a batch of n pages used to get
n x the page deadline, so one page could run 17 s under a 5 s deadline with the batch's average as its time.
Each page now keeps its own deadline and its own time: its own stage (`batch_inputs`) is timed and guarded page
by page, the shared stage (`batch_results`) is split by `batch_weight` (blocknet: blocks), and a page whose
share overruns gets `timeout` while the rest of its batch is redone without it (runner.py, "Batches")."""

from __future__ import annotations

import time

import pytest

from pagesieve.models.page import Cleaner, CleanResult, PageInput, build_runner, run_pages
from pagesieve.models.registry import build_method


def small(i: int) -> PageInput:
    text = b"Paragraph %d of a short article about the weather in the hills. " % i
    return PageInput(b"<html><body><article><p>" + text * 30 + b"</p></article></body></html>", page_id=f"s{i}")


@pytest.mark.slow  # waits out real deadlines
def test_a_slow_page_of_a_batch_times_out_alone_with_its_own_time() -> None:
    method = build_method("blocknet", {"device": "cpu"})
    big = PageInput(b"<html><body>" + b"<span>a</span>" * 100_000 + b"</body></html>", page_id="big")
    alone = run_pages(method, [big])[0]
    assert alone.result.status == "ok"
    timeout_s = alone.elapsed_ms / 1000 / 4          # the big page needs 4 deadlines; a small one ~1/50 of one
    pages = [small(i) for i in range(6)] + [big] + [small(i) for i in range(6, 12)]
    expected = [o.result for o in run_pages(method, pages[:6] + pages[7:])]

    outcomes = run_pages(method, pages, timeout_s=timeout_s)

    assert outcomes[6].result.status == "timeout"
    assert [o.result for o in outcomes[:6] + outcomes[7:]] == expected
    # the big page's time is its own (parse, then its blocks up to the deadline), not the batch's average
    assert timeout_s * 1000 <= outcomes[6].elapsed_ms < 2 * timeout_s * 1000
    assert all(o.elapsed_ms < timeout_s * 1000 for o in outcomes[:6] + outcomes[7:])


class Weighted(Cleaner):
    """A batched method whose shared stage takes 20 ms of Python work per unit of weight, the page id's number."""

    name = "weighted"
    batched = True
    passes = 0

    def batch_inputs(self, page):
        return page.page_id

    def batch_weight(self, inputs):
        return float(inputs)

    def batch_results(self, inputs):
        type(self).passes += 1
        end = time.perf_counter() + 0.02 * sum(map(float, inputs))
        while time.perf_counter() < end:      # Python work: the alarm can stop it
            pass
        return [CleanResult(text=i) for i in inputs]

    def process(self, page):
        return self.batch_results([self.batch_inputs(page)])[0]


def test_a_page_whose_share_of_the_shared_stage_overruns_times_out_and_the_rest_is_redone_without_it() -> None:
    pages = [PageInput(b"<html><body><p>x</p></body></html>", page_id=w) for w in ("1", "2", "50", "1")]
    outcomes = run_pages(Weighted(), pages, timeout_s=0.5)     # page "50": 1 s of its 1.08 s pass
    assert [(o.result.status, o.result.text) for o in outcomes] == [("ok", "1"), ("ok", "2"), ("timeout", ""),
                                                                  ("ok", "1")]
    assert Weighted.passes == 2                                 # stopped once, redone once as a batch
    assert 450 <= outcomes[2].elapsed_ms < 1000                 # its share of the stopped pass: its deadline
    # the others: their share of the redone pass (20 ms a unit of weight), plus parsing a tiny page
    assert all(abs(o.elapsed_ms - 20 * w) < 10 for o, w in zip(outcomes[:2] + outcomes[3:], (1, 2, 1), strict=True))


def test_the_process_guard_keeps_the_page_deadline_inside_a_batch_too() -> None:
    pages = [PageInput(b"<html><body><p>x</p></body></html>", page_id=w) for w in ("1", "50", "1")]
    runner = build_runner(Weighted, Weighted.settings_class(), timeout_s=0.5, guard="process")
    try:
        outcomes = runner.run(pages)
    finally:
        runner.close()
    assert [o.result.status for o in outcomes] == ["ok", "timeout", "ok"] and runner.restarts == 0
