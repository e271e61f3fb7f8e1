"""Crawl -> landing shards -> `pagesieve stream` -> documents, exactly once, also across a SIGKILL.

Real Scrapy and real Spark local mode, all through the CLI in subprocesses; the documents are read
through the file sink's own log (`_spark_metadata`), as Spark readers do, so a file left by a killed
attempt would not count, and a page cleaned twice would.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from crawl_cli import crawl, pagesieve
from local_site import expected_pages

from pagesieve.schemas import DOCUMENTS, PAGES

pytestmark = [pytest.mark.slow, pytest.mark.spark]  # Scrapy and Spark in subprocesses

N_SHARDS = 54          # 108 pages, two per shard


def committed_documents(out: Path) -> list[dict]:
    """The rows of the files the sink committed (every `add` in `documents/_spark_metadata`, compactions too)."""
    log = out / "documents" / "_spark_metadata"
    files = {json.loads(line)["path"].removeprefix("file://") for name in os.listdir(log)
             if not name.startswith(".") for line in (log / name).read_text().splitlines() if line.startswith("{")}
    return pq.read_table(sorted(files), schema=DOCUMENTS).to_pylist() if files else []


def landing_pages(landing: Path) -> list[dict]:
    return pq.read_table([str(p) for p in sorted(landing.glob("part-*.parquet"))], schema=PAGES).to_pylist()


@pytest.fixture(scope="module")
def landing(site, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("stream") / "landing"
    crawl(site, out, "--conf", "crawl.rows_per_shard=2")
    assert len(list(out.glob("part-*.parquet"))) == N_SHARDS
    return out


def test_every_landed_page_reaches_documents_exactly_once(site, landing, tmp_path):
    proc = pagesieve("stream", "--landing", str(landing), "--out", str(tmp_path / "out"), "--once",
                     "--max-files", "8")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "batch 0: " in proc.stderr and "pages cleaned in" in proc.stderr
    docs = committed_documents(tmp_path / "out")
    ids = Counter(d["page_id"] for d in docs)
    assert set(ids) == {p["page_id"] for p in landing_pages(landing)} and max(ids.values()) == 1
    assert {d["url"] for d in docs} == expected_pages(site.base)
    assert {d["status"] for d in docs} == {"ok"} and {d["method"] for d in docs} == {"blocknet/1"}  # the default
    report = json.loads((tmp_path / "out" / "_report.json").read_text())
    assert report["by_status"] == {"ok": 108} and report["accounting"]["pages"]["ok"] is True
    assert (report["input_files"], report["input_rows"], report["pages_this_run"]) == (N_SHARDS, 108, 108)
    assert report["batches_this_run"] == 7                                  # 54 shards, 8 per batch
    # a second --once finds nothing new and adds nothing
    again = pagesieve("stream", "--landing", str(landing), "--out", str(tmp_path / "out"), "--once")
    assert again.returncode == 0, again.stderr[-3000:]
    assert len(committed_documents(tmp_path / "out")) == 108
    # the batch jobs read the landing folder too (run = clean + export), through the same clean path
    batch = pagesieve("run", "--pages", str(landing), "--out", str(tmp_path / "batch"))
    assert batch.returncode == 0, batch.stderr[-3000:]
    assert "pagesieve run: 108 records -> 108 pages -> 108 exported documents" in batch.stderr
    columns = ["page_id", "status", "title", "text", "content_xpaths"]
    batch_docs = pq.read_table(str(tmp_path / "batch" / "documents"), columns=columns).to_pylist()
    assert sorted(batch_docs, key=lambda d: d["page_id"]) == \
        sorted(({c: d[c] for c in columns} for d in docs), key=lambda d: d["page_id"])


def test_a_stream_killed_after_its_first_batch_resumes_exactly_once(landing, tmp_path):
    out = tmp_path / "out"
    cli = Path(sys.executable).with_name("pagesieve")
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable}
    # one shard per batch: 54 batches, so the kill lands mid-way; its own session: the JVM dies with it
    proc = subprocess.Popen([str(cli), "stream", "--landing", str(landing), "--out", str(out), "--once",
                             "--max-files", "1", "--master", "local[2]", "--conf", "spark.ui.enabled=false"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, start_new_session=True)
    commits = out / "_checkpoint" / "commits"
    deadline = time.time() + 300
    while not (commits / "0").exists() and proc.poll() is None and time.time() < deadline:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, proc.stderr.read()[-3000:]
    done = [n for n in os.listdir(commits) if n.isdigit()]
    assert 1 <= len(done) < N_SHARDS                  # killed mid-way: some batches committed, not all
    killed = len(committed_documents(out))
    assert 2 <= killed < 108
    restart = pagesieve("stream", "--landing", str(landing), "--out", str(out), "--once", "--max-files", "8")
    assert restart.returncode == 0, restart.stderr[-3000:]
    ids = Counter(d["page_id"] for d in committed_documents(out))
    assert set(ids) == {p["page_id"] for p in landing_pages(landing)} and max(ids.values()) == 1
    report = json.loads((out / "_report.json").read_text())
    assert report["accounting"]["pages"] == {"input": 108, "accounted": 108, "ok": True}
    # the restart redoes the batch in flight (2 pages; 4 if the kill fell between the sink's log and the commit,
    # a batch the sink then skips as already written)
    assert 108 - killed <= report["pages_this_run"] <= 108 - killed + 4
