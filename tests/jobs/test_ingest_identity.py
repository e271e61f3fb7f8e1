"""Resume knows an archive by its identity, not by the path as typed; export refuses duplicate ids (issue 22)."""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pagesieve.data import data_root
from pagesieve.jobs import export, ingest
from pagesieve.jobs.common import Report, job_parser, load_config
from pagesieve.schemas import DOCUMENTS

WARC = data_root() / "warc"
WHIRLWIND, WGET = "cc-main-2024-22-whirlwind.warc.gz", "wget-2024-sample-0000.warc.gz"


def run_ingest(spark, inputs, out, **kwargs) -> dict:
    config = load_config(job_parser("ingest", "").parse_args([]))
    report = Report("ingest", config)
    ingest.run(spark, inputs, str(out), config, report, **kwargs)
    return report.data


def page_ids(out: Path) -> list[str]:
    return sorted(pq.read_table(out, columns=["page_id"]).column("page_id").to_pylist())


def test_one_file_by_relative_then_absolute_path_is_ingested_once(spark, tmp_path, monkeypatch):
    (tmp_path / "in").mkdir()
    shutil.copy(WARC / WHIRLWIND, tmp_path / "in" / "a.warc.gz")
    out = tmp_path / "pages"
    monkeypatch.chdir(tmp_path)
    first = run_ingest(spark, ["in/a.warc.gz"], out)
    ids = page_ids(out)
    assert first["pages"] == len(ids) > 0
    second = run_ingest(spark, [str(tmp_path / "in" / "a.warc.gz")], out)
    assert second["archives_resumed"] == 1 and page_ids(out) == ids    # nothing twice
    both = run_ingest(spark, ["in/a.warc.gz", str(tmp_path / "in" / ".." / "in" / "a.warc.gz")], out, force=True)
    assert both["archives"] == 1 and page_ids(out) == ids              # one file named twice in one run
    source = pq.read_table(out, columns=["source"]).column("source").to_pylist()
    assert set(source) == {str(tmp_path / "in" / "a.warc.gz")}          # absolute, so any worker can read it


def test_another_file_at_the_same_relative_path_is_ingested(spark, tmp_path, monkeypatch):
    for folder, name in (("x", WHIRLWIND), ("y", WGET)):
        (tmp_path / folder / "in").mkdir(parents=True)
        shutil.copy(WARC / name, tmp_path / folder / "in" / "a.warc.gz")
    out = tmp_path / "pages"
    monkeypatch.chdir(tmp_path / "x")
    first = run_ingest(spark, ["in/a.warc.gz"], out)
    monkeypatch.chdir(tmp_path / "y")
    second = run_ingest(spark, ["in/a.warc.gz"], out)
    assert second["archives_resumed"] == 0 and second["archives"] == 1  # not taken for x/in/a.warc.gz
    assert first["pages"] + second["pages"] == len(page_ids(out)) and second["pages"] > first["pages"]
    assert len(set(page_ids(out))) == len(page_ids(out))


def test_a_file_changed_in_place_is_ingested_again_with_one_warning(spark, tmp_path, caplog):
    path = tmp_path / "a.warc.gz"
    shutil.copy(WARC / WHIRLWIND, path)
    out = tmp_path / "pages"
    first = run_ingest(spark, [str(path)], out)
    shutil.copy(WARC / WGET, path)
    os.utime(path, ns=(1, 1))  # a copy within the same clock tick must not look unchanged either
    with caplog.at_level(logging.WARNING, logger="pagesieve.jobs.ingest"):
        second = run_ingest(spark, [str(path)], out)
    changed = [r.getMessage() for r in caplog.records if "changed since it was ingested" in r.getMessage()]
    assert len(changed) == 1 and str(path) in changed[0] and "ingesting it again" in changed[0]
    assert second["archives_resumed"] == 0 and second["pages"] != first["pages"]
    assert second["pages"] == len(page_ids(out))                        # the old file's pages are gone


def _documents(path: Path, ids: list[str]) -> None:
    rows = [{"page_id": i, "url": f"http://x/{i}", "method": "cnr/1", "status": "ok", "title": None,
             "text": f"text of {i}", "content_xpaths": []} for i in ids]
    path.mkdir()
    pq.write_table(pa.Table.from_pylist(rows, schema=DOCUMENTS), path / "part-0.parquet")


def test_export_refuses_to_write_an_id_twice(spark, tmp_path):
    _documents(tmp_path / "documents", ["a", "b", "a"])
    config = load_config(job_parser("export", "").parse_args([]))
    with pytest.raises(export.DuplicateIdError, match=r"1 document id\(s\) occur more than once, e\.g\. a \(2 times\)"):
        export.run(spark, str(tmp_path / "documents"), str(tmp_path / "export"), config, Report("export", config),
                   ["jsonl"])
    assert not (tmp_path / "export" / "jsonl").exists()


def test_an_empty_input_is_one_skipped_input_in_the_report(spark, tmp_path):
    (tmp_path / "empty.warc.gz").write_bytes(b"")
    config = load_config(job_parser("ingest", "").parse_args([]))
    report = Report("ingest", config)
    ingest.run(spark, [str(tmp_path / "empty.warc.gz")], str(tmp_path / "pages"), config, report)
    assert report.data["input_records"] == 0 and report.data["skipped_inputs"] == {"empty_file": 1}
    assert "skipped_inputs empty_file=1" in report.summary()


def test_the_report_counts_skipped_bytes_and_fails_when_bytes_are_unaccounted(spark, tmp_path):
    import json

    data = (WARC / WGET).read_bytes()
    path = tmp_path / "junk.warc.gz"
    path.write_bytes(data[:24476] + b"x" * 50 + data[24476:])        # 50 bytes between two members
    out = tmp_path / "pages"
    first = run_ingest(spark, [str(path)], out)
    assert first["bytes_skipped"] == 50 and first["skipped"]["read_error"] == 1
    assert first["accounting"]["bytes"] == {"input": len(data) + 50, "accounted": len(data) + 50, "ok": True}
    [marker_file] = (out / "_done").glob("*.json")
    marker = json.loads(marker_file.read_text())
    marker["bytes"].update(records=marker["bytes"]["records"] - 7, unaccounted=7)  # as a reader that lost 7 bytes
    marker_file.write_text(json.dumps(marker))
    with pytest.raises(RuntimeError, match="bytes: 214056 input rows but 214049 accounted for"):
        run_ingest(spark, [str(path)], out)
