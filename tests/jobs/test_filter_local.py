"""The filter job in real Spark local mode: every row kept with its signals and removed_by, the report adds up,
`--split`, and the export leaving the removed documents out."""

from __future__ import annotations

import json
from collections import Counter

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from lxml import html

from pagesieve.jobs import export
from pagesieve.jobs import filter as filter_job
from pagesieve.jobs.common import Report, job_parser, load_config
from pagesieve.models.page import visible_text
from pagesieve.models.page.language import LanguageID, language_of
from pagesieve.models.quality import QualityRules, judge
from pagesieve.schemas import DOCUMENTS, FILTERED_DOCUMENTS, QUALITY_COLUMNS, spark_schema

EXPECTED_REMOVED = {"bad/cookie_banner": "c4_few_sentences", "bad/repeated_lines": "gopher_dup_lines",
                    "bad/link_list": "c4_few_sentences", "bad/stub": "gopher_few_words"}


def document_rows(shared_data) -> list[dict]:
    def doc(page_id: str, text: str | None, status: str = "ok") -> dict:
        return {"page_id": page_id, "url": f"http://example.test/{page_id}", "method": "cnr/1", "status": status,
                "error": None if status == "ok" else "no main content", "title": None, "text": text,
                "content_xpaths": [], "n_chars": len(text or ""), "n_words": len((text or "").split())}

    # good articles in English: the Gopher rules are English ones (docs/quality-filter.md), and since
    # 2026-11-26 the folder also holds articles in other languages
    gold = {f.stem: f.read_text("utf-8") for f in sorted((shared_data / "scrapinghub" / "gold").glob("*.txt"))}
    english = [(stem, text) for stem, text in gold.items() if language_of(text, LanguageID())[0] == "en"]
    rows = [doc(f"good/{stem[:12]}", text) for stem, text in english[:8]]
    cookie_page = html.fromstring((shared_data / "google-trends-2017" / "input" / "gt_137.html").read_bytes())
    links_page = html.fromstring((shared_data / "dragnet" / "input" / "R118.html").read_bytes())
    rows += [
        doc("bad/cookie_banner", visible_text(cookie_page.xpath('//div[contains(@class, "optanon-alert")]')[0])),
        doc("bad/repeated_lines", (shared_data / "cleaneval" / "gold" / "134.txt").read_text("utf-8")),
        doc("bad/link_list", visible_text(links_page.xpath("/html/body/div[2]/div[2]/div[2]/ul")[0])),
        doc("bad/stub", "Click here to read more."),
        doc("notok/empty", None, "empty"),
        doc("notok/timeout", None, "timeout"),
    ]
    return rows


@pytest.fixture(scope="module")
def documents_dir(shared_data, tmp_path_factory):
    rows = document_rows(shared_data)
    table = pa.Table.from_pylist(rows, schema=DOCUMENTS)
    # a column another stage added (dedup): the filter must carry it through untouched
    table = table.append_column("dup_cluster", pa.array([f"c{i % 3}" for i in range(len(rows))], pa.string()))
    path = tmp_path_factory.mktemp("filter") / "documents"
    path.mkdir()
    pq.write_table(table.slice(0, 7), path / "part-0.parquet")
    pq.write_table(table.slice(7), path / "part-1.parquet")
    return path, rows


def run_filter(spark, documents: str, out: str, *conf: str, split: bool = False) -> dict:
    config = load_config(job_parser("filter", "").parse_args([a for c in conf for a in ("--conf", c)]))
    report = Report("filter", config)
    n = filter_job.run(spark, documents, out, config, report, split=split)
    return report.finish(n, out, quiet=True)


def test_every_row_comes_out_with_its_signals_and_the_rule_that_removed_it(spark, documents_dir, tmp_path):
    path, rows = documents_dir
    run_filter(spark, str(path), str(tmp_path / "filtered"))
    out = spark.read.parquet(str(tmp_path / "filtered"))
    assert out.columns == FILTERED_DOCUMENTS.names[:len(DOCUMENTS)] + ["dup_cluster"] + QUALITY_COLUMNS.names
    assert out.schema[len(DOCUMENTS.names) + 1:] == spark_schema(QUALITY_COLUMNS)[:]
    got = {r.page_id: r for r in out.collect()}
    assert sorted(got) == sorted(r["page_id"] for r in rows)
    for row in rows:
        filtered = got[row["page_id"]]
        assert filtered.text == row["text"] and filtered.dup_cluster is not None
        if row["status"] != "ok":
            assert filtered.removed_by is None and filtered.quality_words is None
            continue
        signals, rule = judge(row["text"])          # the UDF gives what the model gives, row by row
        assert filtered.removed_by == rule == EXPECTED_REMOVED.get(row["page_id"])
        assert filtered.quality_words == signals["words"] and filtered.quality_c4_sentences == signals["c4_sentences"]
        assert filtered.quality_dup_line_frac == pytest.approx(signals["dup_line_frac"], rel=1e-6)
    assert sum(got[p].removed_by is None for p in got if p.startswith("good/")) >= 7


