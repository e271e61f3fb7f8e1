"""Crawl-time mode, end to end on the local test site: pages/s from crawl to cleaned text, and the stream's lag.

    .venv/bin/python scripts/bench/bench_crawl.py [--pages 1000] [--out /tmp/bench_crawl]

Starts the generated site of tests/spiders/local_site.py on 127.0.0.1, a continuous `pagesieve stream`
(trigger 1 s), then `pagesieve crawl` into its landing folder (a shard per 20 pages or 2 s); waits until
every landed page is in the documents table, stops the stream (Ctrl-C) and prints one JSON object:

  crawl_pages_per_s       pages landed / crawl wall time (the crawl's own report)
  end_to_end_pages_per_s  pages in documents / (last batch committed - crawl start)
  lag_s                   per shard: its batch's commit time - the shard's rename into the landing folder
                          (median, p90, max): how long a landed page waits before it is cleaned text
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGESIEVE = str(Path(sys.executable).with_name("pagesieve"))


def log_entries(folder: Path) -> dict[int, list[dict]]:
    """{batch id: entries} of a Spark metadata log (the source's `sources/0` or the sink's `_spark_metadata`)."""
    out: dict[int, list[dict]] = {}
    for name in os.listdir(folder) if folder.is_dir() else []:
        if name.isdigit():
            out[int(name)] = [json.loads(x) for x in (folder / name).read_text().splitlines() if x.startswith("{")]
    return out


def committed_rows(out: Path) -> int:
    import pyarrow.parquet as pq

    files = {e["path"].removeprefix("file://") for es in log_entries(out / "documents" / "_spark_metadata").values()
             for e in es}
    return sum(pq.ParquetFile(f).metadata.num_rows for f in files)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=1000, help="pages on the generated site (page-0 .. page-N-1)")
    ap.add_argument("--out", default="/tmp/bench_crawl")
    ap.add_argument("--timeout", type=float, default=600)
    args = ap.parse_args()
    out = Path(args.out)
    subprocess.run(["rm", "-rf", str(out)], check=True)
    out.mkdir(parents=True)
    landing, docs = out / "landing", out / "stream"
    landing.mkdir()
    env = {**os.environ, "PAGESIEVE_SITE_PAGES": str(args.pages), "PYSPARK_PYTHON": sys.executable}
    site = subprocess.Popen([sys.executable, str(ROOT / "tests/spiders/local_site.py"), str(out / "requests.log")],
                            stdout=subprocess.PIPE, text=True, env=env)
    stream = None
    try:
        base = f"http://127.0.0.1:{int(site.stdout.readline())}"
        stream = subprocess.Popen([PAGESIEVE, "stream", "--landing", str(landing), "--out", str(docs),
                                   "--conf", "stream.trigger_seconds=1", "--conf", "spark.ui.enabled=false"],
                                  stderr=open(out / "stream.log", "w"), env=env)  # noqa: SIM115
        while not (docs / "_checkpoint" / "offsets").exists() and stream.poll() is None:
            time.sleep(0.2)      # the query has started (the JVM is up)
        start = time.time()
        conf = ["crawl.autothrottle_start_delay=0.05", "crawl.autothrottle_max_delay=1.0", "crawl.depth_limit=0",
                "crawl.concurrent_per_domain=8", "crawl.rows_per_shard=20", "crawl.shard_seconds=2",
                "crawl.max_download_bytes=1000000", "crawl.progress_seconds=2"]
        crawl = subprocess.run([PAGESIEVE, "crawl", "--url", f"{base}/", "--out", str(landing),
                                *[a for c in conf for a in ("--conf", c)]], capture_output=True, text=True, env=env)
        (out / "crawl.log").write_text(crawl.stderr)
        if crawl.returncode != 0:
            print(crawl.stderr[-3000:], file=sys.stderr)
            return 1
        report = json.loads((landing / "_report.json").read_text())
        while committed_rows(docs) < report["rows"] and time.time() - start < args.timeout:
            time.sleep(0.5)
        stream.send_signal(signal.SIGINT)
        stream.wait(timeout=120)
    finally:
        site.kill()
        if stream is not None and stream.poll() is None:
            stream.kill()
    sources = log_entries(docs / "_checkpoint" / "sources" / "0")
    sinks = log_entries(docs / "documents" / "_spark_metadata")
    lags = [max(e["modificationTime"] for e in sinks[b]) / 1000 - s["timestamp"] / 1000
            for b, shards in sources.items() if b in sinks for s in shards]
    done = max(max(e["modificationTime"] for e in es) for es in sinks.values()) / 1000
    result = {"site_pages": args.pages, "landed": report["rows"], "shards": report["shards"],
              "documents": committed_rows(docs), "crawl_wall_s": report["wall_s"],
              "crawl_pages_per_s": report["pages_per_s"],
              "end_to_end_s": round(done - start, 1),
              "end_to_end_pages_per_s": round(report["rows"] / (done - start), 1),
              "lag_s": {"median": round(statistics.median(lags), 1),
                        "p90": round(statistics.quantiles(lags, n=10)[-1], 1), "max": round(max(lags), 1)},
              "batches": len(sinks)}
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
