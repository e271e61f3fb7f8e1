"""The per-page runner and its guards: one outcome per page whatever happens, statuses from exceptions,
a failing batch retried page by page, runaway work stopped from outside."""

from __future__ import annotations

import ctypes
import faulthandler
import re
import signal
import time

import pytest

from pagesieve.models.cnr import CNR
from pagesieve.models.page import (
    Cleaner,
    CleanResult,
    Extractor,
    ExtractResult,
    InlineRunner,
    PageInput,
    build_runner,
    prepare,
    run_pages,
    run_prepared,
)
from pagesieve.models.page.guard import REFIRE_S, PageTimeout
from pagesieve.models.page.supervised import SupervisedRunner

GOOD = b"<html><body><div><p>" + b"A real paragraph of article text. " * 10 + b"</p></div></body></html>"


def page(page_id: str, body: bytes | None, content_type: str = "text/html", charset: str | None = None) -> PageInput:
    return PageInput(body, url=f"http://x.test/{page_id}", page_id=page_id, charset_hint=charset,
                     content_type=content_type)


BAD_PAGES = [
    page("empty", b""),
    page("none", None),
    page("junk", bytes((i * 37 + 11) % 256 for i in range(3000))),
    page("nobody", b"<html><head><title>x</title></head></html>"),
    page("badutf8", b"<html><body><p>" + b"caf\xe9 and cr\xe8me " * 20 + b"</p></body></html>", charset="utf-8"),
    page("png", b"\x89PNG\r\n\x1a\n" + bytes(100), content_type="image/png"),
    page("good", GOOD),
]


class Echo(Cleaner):
    """Returns the page id as text; raises on "boom"; batched, so the fallback path is taken."""

    name = "echo"
    batched = True

    def process(self, page):
        if page.page_id == "boom":
            raise RuntimeError("kaboom\nwith a second line")
        return CleanResult(text=page.page_id)


class Stuck(Echo):
    """Never returns on page "stuck" (pure Python: the alarm can stop it)."""

    name = "stuck"

    def process(self, page):
        while page.page_id == "stuck":
            time.sleep(0.01)
        return CleanResult(text=page.page_id)


class SwallowsOnce(Echo):
    """On page "stuck", loops for up to two seconds and swallows the first PageTimeout, as a library's bare
    `except Exception` or a finalizer running at that moment would."""

    name = "swallows"

    def process(self, page):
        swallowed, start = 0, time.perf_counter()
        while page.page_id == "stuck" and time.perf_counter() - start < 2:
            try:
                time.sleep(0.01)
            except PageTimeout:
                if swallowed:
                    raise
                swallowed += 1
        return CleanResult(text=f"{page.page_id} swallowed {swallowed}")


class Backtracking(Cleaner):
    """On page "regex" runs one C call that takes longer than the universe: `re` never checks for signals,
    so only killing the process stops it."""

    name = "backtracking"

    def process(self, page):
        if page.page_id == "regex":
            re.match(r"(a+)+$", "a" * 64 + "b")
        return CleanResult(text=page.page_id)


class BatchedOnlyOnAGpu(Backtracking):
    """Batched as a class, but this instance runs page by page (as BlockNet on the CPU)."""

    name = "batched_only_on_a_gpu"
    batched = True

    def batches(self):
        return False


class Crashing(Cleaner):
    """Segfaults on page "crash" (a C extension gone wrong)."""

    name = "crashing"

    def process(self, page):
        if page.page_id == "crash":
            faulthandler.disable()      # pytest's crash report from the child is noise here
            ctypes.string_at(0)
        return CleanResult(text=page.page_id)


class OneRecord(Extractor):
    name = "one_record"

    def process(self, page):
        raise ValueError("no records today")


def test_every_bad_input_gets_its_status_and_nothing_is_dropped():
    outcomes = InlineRunner(CNR()).run(BAD_PAGES)
    assert [o.result.status for o in outcomes] == ["empty", "empty", "not_html", "empty", "ok", "not_html", "ok"]
    assert "caf\u00e9 and cr\u00e8me" in outcomes[4].result.text
    assert all(o.elapsed_ms >= 0 for o in outcomes)


def test_failing_batch_is_retried_page_by_page():
    outcomes = run_pages(Echo(), [page("a", GOOD), page("boom", GOOD), page("c", GOOD)])
    assert [(o.result.status, o.result.text) for o in outcomes] == [("ok", "a"), ("error", ""), ("ok", "c")]
    assert outcomes[1].result.error == "RuntimeError: kaboom with a second line"


def test_pages_that_fail_to_parse_keep_their_place_in_a_batch():
    outcomes = run_pages(Echo(), [page("a", GOOD), page("png", b"\x89PNG", content_type="image/png"), page("c", GOOD)])
    assert [(o.result.status, o.result.text) for o in outcomes] == [("ok", "a"), ("not_html", ""), ("ok", "c")]


