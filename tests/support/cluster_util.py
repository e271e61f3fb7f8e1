"""Helpers for running pagesieve's job files on a local standalone cluster (tests and cluster scripts).

    with LocalCluster(workers=2) as cluster:
        cluster.submit("clean", "--pages", "out/pages", "--out", "out/docs", zip_path=build_zip())
"""

from __future__ import annotations

import atexit
import collections
import fcntl
import glob
import hashlib
import json
import os
import shutil
import site
import socket
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

from pagesieve.data import data_root

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable

__all__ = ["ROOT", "LocalCluster", "build_zip", "python_without_pagesieve", "udf_executors", "free_port"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def build_zip() -> Path:
    """dist/pagesieve.zip from a clean tree (scripts/tools/build_zip.sh), handed back as a private copy
    (`<tmp>/pagesieve-zip-*/pagesieve.zip`).

    build_zip.sh starts with `rm -rf build dist`: a job still reading dist/pagesieve.zip when another test
    rebuilt it lost its executors ("Stream '/files/pagesieve.zip' was not found", or "No module named
    'pagesieve'"), which happened in full runs where two test files that build it ran on the two workers. So the
    builds take a lock (one at a time, whichever process or worker) and every caller submits its own copy.
    """
    tree = hashlib.sha256(str(ROOT).encode()).hexdigest()[:12]      # one lock per checkout, whatever process
    lock = Path(tempfile.gettempdir()) / f"pagesieve-build-zip-{tree}.lock"
    folder = tempfile.mkdtemp(prefix="pagesieve-zip-")
    atexit.register(shutil.rmtree, folder, True)      # 4 MB a build; the jobs that read it end before the tests
    private = Path(folder) / "pagesieve.zip"
    with open(lock, "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        subprocess.run(["bash", str(ROOT / "scripts" / "tools" / "build_zip.sh")], check=True, timeout=300,
                       capture_output=True, env={**os.environ, "PYTHON": PYTHON})
        shutil.copyfile(ROOT / "dist" / "pagesieve.zip", private)
    return private


def python_without_pagesieve(folder: Path) -> str:
    """A venv whose Python sees this venv's packages but not pagesieve (whose editable install lives in
    a .pth file, and .pth files inside an added folder are not read): code must come from --py-files."""
    subprocess.run([PYTHON, "-m", "venv", "--without-pip", str(folder)], check=True, timeout=120)
    python = str(folder / "bin" / "python")
    target = subprocess.run([python, "-c", "import site; print(site.getsitepackages()[0])"],
                            capture_output=True, text=True, check=True).stdout.strip()
    Path(target, "pagesieve-deps.pth").write_text(site.getsitepackages()[0] + "\n")
    probe = subprocess.run([python, "-c", "import pyspark, pandas, lxml; import pagesieve"],
                           capture_output=True, text=True, cwd=folder)
    if "No module named 'pagesieve'" not in probe.stderr:
        raise RuntimeError(f"executor python is not isolated from pagesieve: {probe.stderr or probe.stdout}")
    return python


# Spark plan nodes of the method UDF (udfs/adapter.py: mapInArrow; applyInArrow for site-grouped methods)
UDF_NODES = ("MapInArrow", "FlatMapGroupsInArrow", "MapInPandas")


def udf_executors(events_dir: Path) -> dict[str, set[str]]:
    """app id -> executor ids of the tasks of every stage that ran the method UDF (UDF_NODES)."""
    return {app: {t["Task Info"]["Executor ID"] for t in tasks} for app, tasks in udf_task_ends(events_dir).items()}


def udf_task_ends(events_dir: Path) -> dict[str, list[dict]]:
    """app id -> the SparkListenerTaskEnd events of its UDF stages (event logs written uncompressed)."""
    out: dict[str, list[dict]] = collections.defaultdict(list)
    for path in sorted(glob.glob(str(events_dir / "app-*"))):
        with open(path, encoding="utf-8") as fh:
            events = [json.loads(line) for line in fh]
        stages = {e["Stage Info"]["Stage ID"] for e in events if e["Event"] == "SparkListenerStageSubmitted"
                  and any(f'"{node}"' in (r.get("Scope") or "") for node in UDF_NODES
                          for r in e["Stage Info"]["RDD Info"])}
        out[Path(path).name] += [e for e in events if e["Event"] == "SparkListenerTaskEnd" and e["Stage ID"] in stages]
    return out


class LocalCluster:
    """scripts/tools/local_cluster.sh on free ports under its own folder; stopped on exit, even after an error."""

    def __init__(self, workers: int = 2, base: Path | None = None, executor_python: str | None = None) -> None:
        import pyspark

        self.workers = workers
        self.base = Path(base or tempfile.mkdtemp(prefix="pagesieve-cluster-"))
        self.executor_python = executor_python or PYTHON
        self.port, self.webui = free_port(), free_port()
        self.url = f"spark://127.0.0.1:{self.port}"
        self.env = {**os.environ, "SPARK_MASTER_PORT": str(self.port), "SPARK_MASTER_WEBUI_PORT": str(self.webui),
                    "PAGESIEVE_SPARK_DIR": str(self.base / ".spark"), "PYTHON": PYTHON,
                    "SPARK_HOME": os.path.dirname(pyspark.__file__)}
        self.env.pop("PYSPARK_PYTHON", None)
        self.events = self.base / "events"

    def _script(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["bash", str(ROOT / "scripts" / "tools" / "local_cluster.sh"), *args], env=self.env,
                              timeout=120, capture_output=True, text=True)

    def __enter__(self) -> LocalCluster:
        self.events.mkdir(parents=True, exist_ok=True)
        started = self._script("start", str(self.workers))
        if started.returncode != 0:
            raise RuntimeError(f"cluster did not start: {started.stderr}")
        return self

    def __exit__(self, *exc: object) -> None:
        stopped = self._script("stop")
        if stopped.returncode != 0:
            raise RuntimeError(f"cluster did not stop cleanly: {stopped.stderr}")

    def worker_pids(self) -> list[int]:
        pids = sorted(glob.glob(str(self.base / ".spark" / "pids" / "*Worker*.pid")))
        return [int(Path(p).read_text().strip()) for p in pids]

    def running_apps(self) -> list[dict]:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.webui}/json/", timeout=5) as r:
            return json.load(r)["activeapps"]

    def submit_command(self, job: str, *args: str, zip_path: Path | None, cores: int | None = None) -> list[str]:
        """The spark-submit command line; zip_path None ships no code (a negative control)."""
        ship = ["--py-files", str(zip_path)] if zip_path else []
        return [str(Path(PYTHON).with_name("spark-submit")), "--master", self.url, *ship,
                "--conf", f"spark.pyspark.python={self.executor_python}",
                "--conf", f"spark.pyspark.driver.python={PYTHON}",
                "--conf", "spark.executor.memory=1g", "--conf", f"spark.cores.max={cores or self.workers}",
                "--conf", "spark.eventLog.enabled=true", "--conf", f"spark.eventLog.dir=file://{self.events}",
                "--conf", "spark.eventLog.compress=false", "--conf", "spark.eventLog.rolling.enabled=false",
                "--conf", "spark.ui.enabled=false",
                str(ROOT / "jobs" / f"{job}.py"), *args, "--quiet"]

    def submit(self, job: str, *args: str, zip_path: Path | None, cores: int | None = None,
               timeout: int = 900) -> subprocess.CompletedProcess:
        """spark-submit a job file and wait; raises with the tail of stderr if it fails."""
        proc = subprocess.run(self.submit_command(job, *args, zip_path=zip_path, cores=cores), env=self.env,
                              capture_output=True, text=True, timeout=timeout, cwd=self.base)
        if proc.returncode != 0:
            # the Python exception is buried in JVM stack traces: name it first
            errors = sorted({line.strip() for line in proc.stderr.splitlines()
                             if "Error:" in line and not line.lstrip().startswith("at ")})[:5]
            raise RuntimeError(f"spark-submit {job} failed: {'; '.join(errors)}\n{proc.stderr[-2000:]}")
        return proc


def write_pages(out: Path, copies: int, files: int = 8) -> int:
    """A pages table of the real benchmark pages (CleanEval + Scrapinghub), `copies` times with distinct
    page ids, in `files` Parquet files: a clean job long enough to kill a worker in the middle of."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from pagesieve.schemas import PAGES

    data = data_root()
    html = sorted(data.glob("cleaneval/input/*.html")) + sorted(data.glob("scrapinghub/input/*.html"))
    rows = [{"page_id": f"{p.parent.parent.name}/{p.stem}#{k}", "url": p.as_uri(), "body": p.read_bytes(),
             "content_type": "text/html", "source": str(p), "source_profile": "files", "ingest_status": "ok"}
            for k in range(copies) for p in html]
    out.mkdir(parents=True, exist_ok=True)
    per_file = -(-len(rows) // files)
    for i in range(files):
        chunk = rows[i * per_file:(i + 1) * per_file]
        pq.write_table(pa.Table.from_pylist(chunk, schema=PAGES), out / f"part-{i:05d}.parquet", compression="zstd")
    return len(rows)
