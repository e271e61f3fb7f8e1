"""stream: a landing folder of `pages` shards -> `documents`, cleaned as the shards land, exactly once.

    pagesieve crawl --seeds seeds.txt --out landing/ &
    pagesieve stream --landing landing/ --out out/            # runs until stopped (Ctrl-C)
    pagesieve stream --landing landing/ --out out/ --once     # what is there now, then stop (tests, cron)

Structured Streaming: the Parquet file source over the landing folder (the PAGES schema given, at most
`stream.max_files_per_trigger` shards per micro-batch; `_`- and `.`-prefixed names, the shards being
written, are never listed), the clean job's `build` (the one UDF adapter), and the Parquet file sink.

    OUT/documents/        the documents table; its `_spark_metadata/` log names the committed files
    OUT/_checkpoint/      offsets (which shards are in which batch) and commits
    OUT/_report.json      the run report, written at stop

Exactly once: a batch's shards are logged before it runs and its output files are committed after; a
job killed in between redoes that batch on restart, and the files of the killed attempt are not in the
sink's log, so Spark readers (`spark.read.parquet(OUT/documents)`, `pagesieve export`) never see them.
Readers that list files themselves (pyarrow, DuckDB) must not be pointed at OUT/documents.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from typing import Any

from pagesieve.jobs import clean
from pagesieve.jobs.common import (
    ConfigError,
    Report,
    check_apart,
    check_output,
    check_table,
    counts_by,
    executor_native,
    exit_on_config_error,
    job_parser,
    load_config,
    method_ids,
    spark_session,
)
from pagesieve.schemas import PAGES, spark_schema
from pagesieve.udfs.adapter import MethodSpec

__all__ = ["build", "start", "committed_inputs", "run", "main"]

log = logging.getLogger(__name__)


def build(spark, landing: str, spec: MethodSpec, max_files: int, partitions: int = 0):
    """The streaming documents DataFrame of the shards landing in `landing` (lazy)."""
    # maxFileAge: Spark's default (7 days before the newest file) would silently skip older shards once the
    # first batch is done, as in a stream started on a landing folder a long crawl has been filling
    pages = (spark.readStream.schema(spark_schema(PAGES)).option("maxFilesPerTrigger", max_files)
             .option("maxFileAge", "3650d").parquet(landing))
    # a shard is one file, read by one task: spread the batch so every core cleans
    pages = pages.repartition(partitions or spark.sparkContext.defaultParallelism)
    return clean.build(pages, spec)


def start(docs, out: str, *, once: bool, trigger_s: float):
    """Start the file sink (OUT/documents, checkpoint OUT/_checkpoint); returns the StreamingQuery."""
    writer = (docs.writeStream.format("parquet").outputMode("append").queryName("pagesieve_stream")
              .option("path", f"{out}/documents").option("checkpointLocation", f"{out}/_checkpoint"))
    writer = writer.trigger(availableNow=True) if once else writer.trigger(processingTime=f"{trigger_s} seconds")
    return writer.start()


def committed_inputs(checkpoint: str) -> list[str]:
    """The shards of every committed micro-batch, from the checkpoint's source and commit logs.

    The source log lists each batch's files (`{"path", "timestamp", "batchId"}` per line, after a version
    line; `N.compact` files repeat the earlier batches); a batch is committed when `commits/<id>` exists.
    """
    commits = [int(n) for n in _listdir(f"{checkpoint}/commits") if n.isdigit()]
    if not commits:
        return []
    last = max(commits)
    paths: set[str] = set()
    source = f"{checkpoint}/sources/0"
    for name in _listdir(source):
        if not (name.isdigit() or name.endswith(".compact")):
            continue
        with open(os.path.join(source, name), encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("{"):
                    entry = json.loads(line)
                    if entry["batchId"] <= last:
                        paths.add(entry["path"])
    return sorted(paths)


def _listdir(path: str) -> list[str]:
    return os.listdir(path) if os.path.isdir(path) else []


def watch(query, poll_s: float = 2.0, stop_after_s: float | None = None) -> list[dict[str, Any]]:
    """Wait for the query to end (or `stop_after_s`, or Ctrl-C: then stop it), logging one line per batch.

    Returns the progress of this run's batches that read pages.
    """
    import signal
    import threading

    batches: dict[int, dict[str, Any]] = {}
    stop = threading.Event()

    def drain() -> None:
        # an idle trigger reports the id of the next batch with no rows: only batches that read pages count
        for progress in query.recentProgress:
            if progress["numInputRows"] and progress["batchId"] not in batches:
                batches[progress["batchId"]] = _log_batch(progress)

    # Ctrl-C sets a flag that the loop sees within `poll_s`: a KeyboardInterrupt raised inside a py4j call
    # would break the gateway connection mid-read ("reentrant call"), and the report still needs it
    previous = signal.signal(signal.SIGINT, lambda *_: stop.set()) \
        if threading.current_thread() is threading.main_thread() else None
    started = time.time()
    try:
        while not query.awaitTermination(poll_s):
            drain()
            if stop.is_set() or (stop_after_s is not None and time.time() - started >= stop_after_s):
                log.info("stopping the stream (a batch in flight is redone on restart)")
                query.stop()
                break
        drain()
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
    return [batches[b] for b in sorted(batches)]


def _log_batch(progress: dict[str, Any]) -> dict[str, Any]:
    rows = progress["numInputRows"]
    ms = progress.get("durationMs", {}).get("triggerExecution", 0)
    rate = rows / (ms / 1000) if ms else None
    log.info("batch %d: %d pages cleaned in %.1f s (%.1f pages/s)", progress["batchId"], rows, ms / 1000,
             rate or 0)
    return {"batch": progress["batchId"], "pages": rows, "seconds": round(ms / 1000, 3),
            "pages_per_s": round(rate, 2) if rate else None}


def run(spark, landing: str, out: str, config, report: Report, spec: MethodSpec, *, once: bool,
        max_files: int | None = None, stop_after_s: float | None = None) -> int:
    """Stream `landing` into `out` until the query ends; fills `report` from the committed output; returns the
    pages cleaned by this run."""
    settings = config.job("stream")
    max_files = max_files or settings.max_files_per_trigger
    docs = build(spark, landing, spec, max_files, settings.partitions)
    query = start(docs, out, once=once, trigger_s=settings.trigger_seconds)
    log.info("streaming %s -> %s/documents (%s, %d shards per batch)", landing, out,
             "available now, then stop" if once else f"every {settings.trigger_seconds:g} s", max_files)
    batches = watch(query, stop_after_s=stop_after_s)
    if query.exception() is not None:
        raise RuntimeError(f"stream failed: {query.exception()}")
    # the report covers the whole table (earlier runs included): committed shards in, documents out
    inputs = committed_inputs(f"{out}/_checkpoint")
    n_pages = spark.read.schema(spark_schema(PAGES)).parquet(*inputs).count() if inputs else 0
    written = spark.read.parquet(f"{out}/documents") if os.path.isdir(f"{out}/_checkpoint/commits") else None
    by_status = counts_by(written, "status") if written is not None and inputs else {}
    by_method = counts_by(written, "method") if by_status else {}
    report.check_accounting(n_pages, by_status, "pages")
    run_rows = sum(b["pages"] for b in batches)
    report.set(input=landing, input_files=len(inputs), input_rows=n_pages, output=f"{out}/documents",
               by_status=by_status, methods=method_ids(by_method), by_method=by_method,
               batches_this_run=len(batches), pages_this_run=run_rows, batches=batches[-100:],
               native=executor_native(spark))
    return run_rows


def main(argv: list[str] | None = None) -> int:
    ap = job_parser("stream", "Clean the pages shards of a landing folder as they land (Structured Streaming).")
    ap.add_argument("--landing", required=True, help="landing folder of pages shards (pagesieve crawl --out)")
    ap.add_argument("--out", required=True, help="output folder: documents/, _checkpoint/, _report.json")
    ap.add_argument("--once", action="store_true", help="clean what has landed, then stop (availableNow)")
    ap.add_argument("--method", default=None,
                    help="cleaning method (default from conf: blocknet; cnr for a fast first pass)")
    ap.add_argument("--max-files", type=int, default=None, help="shards per micro-batch (stream.max_files_per_trigger)")
    ap.add_argument("--stop-after", type=float, default=None, metavar="SECONDS",
                    help="stop a continuous stream after this long (the batch in flight is redone next time)")
    args = ap.parse_args(argv)
    config = load_config(args, [args.method] if args.method else [], kind="cleaner")
    spec = clean.method_spec(config, args.method)
    if spec.group_by == "site":
        raise ConfigError(f"--method {args.method}: groups pages by site, which a stream cannot; use pagesieve clean")
    if args.max_files is not None and args.max_files <= 0:
        raise ConfigError("--max-files must be > 0")
    check_table(args.landing, "--landing")
    check_output(args.out)
    check_apart(args.out, [("--landing", args.landing)])
    out = args.out.rstrip("/")
    spark = spark_session("stream", args.master, config.spark)
    report = Report("stream", config)
    n = run(spark, args.landing, out, config, report, spec, once=args.once, max_files=args.max_files,
            stop_after_s=args.stop_after)
    report.finish(n, out, args.quiet)
    return 0


if __name__ == "__main__":
    sys.exit(exit_on_config_error(main))