def test_the_report_adds_up_and_names_the_rules(spark, documents_dir, tmp_path):
    path, rows = documents_dir
    data = run_filter(spark, str(path), str(tmp_path / "filtered"))
    written = json.loads((tmp_path / "filtered" / "_report.json").read_text())
    assert written["accounting"]["documents"] == {"input": len(rows), "accounted": len(rows), "ok": True}
    expected = Counter(judge(r["text"])[1] for r in rows if r["status"] == "ok") - Counter({None: len(rows)})
    assert written["removed_by"] == dict(expected) and written["not_ok"] == {"empty": 1, "timeout": 1}
    assert expected["c4_few_sentences"] >= 2 and expected["gopher_dup_lines"] >= 1
    assert written["kept"] + sum(written["removed_by"].values()) + 2 == len(rows) == data["rows"]
    assert written["config"]["filter"]["min_words"] == 50 and written["rules"][0] == "gopher_few_words"


def test_a_rule_switched_off_keeps_what_it_removed_and_refiltering_replaces_the_columns(spark, documents_dir,
                                                                                          tmp_path):
    path, rows = documents_dir
    run_filter(spark, str(path), str(tmp_path / "first"))
    data = run_filter(spark, str(tmp_path / "first"), str(tmp_path / "second"),
                      'filter.rules=["gopher_few_words", "gopher_dup_lines"]')
    out = spark.read.parquet(str(tmp_path / "second"))
    assert out.columns.count("removed_by") == 1 and len(out.columns) == len(DOCUMENTS) + 1 + len(QUALITY_COLUMNS)
    removed = {r.page_id: r.removed_by for r in out.collect() if r.removed_by}
    two_rules = QualityRules(rules=("gopher_few_words", "gopher_dup_lines"))
    expected = {r["page_id"]: judge(r["text"], two_rules)[1] for r in rows if r["status"] == "ok"}
    assert removed == {p: rule for p, rule in expected.items() if rule}
    assert removed["bad/repeated_lines"] == "gopher_dup_lines" and "bad/cookie_banner" not in removed
    assert data["accounting"]["documents"]["ok"] is True


def test_split_writes_kept_and_removed_tables_and_export_leaves_the_removed_out(spark, documents_dir, tmp_path):
    path, rows = documents_dir
    data = run_filter(spark, str(path), str(tmp_path / "split"), split=True)
    kept = spark.read.parquet(str(tmp_path / "split" / "kept"))
    removed = spark.read.parquet(str(tmp_path / "split" / "removed"))
    assert not (tmp_path / "split" / "_all").exists()
    assert kept.count() + removed.count() == len(rows) and data["accounting"]["documents"]["ok"] is True
    assert {r.page_id for r in removed.collect()} >= set(EXPECTED_REMOVED)
    assert removed.filter("removed_by is null").count() == 0 and kept.filter("removed_by is not null").count() == 0

    run_filter(spark, str(path), str(tmp_path / "filtered"))
    config = load_config(job_parser("export", "").parse_args([]))
    report = Report("export", config)
    n = export.run(spark, str(tmp_path / "filtered"), str(tmp_path / "export"), config, report, ["jsonl", "parquet"])
    exported = report.data["exported"]
    ids = {json.loads(line)["id"] for f in (tmp_path / "export" / "jsonl").glob("*.jsonl") for line in f.open()}
    n_removed = sum(report.data["left_out"]["removed_by"].values())
    assert not ids & set(EXPECTED_REMOVED) and n == len(ids) == kept.count() - 2     # kept minus the 2 not ok
    assert n_removed == removed.count() and exported["not_exported"] == len(rows) - n
    assert spark.read.parquet(str(tmp_path / "export" / "parquet")).count() == len(rows) - n_removed


@pytest.mark.slow  # a CLI subprocess that starts Spark
def test_pagesieve_filter_command_writes_the_table_and_its_report(documents_dir, tmp_path):
    import subprocess
    import sys

    path, rows = documents_dir
    out = tmp_path / "filtered"
    proc = subprocess.run([sys.executable, "-m", "pagesieve.jobs.cli", "filter", "--documents", str(path),
                           "--out", str(out), "--master", "local[1]", "--conf", "spark.ui.enabled=false"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "removed_by" in proc.stderr and "c4_few_sentences=" in proc.stderr     # the printed summary
    report = json.loads((out / "_report.json").read_text())
    assert report["job"] == "filter" and report["rows"] == len(rows) and report["output"] == str(out)
    assert pq.read_table(out).num_rows == len(rows)
    assert not list(tmp_path.glob("filtered.staging-*"))
