"""Resume: re-running ingest skips committed archives, redoes the rest, and never duplicates a page."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pagesieve.archives.pages_writer import archive_key
from pagesieve.jobs import ingest
from pagesieve.jobs.common import Report, job_parser, load_config

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = str(ROOT / "data" / "sample" / "sample.warc.gz")
pytestmark = pytest.mark.slow  # Spark, and the CLI killed and rerun in subprocesses


def run_ingest(spark, inputs, out, **kwargs) -> dict:
    config = load_config(job_parser("ingest", "").parse_args([]))
    report = Report("ingest", config)
    ingest.run(spark, inputs, str(out), config, report, **kwargs)
    return report.data


def page_ids(out: Path) -> list[str]:
    return pq.read_table(out, columns=["page_id"]).column("page_id").to_pylist()


def test_rerun_skips_committed_archives_and_redoes_a_killed_one(spark, shared_data, tmp_path):
    other = str(shared_data / "warc" / "wget-2024-sample-0000.warc.gz")
    out = tmp_path / "pages"
    first = run_ingest(spark, [SAMPLE, other], out)
    assert first["archives_resumed"] == 0 and first["pages"] == 60 + 22
    ids = sorted(page_ids(out))
    sample_file = out / f"part-{archive_key(SAMPLE)}-00000.parquet"
    mtime = sample_file.stat().st_mtime_ns

    # a killed attempt at `other`: its marker never written, a partial file and a temporary left behind
    key = archive_key(other)
    (out / "_done" / f"{key}.json").unlink()
    (out / f"part-{key}-00001.parquet").write_bytes(b"partial")
    (out / f"_tmp-{key}").mkdir()
    second = run_ingest(spark, [SAMPLE, other], out)
    assert second["archives_resumed"] == 1 and second["pages"] == first["pages"]
    assert second["skipped"] == first["skipped"] and second["accounting"]["records"]["ok"]
    assert sorted(page_ids(out)) == ids                        # nothing lost, nothing twice
    assert sample_file.stat().st_mtime_ns == mtime             # the committed archive was not touched
    assert not (out / f"part-{key}-00001.parquet").exists() and not (out / f"_tmp-{key}").exists()

    third = run_ingest(spark, [SAMPLE, other], out, force=True)
    assert third["archives_resumed"] == 0 and sorted(page_ids(out)) == ids
    assert sample_file.stat().st_mtime_ns != mtime


def test_killed_ingest_continues_where_it_stopped(shared_data, tmp_path):
    archives = sorted(str(p) for p in (shared_data / "warc").glob("*.warc.gz"))
    out = tmp_path / "pages"
    cli = [str(Path(sys.executable).with_name("pagesieve")), "ingest", *archives, "--out", str(out),
           "--master", "local[1]", "--quiet", "--conf", "spark.ui.enabled=false"]
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable}
    job = subprocess.Popen(cli, env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.time() + 300
    while time.time() < deadline and job.poll() is None and len(list(out.glob("_done/*.json"))) < 2:
        time.sleep(0.1)
    os.killpg(job.pid, signal.SIGKILL)                          # the driver, its JVM and the Python workers
    job.wait()
    committed = len(list(out.glob("_done/*.json")))
    assert 2 <= committed < len(archives), "the kill must land between the first and the last archive"

    resumed = subprocess.run(cli, env=env, capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    report = json.loads((out / "_report.json").read_text())
    assert report["archives_resumed"] >= committed and report["archives"] == len(archives)
    assert report["accounting"]["records"]["ok"]
    ids = page_ids(out)
    assert len(ids) == len(set(ids)) == report["pages"]
    fresh = subprocess.run([*cli[:-7], "--out", str(tmp_path / "fresh"), "--master", "local[1]", "--quiet"],
                           env=env, capture_output=True, text=True, timeout=600)
    assert fresh.returncode == 0, fresh.stderr[-3000:]
    assert sorted(ids) == sorted(page_ids(tmp_path / "fresh"))
