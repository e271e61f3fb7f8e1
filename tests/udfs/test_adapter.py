"""The one UDF adapter: any kind of method, its table's rows and schema, order and count kept, batched ==
one by one, one method per worker and settings (closed when evicted)."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from pagesieve.models.page import Cleaner, CleanResult
from pagesieve.schemas import DOCUMENTS, RECORDS, SEGMENTS
from pagesieve.udfs import adapter
from pagesieve.udfs.adapter import PAGE_COLUMNS, MethodSpec, cached_runner, method_batches, task_spec

HERE = Path(__file__).resolve().parent
GOOD = b"<html><head><title>T</title></head><body><div><p>" + b"A real paragraph. " * 10 + b"</p></div></body></html>"
LIST = b"<html><body><ul><li>one <b>bed</b></li><li>two</li></ul></body></html>"


def page(page_id: str, body: bytes | None, content_type: str = "text/html") -> dict:
    return {"page_id": page_id, "url": f"http://x.test/{page_id}", "body": body, "charset_hint": None,
            "content_type": content_type}


PAGES = [page("empty", b""), page("junk", bytes((i * 37 + 11) % 256 for i in range(3000))),
         page("png", b"\x89PNG\r\n\x1a\n", content_type="image/png"), page("good", GOOD), page("list", LIST)]


def batches(rows: list[dict], size: int) -> list[pa.RecordBatch]:
    schema = pa.schema([(c, pa.binary() if c == "body" else pa.string()) for c in PAGE_COLUMNS])
    return [pa.RecordBatch.from_pylist(rows[i:i + size], schema=schema) for i in range(0, len(rows), size)]


def run(spec: MethodSpec, rows: list[dict], size: int) -> pa.Table:
    return pa.Table.from_batches(list(method_batches(spec, iter(batches(rows, size)))))


@pytest.fixture(scope="module", autouse=True)
def toy_methods():
    sys.path.insert(0, str(HERE))
    yield
    sys.path.remove(str(HERE))


def test_documents_keep_order_count_and_schema_and_batched_equals_one_by_one():
    spec = MethodSpec.of("cnr", kind="cleaner")
    out = run(spec, PAGES * 3, size=4)
    assert out.schema == DOCUMENTS
    assert out.column("page_id").to_pylist() == [p["page_id"] for p in PAGES * 3]
    assert out.column("status").to_pylist()[:5] == ["empty", "not_html", "not_html", "ok", "ok"]
    one_by_one = run(spec, PAGES * 3, size=1)
    assert out.drop_columns(["elapsed_ms"]).equals(one_by_one.drop_columns(["elapsed_ms"]))


def test_an_extractor_writes_one_records_row_per_record_and_one_status_row_per_other_page():
    out = run(MethodSpec.of("toy_methods:ListItems", kind="extractor"), PAGES, size=2)
    assert out.schema == RECORDS
    rows = [(r["page_id"], r["record_index"], r["status"]) for r in out.to_pylist()]
    assert rows == [("empty", None, "empty"), ("junk", None, "not_html"), ("png", None, "not_html"),
                    ("good", None, "empty"), ("list", 0, "ok"), ("list", 1, "ok")]
    first = out.to_pylist()[4]
    assert (first["method"], first["schema"], first["record_xpath"]) == ("list_items/1", "toy", "/html/body/ul/li[1]")
    assert first["fields"] == [{"name": "item", "value": "one bed", "xpath": "/html/body/ul/li[1]",
                                "origin": "annotated", "score": 1.0}]
    assert out.to_pylist()[3]["error"] == "no record found"


def test_a_segmenter_writes_its_block_tree():
    out = run(MethodSpec.of("toy_methods.TitleBlock", kind="segmenter"), [PAGES[0], PAGES[3]], size=2)
    assert out.schema == SEGMENTS
    rows = out.to_pylist()
    assert [(r["page_id"], r["block_id"], r["parent_id"], r["doc"], r["is_main"], r["status"]) for r in rows] == [
        ("empty", None, None, None, None, "empty"), ("good", "1", None, 1, False, "ok"),
        ("good", "1.1", "1", 10, True, "ok")]
    assert rows[2]["bbox"] == {"x": 0.0, "y": 0.0, "w": 1024.0, "h": 40.0} and rows[2]["text"] == "T"


def test_a_method_of_the_wrong_kind_is_refused_with_one_line():
    with pytest.raises(ValueError, match="method 'toy_methods:ListItems' is an extractor; this job needs a cleaner"):
        MethodSpec.of("toy_methods:ListItems", kind="cleaner")
    with pytest.raises(ValueError, match="method 'cnr' is a cleaner; this job needs an extractor"):
        MethodSpec.of("cnr", kind="extractor")


class Closing(Cleaner):
    name = "closing"
    closed: list[int] = []

    def process(self, page):
        return CleanResult(text="x")

    def close(self):
        Closing.closed.append(id(self))


def test_one_method_per_worker_and_settings_and_an_evicted_one_is_closed(monkeypatch):
    adapter.close_runners()
    monkeypatch.setattr(adapter, "CACHE_SIZE", 2)
    cnr = MethodSpec.of("cnr", kind="cleaner")
    same = MethodSpec.of("cnr", {"adjust": 0}, kind="cleaner")        # the default value: the same settings
    other = MethodSpec.of("cnr", {"adjust": 1}, kind="cleaner")
    assert same == cnr and hash(same) == hash(cnr) and other != cnr
    assert cached_runner(cnr) is cached_runner(same)
    assert cached_runner(other) is not cached_runner(cnr)
    spec = MethodSpec(f"{__name__}:Closing", "cleaner", Closing.settings_class())
    closing = cached_runner(spec)
    cached_runner(cnr), cached_runner(other)          # the closing method is now the least recently used
    assert Closing.closed == [id(closing.method)]
    adapter.close_runners()


def test_a_task_with_a_gpu_gets_it_only_for_methods_with_an_auto_device():
    web2text = MethodSpec.of("web2text", {"lam": 0.2}, kind="cleaner")
    assert task_spec(web2text, None) is web2text
    assert task_spec(web2text, ["3", "4"]).settings == dataclasses.replace(web2text.settings, device="cuda:3")
    cpu = MethodSpec.of("web2text", {"device": "cpu"}, kind="cleaner")
    assert task_spec(cpu, ["3"]) is cpu
    cnr = MethodSpec.of("cnr", kind="cleaner")
    assert task_spec(cnr, ["0"]) is cnr


def test_web2text_batches_equal_one_by_one_and_bound_torch_threads(shared_data):
    import torch

    from pagesieve.eval import iter_gold_pages

    gold = list(iter_gold_pages(shared_data / "cleaneval", "web2text_test"))[:8]
    real = [page(f"ce/{g.page_id}", g.html) for g in gold]
    spec = MethodSpec.of("web2text", {"device": "cpu"}, kind="cleaner")
    batched = run(spec, PAGES + real, size=len(PAGES) + len(real))
    one_by_one = run(spec, PAGES + real, size=1)
    assert batched.drop_columns(["elapsed_ms"]).equals(one_by_one.drop_columns(["elapsed_ms"]))
    status = dict(zip(batched.column("page_id").to_pylist(), batched.column("status").to_pylist(), strict=True))
    assert status["junk"] == "not_html" and status["png"] == "not_html" and status["empty"] == "empty"
    assert all(status[p["page_id"]] == "ok" for p in real)
    assert set(batched.column("method").to_pylist()) == {"web2text/1"}
    assert torch.get_num_threads() == 1          # conf/web2text.toml threads = 1: one worker per core


@pytest.mark.slow
def test_site_grouped_methods_get_all_of_a_sites_pages_at_once_in_spark(spark):
    from pagesieve.schemas import PAGES as PAGES_SCHEMA
    from pagesieve.schemas import spark_schema
    from pagesieve.udfs.adapter import apply_method

    spark.sparkContext.addPyFile(str(HERE / "toy_methods.py"))
    rows = [{**page(f"a{i}", GOOD), "url": f"http://a.test/{i}"} for i in range(3)]
    rows += [{**page(f"b{i}", GOOD), "url": f"https://b.test/x/{i}"} for i in range(2)]
    rows += [{**page("nourl", GOOD), "url": None}]
    frame = spark.createDataFrame(pa.Table.from_pylist(rows, schema=PAGES_SCHEMA).to_pandas(),
                                  spark_schema(PAGES_SCHEMA)).repartition(3)
    out = apply_method(frame, MethodSpec.of("toy_methods:SiteRecords", kind="extractor")).collect()
    sizes = {r.page_id: r.fields[0].value for r in out}
    assert sizes == {"a0": "3", "a1": "3", "a2": "3", "b0": "2", "b1": "2", "nourl": "1"}
