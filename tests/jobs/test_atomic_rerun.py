"""A rerun killed half-way leaves the previous outputs, report and export as they were (issue 22, item 4)."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pagesieve.jobs.common import staging_path

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample" / "sample.warc.gz"
pytestmark = pytest.mark.slow  # the CLI on Spark in subprocesses, one of them killed


def cli(*args: str) -> list[str]:
    return [str(Path(sys.executable).with_name("pagesieve")), *args, "--master", "local[2]", "--quiet",
            "--conf", "spark.ui.enabled=false"]


def snapshot(out: Path) -> dict[str, str]:
    """{relative path: sha1} of every file under `out` (Spark's .crc files included)."""
    return {str(p.relative_to(out)): hashlib.sha1(p.read_bytes()).hexdigest()
            for p in sorted(out.rglob("*")) if p.is_file()}


def kill_when_staging(args: list[str], out: Path, pattern: str) -> None:
    """Start the command, SIGKILL its whole process group (driver, JVM, workers) once Spark writes `pattern`."""
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable}
    job = subprocess.Popen(args, env=env, start_new_session=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    deadline = time.time() + 300
    while time.time() < deadline and job.poll() is None and not list(out.glob(pattern)):
        time.sleep(0.05)
    assert job.poll() is None, "the rerun finished before it could be killed"
    os.killpg(job.pid, signal.SIGKILL)
    job.wait()


def test_killed_reruns_leave_the_previous_outputs_intact(tmp_path):
    out = tmp_path / "out"
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable}
    done = subprocess.run(cli("run", str(SAMPLE), "--out", str(out)), env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    before = snapshot(out)
    assert "_report.json" in before and any(k.startswith("export/jsonl/docs-") for k in before)

    # the case: `clean` with another method over the finished output, killed while it writes
    kill_when_staging(cli("clean", "--pages", str(out / "pages"), "--out", str(out / "documents"),
                          "--method", "trafilatura"), out, "documents.staging-*/*")
    assert snapshot(out) == before
    # the same with `run`: killed while it writes the new documents
    kill_when_staging(cli("run", str(SAMPLE), "--out", str(out), "--method", "trafilatura"), out,
                      "documents.staging-*/*")
    assert snapshot(out) == before

    # the next stage run tidies what the killed ones left beside the output
    assert list(tmp_path.glob("out/documents.staging-*"))
    staging_path(str(out / "documents"))
    assert not list(tmp_path.glob("out/documents.staging-*")) and snapshot(out) == before
