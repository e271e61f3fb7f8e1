"""The UDF adapter: one row per page whatever happens, statuses from exceptions, batch == one by one."""

from __future__ import annotations

import time

import pandas as pd

from pagesieve.models.page import CleanResult
from pagesieve.schemas import DOCUMENTS
from pagesieve.udfs.clean import PAGE_COLUMNS, cached_method, clean_batches, clean_pages, freeze

GOOD = b"<html><body><div><p>" + b"A real paragraph of article text. " * 10 + b"</p></div></body></html>"


def page(page_id: str, body: bytes | None, content_type: str = "text/html", charset: str | None = None) -> dict:
    return {"page_id": page_id, "url": f"http://x.test/{page_id}", "body": body, "charset_hint": charset,
            "content_type": content_type}


BAD_PAGES = [
    page("empty", b""),
    page("none", None),
    page("junk", bytes((i * 37 + 11) % 256 for i in range(3000))),
    page("nobody", b"<html><head><title>x</title></head></html>"),
    page("badutf8", b"<html><body><p>" + b"caf\xe9 and cr\xe8me " * 20 + b"</p></body></html>", charset="utf-8"),
    page("png", b"\x89PNG\r\n\x1a\n" + bytes(100), content_type="image/png"),
    page("good", GOOD),
]


def test_every_bad_input_gets_its_status_and_nothing_is_dropped():
    rows = clean_pages(cached_method("cnr", freeze({})), BAD_PAGES)
    assert [(r["page_id"], r["status"]) for r in rows] == [
        ("empty", "empty"), ("none", "empty"), ("junk", "not_html"), ("nobody", "empty"),
        ("badutf8", "ok"), ("png", "not_html"), ("good", "ok")]
    assert all(r["method"] == "cnr/1" and r["elapsed_ms"] >= 0 for r in rows)
    assert "caf\u00e9 and cr\u00e8me" in rows[4]["text"]


class Exploding:
    """A batched method whose batch call fails on one page: the adapter must retry page by page."""

    name, version, batched = "exploding", 1, True

    def process(self, page):
        if page.page_id == "boom":
            raise RuntimeError("kaboom\nwith a second line")
        return CleanResult(text=page.page_id)

    def process_batch(self, pages):
        return [self.process(p) for p in pages]


class Slow:
    name, version, batched = "slow", 1, False

    def process(self, page):
        while True:
            time.sleep(0.01)


class SlowBatch(Exploding):
    """A batched method that hangs on page "stuck": the batch must run out of time, then each page alone."""

    name = "slowbatch"

    def process(self, page):
        while page.page_id == "stuck":
            time.sleep(0.01)
        return CleanResult(text=page.page_id)


def test_a_runaway_batch_times_out_and_only_its_runaway_page_is_lost():
    start = time.perf_counter()
    rows = clean_pages(SlowBatch(), [page("a", GOOD), page("stuck", GOOD), page("c", GOOD)], timeout_s=0.2)
    assert [(r["status"], r["text"]) for r in rows] == [("ok", "a"), ("timeout", None), ("ok", "c")]
    assert time.perf_counter() - start < 3          # 0.6 s for the batch, then 0.2 s for the stuck page alone


def test_failing_batch_is_retried_page_by_page():
    pages = [page("a", GOOD), page("boom", GOOD), page("c", GOOD)]
    rows = clean_pages(Exploding(), pages)
    assert [(r["status"], r["text"]) for r in rows] == [("ok", "a"), ("error", None), ("ok", "c")]
    assert rows[1]["error"] == "RuntimeError: kaboom with a second line"


def test_deadline_turns_a_runaway_page_into_a_timeout_row():
    start = time.perf_counter()
    rows = clean_pages(Slow(), [page("a", GOOD)], timeout_s=0.2)
    assert rows[0]["status"] == "timeout" and time.perf_counter() - start < 2


def test_batches_in_and_out_keep_order_count_and_schema():
    frame = pd.DataFrame(BAD_PAGES * 3)[PAGE_COLUMNS]
    halves = [frame.iloc[:10], frame.iloc[10:]]
    out = pd.concat(clean_batches("cnr", freeze({}), None, iter(halves)))
    assert list(out.columns) == DOCUMENTS.names
    assert list(out["page_id"]) == list(frame["page_id"])
    one_by_one = pd.concat(clean_batches("cnr", freeze({}), None, iter([frame.iloc[[i]] for i in range(len(frame))])))
    cols = ["page_id", "status", "text", "title"]
    assert out[cols].reset_index(drop=True).equals(one_by_one[cols].reset_index(drop=True))


def test_method_is_built_once_per_worker_and_settings():
    cached_method.cache_clear()
    for _ in range(3):
        cached_method("cnr", freeze({"adjust": 1}))
    cached_method("cnr", freeze({}))
    assert cached_method.cache_info().misses == 2 and cached_method.cache_info().hits == 2


def test_web2text_batches_equal_one_by_one_and_bound_torch_threads(shared_data):
    import torch

    from pagesieve.eval import iter_gold_pages

    gold = list(iter_gold_pages(shared_data / "cleaneval", "web2text_test"))[:8]
    real = [page(f"ce/{g.page_id}", g.html) for g in gold]
    frame = pd.DataFrame(BAD_PAGES + real)[PAGE_COLUMNS]
    batched = pd.concat(clean_batches("web2text", freeze({"device": "cpu"}), None, iter([frame])))
    one_by_one = pd.concat(clean_batches("web2text", freeze({"device": "cpu"}), None,
                                         iter([frame.iloc[[i]] for i in range(len(frame))])))
    cols = ["page_id", "status", "text", "title", "method"]
    assert batched[cols].reset_index(drop=True).equals(one_by_one[cols].reset_index(drop=True))
    status = dict(zip(batched["page_id"], batched["status"], strict=True))
    assert status["junk"] == "not_html" and status["png"] == "not_html" and status["empty"] == "empty"
    assert all(status[p["page_id"]] == "ok" for p in real) and set(batched["method"]) == {"web2text/1"}
    assert torch.get_num_threads() == 1          # conf/web2text.toml threads = 1: one worker per core


def test_a_task_with_a_gpu_gets_it_only_for_methods_with_an_auto_device():
    from pagesieve.udfs.clean import task_gpu_overrides

    assert task_gpu_overrides("web2text", freeze({}), None) == freeze({})       # no GPU given: settings as they are
    assert dict(task_gpu_overrides("web2text", freeze({"lam": 0.2}), ["3", "4"])) == {"lam": 0.2, "device": "cuda:3"}
    assert task_gpu_overrides("web2text", freeze({"device": "cpu"}), ["3"]) == freeze({"device": "cpu"})
    assert task_gpu_overrides("cnr", freeze({}), ["0"]) == freeze({})            # no device setting at all
