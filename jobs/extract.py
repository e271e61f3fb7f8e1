"""extract: `pages` -> `records`, zero or more rows per page, through the one UDF adapter.

    pagesieve extract --pages out/pages --out out/records --method amber --schema real_estate
    pagesieve extract --pages out/pages --out out/records --method freedom --model book
    spark-submit --py-files dist/pagesieve.zip jobs/extract.py --pages out/pages --out out/records --method amber

A page with no record gets one row with status `empty`, a failing page one row with its status, so the
report accounts for every page: pages in = pages out by status.
"""

from __future__ import annotations

import sys
from functools import partial

from pagesieve.jobs.common import (
    JobConfig,
    Report,
    exit_on_config_error,
    job_parser,
    load_config,
    read_pages,
    run_table_job,
)
from pagesieve.udfs.adapter import MethodSpec, apply_method

__all__ = ["method_spec", "page_summary", "run", "main"]


def method_spec(config: JobConfig, method: str, schema: str | None = None, model: str | None = None) -> MethodSpec:
    """The extractor to run with its settings (`--schema` and `--model` set its `schema` and `model`
    settings), all checked."""
    from pagesieve.models.registry import resolve

    settings = config.job("clean")           # the page deadline, the guard and the site cap are the clean job's
    overrides = config.method_overrides(resolve(method, "extractor").name)
    if schema is not None:
        overrides["schema"] = schema
    if model is not None:
        overrides["model"] = model
    return MethodSpec.of(method, overrides, kind="extractor", timeout_s=settings.page_timeout_s,
                         guard=settings.guard, max_site_pages=settings.max_site_pages)


def _percentiles(values: list[int]) -> dict[str, int]:
    ordered = sorted(values)
    if not ordered:
        return {}
    at = {"p50": 0.5, "p90": 0.9, "p99": 0.99}
    return {**{k: ordered[min(len(ordered) - 1, int(q * len(ordered)))] for k, q in at.items()}, "max": ordered[-1]}


def page_summary(records) -> tuple[dict[str, int], list[int]]:
    """({page status: pages}, records per page) of a records table, with one aggregation over pages."""
    from pyspark.sql import functions as F

    per_page = records.groupBy("page_id").agg(F.first("status").alias("status"),
                                              F.sum(F.when(F.col("status") == "ok", 1).otherwise(0)).alias("n"))
    by_status: dict[str, int] = {}
    counts: list[int] = []
    for row in per_page.select("status", "n").collect():
        by_status[row.status] = by_status.get(row.status, 0) + 1
        counts.append(int(row.n))
    return by_status, counts


def run(spark, pages_path: str, out: str, config: JobConfig, report: Report, spec: MethodSpec) -> int:
    """Extract the records of the pages at `pages_path` into `out`; fills `report`; returns the records."""
    pages, n_pages = read_pages(spark, pages_path, config.job("clean").min_partitions)
    apply_method(pages, spec).write.mode("overwrite").parquet(out)
    written = spark.read.parquet(out)
    by_status, per_page = page_summary(written)
    report.check_accounting(n_pages, by_status, "pages")
    n_records = sum(per_page)
    report.set(input=pages_path, input_rows=n_pages, output=out, by_status=by_status, records=n_records,
               records_per_page=_percentiles(per_page), methods=sorted({spec.method_class().name}))
    return n_records


def main(argv: list[str] | None = None) -> int:
    ap = job_parser("extract", "Extract records: pages table -> records table (zero or more rows per page).")
    ap.add_argument("--pages", required=True, help="folder of the pages table")
    ap.add_argument("--out", required=True, help="output folder of the records table")
    ap.add_argument("--method", required=True, help="an extractor (amber, freedom, ...) or a dotted path module:Class")
    ap.add_argument("--schema", default=None, help="the domain schema, as the method's `schema` setting")
    ap.add_argument("--model", default=None, help="a trained model (packaged name or file stem), as the method's "
                                                  "`model` setting (freedom: `book`)")
    args = ap.parse_args(argv)
    config = load_config(args, [args.method], kind="extractor")
    spec = method_spec(config, args.method, args.schema, args.model)
    return run_table_job("extract", args, config, args.pages, "--pages", partial(run, spec=spec))


if __name__ == "__main__":
    sys.exit(exit_on_config_error(main))
