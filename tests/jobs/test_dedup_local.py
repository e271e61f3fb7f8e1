"""The dedup job in real Spark local mode, on near-duplicates built from real pages of the L3S-GN1 benchmark.

The articles are the benchmark's gold texts; the boilerplate around them is the real navigation and footer text
of other pages of the benchmark (the lines of the full page text that are not in its gold).
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest
from resiliparse.extract.html2text import extract_plain_text
from resiliparse.parse.encoding import bytes_to_str, detect_encoding
from resiliparse.parse.html import HTMLTree

from pagesieve.jobs import dedup, export
from pagesieve.jobs.common import Report, job_parser, load_config
from pagesieve.schemas import DEDUPED_DOCUMENTS, DOCUMENTS, spark_schema


def _articles(root: Path, n: int) -> list[str]:
    ids = sorted(p.stem for p in (root / "gold").glob("*.txt"))
    return [i for i in ids if 300 <= len((root / "gold" / f"{i}.txt").read_text("utf-8").split()) <= 1200][:n]


def _boilerplate(root: Path, page_id: str) -> tuple[list[str], list[str]]:
    """(header, footer): the first and last four lines of a real page's full text that are not its article."""
    body = (root / "input" / f"{page_id}.html").read_bytes()
    full = extract_plain_text(HTMLTree.parse(bytes_to_str(body, detect_encoding(body))), main_content=False)
    gold = {line.strip() for line in (root / "gold" / f"{page_id}.txt").read_text("utf-8").splitlines()}
    lines = [s for s in (line.strip() for line in full.splitlines()) if len(s.split()) >= 2 and s not in gold]
    return lines[:4], lines[-4:]


def _doc(page_id: str, text: str | None, status: str = "ok") -> dict:
    return {"page_id": page_id, "url": f"http://{page_id}", "method": "cnr/1", "status": status, "text": text,
            "n_chars": len(text or ""), "n_words": len((text or "").split())}


def corpus(shared_data: Path) -> list[dict]:
    root = shared_data / "l3s-gn1"
    ids = _articles(root, 8)
    art = [(root / "gold" / f"{i}.txt").read_text("utf-8").strip() for i in ids]
    (head_a, foot_a), (head_b, foot_b) = _boilerplate(root, ids[6]), _boilerplate(root, ids[7])
    monday = f"Posted Monday 10 March 2008, 09:15\n{art[1]}"
    return [
        # the same article on two sites, each with its own real navigation and footer
        _doc("a1/site-a", "\n".join([*head_a, art[0], *foot_a])),
        _doc("a1/site-b", "\n".join([*head_b, art[0], *foot_b])),
        # pages differing by a date line, and a copy differing in case and spacing only (an exact duplicate)
        _doc("a2/monday", monday),
        _doc("a2/tuesday", f"Posted Tuesday 11 March 2008, 17:40\n{art[1]}"),
        _doc("a2/upper", monday.upper().replace("\n", " ")),
        # byte-identical copies
        _doc("a3/x", art[2]), _doc("a3/y", art[2]),
        # different articles, short texts, and rows that take no part
        _doc("a4", art[3]), _doc("a5", art[4]), _doc("a6", art[5]),
        _doc("short/1", "Contact us"), _doc("short/2", "About us"),
        _doc("punct", "--- * ---"),
        _doc("failed/1", None, status="empty"), _doc("failed/2", art[0], status="timeout"),
    ]


EXPECTED = {   # page_id: (dup_cluster, dup_of); keep = longest text, then smallest page_id
    "a1/site-a": ("a1/site-a", None),
    "a1/site-b": ("a1/site-a", "a1/site-a"),
    "a2/monday": ("a2/monday", "a2/tuesday"),
    "a2/tuesday": ("a2/monday", None),
    "a2/upper": ("a2/monday", "a2/tuesday"),
    "a3/x": ("a3/x", None),
    "a3/y": ("a3/x", "a3/x"),
}


def _frame(spark, rows: list[dict]):
    table = pa.Table.from_pylist(rows, schema=DOCUMENTS)
    return spark.createDataFrame(table.to_pandas(), spark_schema(DOCUMENTS)).repartition(3)


def _settings(*pairs: str):
    return load_config(job_parser("dedup", "").parse_args([x for p in pairs for x in ("--conf", p)])).job("dedup")


@pytest.fixture(scope="module")
def rows(shared_data) -> list[dict]:
    return corpus(shared_data)


def test_the_boilerplate_really_differs(rows):
    site_a, site_b = (r["text"] for r in rows[:2])
    assert site_a.splitlines()[:4] != site_b.splitlines()[:4] and site_a != site_b