def test_a_failure_is_a_result_of_the_methods_own_kind():
    outcome = run_pages(OneRecord(), [page("a", GOOD)])[0]
    assert outcome.result == ExtractResult(status="error", error="ValueError: no records today")


@pytest.mark.slow  # waits out a real alarm
def test_the_alarm_stops_a_runaway_batch_and_only_its_runaway_page_is_lost():
    # the loop of page "stuck" never ends by itself: the test finishing at all is the guard's doing
    outcomes = run_pages(Stuck(), [page("a", GOOD), page("stuck", GOOD), page("c", GOOD)], timeout_s=0.2)
    assert [(o.result.status, o.result.text) for o in outcomes] == [("ok", "a"), ("timeout", ""), ("ok", "c")]
    assert outcomes[1].result.error == "PageTimeout: page deadline exceeded"


def test_a_swallowed_timeout_fires_again_and_no_alarm_outlives_its_page():
    before = signal.getsignal(signal.SIGALRM)
    start = time.perf_counter()
    outcomes = run_pages(SwallowsOnce(), [page("stuck", GOOD), page("b", GOOD)], timeout_s=0.2)
    assert [o.result.status for o in outcomes] == ["timeout", "ok"]
    assert time.perf_counter() - start < 1.0          # stopped one re-fire after the deadline, not after 2 s
    assert signal.getsignal(signal.SIGALRM) == before and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    time.sleep(3 * REFIRE_S)                           # nothing fires after the block


def test_prepare_times_decoding_and_parsing_apart_and_never_raises():
    ok, bad = prepare(page("good", GOOD)), prepare(page("junk", BAD_PAGES[2].body))
    assert ok.page is not None and ok.status is None and ok.ms == ok.decode_ms + ok.parse_ms
    assert bad.page is None and (bad.status, bad.error) == ("not_html", "NotHtmlError: binary content")
    assert run_prepared(CNR(), bad).result.status == "not_html"


def test_the_process_guard_stops_a_c_call_the_alarm_cannot():
    runner = build_runner(Backtracking, Backtracking.settings_class(), timeout_s=0.5, guard="process")
    try:
        outcomes = runner.run([page("a", GOOD), page("regex", GOOD), page("c", GOOD)])
        assert [(o.result.status, o.result.text) for o in outcomes] == [("ok", "a"), ("timeout", ""), ("ok", "c")]
        assert runner.restarts == 1
        assert "worker process killed" in outcomes[1].result.error
    finally:
        runner.close()


def test_the_process_guard_asks_the_built_method_whether_it_batches():
    # sent page by page, as to any method that does not batch, the stuck page is stopped by the parent's deadline
    # (one restart); sent as a batch (what the class says), the child's own alarms would stop it (no restart)
    runner = SupervisedRunner(BatchedOnlyOnAGpu, BatchedOnlyOnAGpu.settings_class(), timeout_s=0.5)
    try:
        outcomes = runner.run([page("a", GOOD), page("regex", GOOD), page("c", GOOD)])
        assert [(o.result.status, o.result.text) for o in outcomes] == [("ok", "a"), ("timeout", ""), ("ok", "c")]
        assert runner.restarts == 1
    finally:
        runner.close()


def test_the_process_guard_survives_a_crashing_method():
    runner = SupervisedRunner(Crashing, Crashing.settings_class(), timeout_s=30)
    try:
        outcomes = runner.run([page("a", GOOD), page("crash", GOOD), page("c", GOOD)])
        assert [o.result.status for o in outcomes] == ["ok", "error", "ok"]
        assert outcomes[1].result.error.startswith("worker process died (exit code -11)")
    finally:
        runner.close()


def test_the_process_guard_gives_what_the_inline_runner_gives():
    pages = BAD_PAGES + [page("a", GOOD), page("boom", GOOD)]
    inline = [o.result for o in run_pages(Echo(), pages)]
    runner = build_runner(Echo, Echo.settings_class(), timeout_s=30, guard="process")
    try:
        assert [o.result for o in runner.run(pages)] == inline
        assert runner.restarts == 0
    finally:
        runner.close()


def test_a_method_that_cannot_be_built_fails_the_process_runner_loudly():
    class Unbuildable(Echo):
        name = "unbuildable"

        def __init__(self, settings=None):
            raise ImportError("needs `pip install nothing`")

    runner = SupervisedRunner(Unbuildable, None, timeout_s=1)
    with pytest.raises(RuntimeError, match="needs `pip install nothing`"):
        runner.run([page("a", GOOD)])


def test_an_unknown_guard_is_refused():
    with pytest.raises(ValueError, match="unknown guard 'thread'"):
        build_runner(Echo, None, guard="thread")
