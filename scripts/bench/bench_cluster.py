"""Throughput of the clean job on a local standalone cluster with 1 and with 2 workers (1 core each).

Both runs clean the same pages table (the real benchmark pages, replicated); pages/s is taken
from the UDF stage's own span in the event log (submission to completion) and from the job's
wall time (which includes JVM and executor start-up). Report the ratio: the machine is shared.

    .venv/bin/python scripts/bench/bench_cluster.py [--copies 8]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

# the local standalone cluster the cluster tests use (tests/support/cluster_util.py)
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "support"))
from cluster_util import LocalCluster, build_zip, python_without_pagesieve, udf_task_ends, write_pages  # noqa: E402


def udf_span_s(events: Path) -> float:
    """Seconds from the first UDF task launch to the last UDF task end, over the app's event log."""
    tasks = [t for ts in udf_task_ends(events).values() for t in ts]
    start = min(t["Task Info"]["Launch Time"] for t in tasks)
    end = max(t["Task Info"]["Finish Time"] for t in tasks)
    return (end - start) / 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--copies", type=int, default=8)
    ap.add_argument("--method", default="cnr")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    base = Path(tempfile.mkdtemp(prefix="pagesieve-bench-cluster-"))
    n_pages = write_pages(base / "pages", args.copies)
    zip_path = build_zip()
    python = python_without_pagesieve(base / "execvenv")
    results = {}
    for workers in (1, 2):
        with LocalCluster(workers=workers, base=base / f"w{workers}", executor_python=python) as cluster:
            start = time.time()
            cluster.submit("clean", "--pages", str(base / "pages"), "--out", str(base / f"documents-{workers}"),
                           "--method", args.method, "--conf", "spark.sql.files.maxPartitionBytes=4194304",
                           zip_path=zip_path)
            wall = time.time() - start
            span = udf_span_s(cluster.events)
        results[workers] = {"pages": n_pages, "wall_s": round(wall, 1), "udf_stage_s": round(span, 1),
                            "pages_per_s_udf": round(n_pages / span, 1), "pages_per_s_wall": round(n_pages / wall, 1)}
    ratio_udf = results[2]["pages_per_s_udf"] / results[1]["pages_per_s_udf"]
    ratio_wall = results[2]["pages_per_s_wall"] / results[1]["pages_per_s_wall"]
    print(f"clean --method {args.method}, {n_pages} pages, {time.strftime('%Y-%m-%d %H:%M')}")
    print(f"{'workers':<8} {'UDF stage s':>11} {'pages/s (UDF)':>14} {'job wall s':>11} {'pages/s (wall)':>15}")
    for workers, r in results.items():
        print(f"{workers:<8} {r['udf_stage_s']:>11} {r['pages_per_s_udf']:>14} {r['wall_s']:>11} "
              f"{r['pages_per_s_wall']:>15}")
    print(f"2 workers / 1 worker: {ratio_udf:.2f}x (UDF stage), {ratio_wall:.2f}x (job wall)")
    if args.json:
        Path(args.json).write_text(json.dumps({"runs": results, "ratio_udf": ratio_udf, "ratio_wall": ratio_wall}))


if __name__ == "__main__":
    main()