def test_clusters_and_dup_of_are_exactly_the_expected_ones(spark, rows):
    result = dedup.build(_frame(spark, rows), _settings())
    got = {r.page_id: (r.dup_cluster, r.dup_of) for r in result.documents.collect()}
    assert {k: v for k, v in got.items() if v != (None, None)} == EXPECTED
    assert sorted(got) == sorted(r["page_id"] for r in rows)
    assert result.stats["clusters"] == 3 and result.stats["verified_pairs"] == 2
    assert sorted(result.removed.collect()) == [("a1/site-b", "near"), ("a2/monday", "near"),
                                                ("a2/upper", "near"), ("a3/y", "exact")]


def test_keep_first_id_keeps_the_smallest_page_id(spark, rows):
    got = {r.page_id: r.dup_of for r in dedup.build(_frame(spark, rows), _settings("dedup.keep=first_id"))
           .documents.collect()}
    assert got["a2/monday"] is None and got["a2/tuesday"] == "a2/monday" and got["a2/upper"] == "a2/monday"


def test_without_digit_masking_the_date_lines_still_cluster_as_near_duplicates(spark, rows):
    got = {r.page_id: r.dup_cluster for r in dedup.build(_frame(spark, rows), _settings("dedup.mask_digits=false"))
           .documents.collect()}
    assert got["a2/monday"] == got["a2/tuesday"] == got["a2/upper"] == "a2/monday"


def test_a_threshold_above_the_pairs_similarity_leaves_only_exact_duplicates(spark, rows):
    got = {r.page_id: r.dup_of for r in dedup.build(_frame(spark, rows), _settings("dedup.threshold=1.0"))
           .documents.collect()}
    assert {k: v for k, v in got.items() if v} == {"a3/y": "a3/x", "a2/upper": "a2/monday"}


def test_run_keeps_every_row_adds_two_columns_and_reports_counts_that_add_up(spark, rows, tmp_path):
    _frame(spark, rows).write.parquet(str(tmp_path / "documents"))
    config = load_config(job_parser("dedup", "").parse_args([]))
    report = Report("dedup", config)
    n = dedup.run(spark, str(tmp_path / "documents"), str(tmp_path / "deduped"), config, report)
    data = report.finish(n, str(tmp_path / "deduped"), quiet=True)
    out = spark.read.parquet(str(tmp_path / "deduped"))
    assert n == out.count() == len(rows)
    assert out.schema == spark_schema(DEDUPED_DOCUMENTS)
    assert data["by_outcome"] == {"not_ok": 2, "no_words": 1, "unique": 5, "kept": 3, "duplicate_near": 3,
                                  "duplicate_exact": 1}
    written = json.loads((tmp_path / "deduped" / "_report.json").read_text())
    assert written["accounting"]["documents"]["ok"] and written["dedup"]["candidate_pairs"] >= 2


def test_two_runs_give_the_same_table(spark, rows):
    first = sorted(dedup.build(_frame(spark, rows), _settings()).documents.collect())
    again = sorted(dedup.build(_frame(spark, list(reversed(rows))), _settings()).documents.collect())
    assert first == again


def test_the_command_and_export_leave_out_the_duplicates(spark, rows, tmp_path):
    from pagesieve.jobs.cli import main

    _frame(spark, rows).write.parquet(str(tmp_path / "documents"))
    assert main(["dedup", "--documents", str(tmp_path / "documents"), "--out", str(tmp_path / "deduped"),
                 "--quiet"]) == 0
    config = load_config(job_parser("export", "").parse_args([]))
    report = Report("export", config)
    n = export.run(spark, str(tmp_path / "deduped"), str(tmp_path / "export"), config, report, ["jsonl"])
    ids = {json.loads(line)["id"] for f in (tmp_path / "export" / "jsonl").glob("*.jsonl") for line in f.open()}
    assert n == len(ids) == 9 and not ids & {"a1/site-b", "a2/monday", "a2/upper", "a3/y"}
    assert report.data["exported"]["not_exported"] == 6
    assert report.data["left_out"] == {"not_ok": 2, "duplicate": 4}


def test_repeated_page_ids_are_refused_before_anything_is_written(spark, rows, tmp_path):
    _frame(spark, rows + rows[:1]).write.parquet(str(tmp_path / "documents"))
    config = load_config(job_parser("dedup", "").parse_args([]))
    with pytest.raises(ValueError, match="a1/site-a \\(2 times\\)"):
        dedup.run(spark, str(tmp_path / "documents"), str(tmp_path / "deduped"), config, Report("dedup", config))
    assert not (tmp_path / "deduped").exists()
