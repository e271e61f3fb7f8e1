"""The extract job and the records export in real Spark local mode, driven by a small extractor loaded by
dotted path (one record per `<li>`) over real listing pages: every page accounted for, records exported."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pagesieve.jobs import export, extract
from pagesieve.jobs.common import Report, job_parser, load_config
from pagesieve.models.page import parse_page
from pagesieve.schemas import PAGES, RECORDS, spark_schema

TOYS = Path(__file__).resolve().parents[1] / "udfs"
LISTINGS = ["re-agents-dexters", "tb-ikea-1", "tb-indeed-1"]


@pytest.fixture()
def toy_methods(spark):
    sys.path.insert(0, str(TOYS))
    spark.sparkContext.addPyFile(str(TOYS / "toy_methods.py"))
    yield
    sys.path.remove(str(TOYS))


def test_extract_accounts_for_every_page_and_export_writes_one_object_per_record(spark, shared_data, tmp_path,
                                                                                 toy_methods):
    rows = [{"page_id": name, "url": f"http://listings.test/{name}", "content_type": "text/html",
             "body": (shared_data / "listings" / "pages" / f"{name}.html").read_bytes(), "ingest_status": "ok"}
            for name in LISTINGS]
    rows += [{"page_id": "bad/junk", "body": bytes((i * 37 + 11) % 256 for i in range(3000)),
              "content_type": "text/html", "ingest_status": "ok"},
             {"page_id": "bad/nolist", "body": b"<html><body><p>no list here</p></body></html>",
              "content_type": "text/html", "ingest_status": "ok"}]
    pq.write_table(pa.Table.from_pylist(rows, schema=PAGES), tmp_path / "pages.parquet")
    (tmp_path / "pages").mkdir()
    (tmp_path / "pages.parquet").rename(tmp_path / "pages" / "part-0.parquet")
    config = load_config(job_parser("extract", "").parse_args([]))
    report = Report("extract", config)
    spec = extract.method_spec(config, "toy_methods:ListItems")
    n = extract.run(spark, str(tmp_path / "pages"), str(tmp_path / "records"), config, report, spec)
    data = report.finish(n, str(tmp_path / "records"), quiet=True)

    # what the toy extractor must have found: the <li> elements of each page, as our parser sees them
    expected = {r["page_id"]: len(parse_page(r["body"]).root.findall(".//li")) for r in rows[:3]}
    assert all(expected.values())
    written = spark.read.parquet(str(tmp_path / "records"))
    assert written.schema == spark_schema(RECORDS)
    assert n == sum(expected.values()) == written.where("status = 'ok'").count()
    assert data["by_status"] == {"ok": 3, "not_html": 1, "empty": 1} and data["accounting"]["pages"]["ok"] is True
    counts = sorted([*expected.values(), 0, 0])
    assert data["records_per_page"]["max"] == counts[-1] and data["records_per_page"]["p50"] == counts[2]

    export_report = Report("export", config)
    lines = export.run_records(spark, str(tmp_path / "records"), str(tmp_path / "export"), config, export_report,
                               ["jsonl", "parquet"])
    assert lines == n and export_report.data["exported"]["not_exported"] == 2
    files = sorted((tmp_path / "export" / "jsonl").iterdir())
    assert [f.name for f in files] == [f"records-{i:05d}.jsonl" for i in range(len(files))]
    objects = [json.loads(line) for f in files for line in f.read_text("utf-8").splitlines()]
    assert len(objects) == n and {o["page_id"] for o in objects} == set(LISTINGS)
    first = min((o for o in objects if o["page_id"] == LISTINGS[0]), key=lambda o: o["record_index"])
    li = parse_page(rows[0]["body"]).root.xpath(first["record_xpath"])[0]
    assert first["fields"] == {"item": " ".join("".join(li.itertext()).split())}
    assert (first["schema"], first["method"], first["record_index"]) == ("toy", "list_items/1", 0)
    assert spark.read.parquet(str(tmp_path / "export" / "parquet")).count() == written.count()


def test_amber_extracts_the_records_of_real_listing_pages_in_spark(spark, shared_data, tmp_path):
    names = ["re-agents-dexters", "re-brazil-imovelweb"]
    rows = [{"page_id": name, "url": f"http://listings.test/{name}", "content_type": "text/html",
             "body": (shared_data / "listings" / "pages" / f"{name}.html").read_bytes(), "ingest_status": "ok"}
            for name in names] + [{"page_id": "bad/empty", "body": b"", "content_type": "text/html",
                                   "ingest_status": "ok"}]
    (tmp_path / "pages").mkdir()
    pq.write_table(pa.Table.from_pylist(rows, schema=PAGES), tmp_path / "pages" / "part-0.parquet")
    config = load_config(job_parser("extract", "").parse_args([]), ["amber"], kind="extractor")
    report = Report("extract", config)
    spec = extract.method_spec(config, "amber", "real_estate")
    n = extract.run(spark, str(tmp_path / "pages"), str(tmp_path / "records"), config, report, spec)
    local = {name: len(extract_here(spec, row)) for name, row in zip(names, rows, strict=False)}
    assert local == {"re-agents-dexters": 4, "re-brazil-imovelweb": 30} and n == 34
    assert report.data["by_status"] == {"ok": 2, "empty": 1}
    written = spark.read.parquet(str(tmp_path / "records")).where("status = 'ok'").collect()
    assert {r.method for r in written} == {"amber/1"} and {r.schema for r in written} == {"real_estate"}
    prices = sorted(f.value for r in written if r.page_id == "re-agents-dexters" for f in r.fields if f.name == "price")
    assert len(prices) == 4


def extract_here(spec, row):
    """The same method one page at a time in this process: Spark must give the same records."""
    from pagesieve.models.page import PageInput, run_pages

    return run_pages(spec.method_class()(spec.settings), [PageInput.from_row(row)])[0].result.records
