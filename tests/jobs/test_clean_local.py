"""The clean job in real Spark local mode: one documents row per page, statuses, report accounting."""

from __future__ import annotations

import json

import pyarrow as pa

from pagesieve.eval import iter_gold_pages
from pagesieve.jobs import clean
from pagesieve.jobs.common import Report, job_parser, load_config
from pagesieve.models.page.native import NATIVE_MODULES, native_status
from pagesieve.schemas import DOCUMENTS, PAGES, spark_schema
from pagesieve.udfs.adapter import MethodSpec


def pages_frame(spark, shared_data, n_real: int = 12):
    rows = []
    for gp in list(iter_gold_pages(shared_data / "cleaneval", "web2text_test"))[:n_real]:
        rows.append({"page_id": f"cleaneval/{gp.page_id}", "url": gp.url, "body": gp.html,
                     "content_type": "text/html", "ingest_status": "ok"})
    rows += [
        {"page_id": "bad/empty", "body": b"", "content_type": "text/html", "ingest_status": "ok"},
        {"page_id": "bad/junk", "body": bytes((i * 37 + 11) % 256 for i in range(3000)),
         "content_type": "text/html", "ingest_status": "ok"},
        {"page_id": "bad/nobody", "body": b"<html><head><title>x</title></head></html>",
         "content_type": "text/html", "ingest_status": "ok"},
    ]
    table = pa.Table.from_pylist(rows, schema=PAGES)
    return spark.createDataFrame(table.to_pandas(), spark_schema(PAGES)).repartition(3), rows


def test_one_document_per_page_in_order_of_ids(spark, shared_data):
    pages, rows = pages_frame(spark, shared_data)
    docs = clean.build(pages, MethodSpec.of("cnr", kind="cleaner")).collect()
    assert sorted(d.page_id for d in docs) == sorted(r["page_id"] for r in rows)
    status = {d.page_id: d.status for d in docs}
    assert status["bad/empty"] == "empty" and status["bad/junk"] == "not_html" and status["bad/nobody"] == "empty"
    real = [d for d in docs if d.page_id.startswith("cleaneval/")]
    assert sum(d.status == "ok" for d in real) >= len(real) - 1
    assert all(d.method == "cnr/1" and d.n_words == len((d.text or "").split()) for d in docs)


def test_clean_run_writes_documents_and_a_report_that_adds_up(spark, shared_data, tmp_path):
    pages, rows = pages_frame(spark, shared_data, n_real=5)
    pages.write.parquet(str(tmp_path / "pages"))
    args = job_parser("clean", "").parse_args(["--conf", "clean.method=cnr", "--conf", "cnr.adjust=0"])
    config = load_config(args)
    report = Report("clean", config)
    n = clean.run(spark, str(tmp_path / "pages"), str(tmp_path / "documents"), config, report,
                  clean.method_spec(config))
    data = report.finish(n, str(tmp_path / "documents"), quiet=True)
    assert n == len(rows)
    written = json.loads((tmp_path / "documents" / "_report.json").read_text())
    assert written["by_status"] == data["by_status"] and sum(written["by_status"].values()) == len(rows)
    assert written["accounting"]["pages"]["ok"] is True
    assert written["methods"] == ["cnr/1"] and written["config"]["cnr"] == {"adjust": 0}
    # local mode's executors are this Python: they load what it loads (every extension where setup.py built them)
    assert written["native"] == native_status() and set(native_status()) == set(NATIVE_MODULES)
    assert spark.read.parquet(str(tmp_path / "documents")).schema == spark_schema(DOCUMENTS)


def test_the_process_guard_gives_the_same_documents_in_spark(spark, shared_data):
    pages, _ = pages_frame(spark, shared_data, n_real=6)
    columns = ["page_id", "status", "error", "title", "text", "content_xpaths"]
    alarm = clean.build(pages, MethodSpec.of("cnr", kind="cleaner", timeout_s=30)).select(*columns)
    process = clean.build(pages, MethodSpec.of("cnr", kind="cleaner", timeout_s=30, guard="process")).select(*columns)
    assert sorted(alarm.collect()) == sorted(process.collect())
