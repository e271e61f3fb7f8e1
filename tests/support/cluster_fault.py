"""Fault test: kill one worker in the middle of a clean job on a local standalone cluster.

Spark must rerun the lost tasks on the surviving worker, and the documents must still hold exactly
one row per page (no page lost, none written twice). Prints the figures and exits 1 on a violation.

    .venv/bin/python tests/support/cluster_fault.py [--copies 6] [--kill-after 10]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pyarrow.parquet as pq
from cluster_util import UDF_NODES, LocalCluster, build_zip, python_without_pagesieve, udf_task_ends, write_pages


def process_tree(pid: int) -> list[int]:
    """pid and all its descendants (children first found through /proc via pgrep -P)."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        children = subprocess.run(["pgrep", "-P", str(current)], capture_output=True, text=True).stdout.split()
        todo += [int(c) for c in children]
    return found


def udf_job_started(events: Path) -> bool:
    """True once the event log holds the start of the job whose stages run the method UDF (UDF_NODES).
    Spark flushes job-start events at once, so the in-progress log shows it."""
    for path in events.glob("app-*"):
        with open(path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.startswith('{"Event":"SparkListenerJobStart"') and any(
                        f'"name\\":\\"{node}' in line for node in UDF_NODES):
                    return True
    return False


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--copies", type=int, default=8, help="copies of the 761 benchmark pages")
    ap.add_argument("--kill-after", type=float, default=4.0, help="seconds after the UDF job starts")
    ap.add_argument("--method", default="cnr")
    args = ap.parse_args()
    base = Path(tempfile.mkdtemp(prefix="pagesieve-fault-"))
    n_pages = write_pages(base / "pages", args.copies)
    zip_path = build_zip()
    python = python_without_pagesieve(base / "execvenv")
    with LocalCluster(workers=2, base=base, executor_python=python) as cluster:
        cmd = cluster.submit_command("clean", "--pages", str(base / "pages"), "--out", str(base / "documents"),
                                     "--method", args.method,
                                     # small input splits: many UDF tasks, so the lost ones are visible
                                     "--conf", "spark.sql.files.maxPartitionBytes=4194304", zip_path=zip_path)
        start = time.time()
        job = subprocess.Popen(cmd, env=cluster.env, cwd=base, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
        while not udf_job_started(cluster.events) and job.poll() is None:
            time.sleep(0.2)
        app_seen = time.time()
        time.sleep(args.kill_after)
        # a lost node takes the worker and its executors: SIGKILL on the worker alone leaves its
        # executor JVM (a child process) running, and nothing would be lost
        victims = process_tree(cluster.worker_pids()[-1])
        killed_running = job.poll() is None
        for pid in victims:
            os.kill(pid, signal.SIGKILL)
        killed_at = time.time() - start
        _, stderr = job.communicate(timeout=1800)
        wall = time.time() - start
    docs = pq.read_table(base / "documents", columns=["page_id", "status"]).to_pylist()
    ids = [d["page_id"] for d in docs]
    report = json.loads((base / "documents" / "_report.json").read_text())
    tasks = [t for ts in udf_task_ends(cluster.events).values() for t in ts]
    failed = [t for t in tasks if t["Task End Reason"]["Reason"] != "Success"]
    result = {
        "pages": n_pages, "documents": len(docs), "distinct_page_ids": len(set(ids)),
        "job_exit_code": job.returncode, "worker_killed_while_job_running": killed_running,
        "killed_processes": len(victims), "killed_at_s": round(killed_at, 1),
        "udf_job_started_at_s": round(app_seen - start, 1), "wall_s": round(wall, 1),
        "udf_tasks": len(tasks), "udf_tasks_failed": len(failed),
        "failure_reasons": sorted({t["Task End Reason"].get("Reason") for t in failed}),
        "executors": sorted({t["Task Info"]["Executor ID"] for t in tasks}),
        "report_accounting_ok": report["accounting"]["pages"]["ok"], "by_status": report["by_status"],
    }
    print(json.dumps(result, indent=2))
    ok = (job.returncode == 0 and killed_running and len(docs) == n_pages == len(set(ids))
          and set(ids) == {d["page_id"] for d in pq.read_table(base / "pages", columns=["page_id"]).to_pylist()})
    print("fault test:", "PASSED" if ok else "FAILED", f"(work folder {base})")
    if job.returncode != 0:
        print(stderr[-3000:])
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
