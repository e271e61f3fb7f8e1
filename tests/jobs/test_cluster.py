"""The cluster path: the unchanged job files on a real Spark standalone cluster, code shipped as a zip.

A master and two workers run on 127.0.0.1 (scripts/local_cluster.sh, on free ports, stopped even
when the test fails). The executors run a Python that has every dependency but cannot import
pagesieve (the venv's site-packages without its .pth files, so no editable install): the UDFs
can only work if `--py-files dist/pagesieve.zip` really ships the code and the conf/ data.
"""

from __future__ import annotations

import collections
import glob
import hashlib
import json
import os
import site
import socket
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pagesieve.jobs import clean, ingest
from pagesieve.jobs.common import Report, job_parser, load_config

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_WARC = ROOT / "data" / "sample" / "sample.warc.gz"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    base = tmp_path_factory.mktemp("cluster")
    import pyspark

    env = {**os.environ, "SPARK_MASTER_PORT": str(free_port()), "SPARK_MASTER_WEBUI_PORT": str(free_port()),
           "PAGESIEVE_SPARK_DIR": str(base / ".spark"), "PYTHON": sys.executable,
           "SPARK_HOME": os.path.dirname(pyspark.__file__)}
    env.pop("PYSPARK_PYTHON", None)
    script = ["bash", str(ROOT / "scripts" / "local_cluster.sh")]
    try:
        subprocess.run([*script, "start", "2"], env=env, check=True, timeout=120, capture_output=True, text=True)
        yield {"url": f"spark://127.0.0.1:{env['SPARK_MASTER_PORT']}", "env": env, "base": base}
    finally:
        stopped = subprocess.run([*script, "stop"], env=env, timeout=120, capture_output=True, text=True)
        assert stopped.returncode == 0, stopped.stderr


@pytest.fixture(scope="module")
def python_without_pagesieve(tmp_path_factory) -> str:
    venv = tmp_path_factory.mktemp("execvenv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = str(venv / "bin" / "python")
    target = subprocess.run([python, "-c", "import site; print(site.getsitepackages()[0])"],
                            capture_output=True, text=True, check=True).stdout.strip()
    # a .pth line adds the venv's site-packages; .pth files *inside* it (the editable install) stay unread
    Path(target, "pagesieve-deps.pth").write_text(site.getsitepackages()[0] + "\n")
    probe = subprocess.run([python, "-c", "import pyspark, pandas, lxml; import pagesieve"],
                           capture_output=True, text=True, cwd=venv)
    assert "No module named 'pagesieve'" in probe.stderr, probe.stderr
    return python


@pytest.fixture(scope="module")
def zip_path() -> Path:
    subprocess.run(["bash", str(ROOT / "scripts" / "build_zip.sh")], check=True, timeout=300, capture_output=True,
                   env={**os.environ, "PYTHON": sys.executable})
    return ROOT / "dist" / "pagesieve.zip"


def submit(cluster, python: str, zip_path: Path, job: str, *args: str) -> subprocess.CompletedProcess:
    events = cluster["base"] / "events"
    events.mkdir(exist_ok=True)
    cmd = [str(Path(sys.executable).with_name("spark-submit")), "--master", cluster["url"],
           "--py-files", str(zip_path),
           "--conf", f"spark.pyspark.python={python}", "--conf", f"spark.pyspark.driver.python={sys.executable}",
           "--conf", "spark.executor.memory=1g", "--conf", "spark.cores.max=2",
           "--conf", "spark.eventLog.enabled=true", "--conf", f"spark.eventLog.dir=file://{events}",
           "--conf", "spark.eventLog.compress=false", "--conf", "spark.eventLog.rolling.enabled=false",
           "--conf", "spark.ui.enabled=false",
           str(ROOT / "jobs" / f"{job}.py"), *args, "--quiet"]
    proc = subprocess.run(cmd, env=cluster["env"], capture_output=True, text=True, timeout=600, cwd=cluster["base"])
    assert proc.returncode == 0, proc.stderr[-4000:]
    return proc


def udf_executors(events_dir: Path) -> dict[str, set[str]]:
    """app id -> executor ids of the tasks of every stage that ran a MapInPandas (the clean UDF)."""
    out: dict[str, set[str]] = collections.defaultdict(set)
    for path in glob.glob(str(events_dir / "app-*")):
        udf_stages: set[int] = set()
        with open(path, encoding="utf-8") as fh:
            events = [json.loads(line) for line in fh]
        for e in events:
            if e["Event"] == "SparkListenerStageSubmitted" and any(
                    '"MapInPandas"' in (r.get("Scope") or "") for r in e["Stage Info"]["RDD Info"]):
                udf_stages.add(e["Stage Info"]["Stage ID"])
        for e in events:
            if e["Event"] == "SparkListenerTaskEnd" and e["Stage ID"] in udf_stages:
                out[Path(path).name].add(e["Task Info"]["Executor ID"])
    return out


def text_hashes(documents: Path) -> dict[str, tuple[str, str]]:
    return {d["page_id"]: (d["status"], hashlib.sha256((d["text"] or "").encode()).hexdigest())
            for d in pq.read_table(documents, columns=["page_id", "status", "text"]).to_pylist()}


def test_jobs_run_unchanged_on_a_standalone_cluster(cluster, python_without_pagesieve, zip_path, spark):
    base = cluster["base"]
    submit(cluster, python_without_pagesieve, zip_path, "ingest", str(SAMPLE_WARC), "--out", str(base / "pages"))
    submit(cluster, python_without_pagesieve, zip_path, "clean", "--pages", str(base / "pages"),
           "--out", str(base / "documents"))

    config = load_config(job_parser("x", "").parse_args([]))
    ingest.run(spark, [str(SAMPLE_WARC)], str(base / "local_pages"), config, Report("ingest", config))
    clean.run(spark, str(base / "local_pages"), str(base / "local_documents"), config, Report("clean", config))

    on_cluster, local = text_hashes(base / "documents"), text_hashes(base / "local_documents")
    assert len(on_cluster) == 60
    assert on_cluster == local
    report = json.loads((base / "documents" / "_report.json").read_text())
    assert report["accounting"]["pages"]["ok"] and sum(report["by_status"].values()) == 60

    executors = udf_executors(base / "events")
    assert executors, "no MapInPandas stage in the event logs"
    assert max(len(ids) for ids in executors.values()) >= 2, executors
