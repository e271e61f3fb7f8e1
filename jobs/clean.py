"""clean: `pages` -> `documents`, one row per page, through the method's pandas UDF.

    pagesieve clean --pages out/pages --out out/documents --method cnr
    spark-submit --py-files dist/pagesieve.zip jobs/clean.py --pages out/pages --out out/documents
"""

from __future__ import annotations

import functools
import sys
from typing import Any

from pagesieve.jobs.common import Report, counts_by, job_parser, load_config, spark_session
from pagesieve.schemas import DOCUMENTS, PAGES, spark_schema

__all__ = ["build", "run", "main"]


def build(pages, method: str, overrides: dict[str, Any] | None = None, page_timeout_s: float | None = None):
    """documents DataFrame for a pages DataFrame (lazy). Fails early on an unknown method or setting."""
    from pagesieve.models.registry import build_method
    from pagesieve.udfs.clean import PAGE_COLUMNS, clean_batches, freeze

    build_method(method, overrides)  # validate on the driver, before any data is read
    udf = functools.partial(clean_batches, method, freeze(overrides or {}), page_timeout_s)
    return pages.select(*PAGE_COLUMNS).mapInPandas(udf, spark_schema(DOCUMENTS))


def run(spark, pages_path: str, out: str, config, report: Report, method: str | None = None) -> int:
    """Clean the pages at `pages_path` into `out`; fills `report`; returns the documents written."""
    settings = config.section("clean")
    method = method or settings["method"]
    pages = spark.read.schema(spark_schema(PAGES)).parquet(pages_path)
    n_pages = pages.count()
    wanted = int(settings["min_partitions"]) or spark.sparkContext.defaultParallelism
    if pages.rdd.getNumPartitions() < min(wanted, n_pages):
        pages = pages.repartition(min(wanted, n_pages))
    documents = build(pages, method, config.section(method), float(settings["page_timeout_s"]))
    documents.write.mode("overwrite").parquet(out)
    written = spark.read.parquet(out)
    by_status = counts_by(written, "status")
    report.check_accounting(n_pages, by_status, "pages")
    n_docs = sum(by_status.values())
    methods = sorted(counts_by(written, "method"))
    report.set(input=pages_path, input_rows=n_pages, output=out, by_status=by_status, methods=methods)
    return n_docs


def main(argv: list[str] | None = None) -> int:
    ap = job_parser("clean", "Remove boilerplate: pages table -> documents table (one row per page).")
    ap.add_argument("--pages", required=True, help="folder of the pages table")
    ap.add_argument("--out", required=True, help="output folder of the documents table")
    ap.add_argument("--method", default=None, help="cnr (default), web2text, trafilatura, resiliparse, ...")
    args = ap.parse_args(argv)
    config = load_config(args)
    spark = spark_session("clean", args.master, config.spark)
    report = Report("clean", config)
    n = run(spark, args.pages, args.out, config, report, args.method)
    report.finish(n, args.out, args.quiet)
    return 0


if __name__ == "__main__":
    sys.exit(main())
