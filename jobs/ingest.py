"""ingest: archives (WARC, ARC) or folders of HTML files -> `pages` Parquet.

    pagesieve ingest data/sample/sample.warc.gz --out out/pages
    spark-submit --py-files dist/pagesieve.zip jobs/ingest.py 's3://bucket/crawl/*.warc.gz' --out s3://bucket/pages

One Spark task per input file. Every record is accounted for: HTML responses become `pages`
rows; everything else (requests, warcinfo, revisits, non-HTML, read errors) is listed with its
reason in `<out>/_skipped/` (ignored by Parquet readers: it starts with `_`) and counted in
`<out>/_report.json`.
"""

from __future__ import annotations

import functools
import sys

from pagesieve.jobs.common import Report, counts_by, job_parser, load_config, spark_session
from pagesieve.schemas import PAGES, READER_ROWS, spark_schema

__all__ = ["build", "run", "main"]


def build(spark, inputs: list[str], *, max_body_bytes: int, rows_per_batch: int):
    """Reader rows (READER_ROWS) for `inputs`, one partition per input file."""
    from pagesieve.jobs.readers import list_inputs
    from pagesieve.udfs.archives import read_archives

    paths = list_inputs(inputs)
    files = spark.sparkContext.parallelize([(p,) for p in paths], numSlices=len(paths)).toDF("path string")
    return files.mapInArrow(functools.partial(read_archives, max_body_bytes, rows_per_batch),
                            spark_schema(READER_ROWS))


def run(spark, inputs: list[str], out: str, config, report: Report) -> int:
    """Ingest `inputs` into `out`; fills `report`; returns the number of pages written."""
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    settings = config.section("ingest")
    rows = build(spark, inputs, max_body_bytes=int(settings["max_body_bytes"]),
                 rows_per_batch=int(settings["rows_per_batch"])).persist(StorageLevel.MEMORY_AND_DISK)
    try:
        pages = rows.filter(F.col("skip_reason").isNull()).select(*PAGES.names)
        (pages.write.mode("overwrite").option("maxRecordsPerFile", int(settings["max_records_per_file"]))
         .parquet(out))
        skipped = rows.filter(F.col("skip_reason").isNotNull()).drop("body", "http_headers")
        skipped.coalesce(1).write.mode("overwrite").parquet(f"{out.rstrip('/')}/_skipped")
        reasons = counts_by(rows.select(F.coalesce("skip_reason", F.lit("page")).alias("reason")), "reason")
        written = spark.read.parquet(out)
        n_pages = written.count()
        n_records = sum(reasons.values())
        skip = {k: v for k, v in reasons.items() if k != "page"}
        report.check_accounting(n_records, {"pages": n_pages, **skip}, "records")
        report.set(inputs=list(inputs), input_records=n_records, pages=n_pages, skipped=skip,
                   ingest_status=counts_by(written, "ingest_status"), output=out)
        return n_pages
    finally:
        rows.unpersist()


def main(argv: list[str] | None = None) -> int:
    ap = job_parser("ingest", "Read WARC/ARC archives or HTML folders into the pages table (Parquet).")
    ap.add_argument("inputs", nargs="+", help="paths, globs, manifest files, or s3:// hdfs:// http(s):// URIs")
    ap.add_argument("--out", required=True, help="output folder of the pages table")
    args = ap.parse_args(argv)
    config = load_config(args)
    spark = spark_session("ingest", args.master, config.spark)
    report = Report("ingest", config)
    n = run(spark, args.inputs, args.out, config, report)
    report.finish(n, args.out, args.quiet)
    return 0


if __name__ == "__main__":
    sys.exit(main())
