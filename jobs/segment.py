"""segment: `pages` -> `segments`, the VIPS block tree of every page, through the one UDF adapter.

    pagesieve segment --pages out/pages --out out/segments
    spark-submit --py-files dist/pagesieve.zip jobs/segment.py --pages out/pages --out out/segments

One row per block (parents before children); a page that fails gets one row with its status and null block
columns, so the report accounts for every page. Settings: `[segment]` of conf/jobs.toml (the page deadline
and the guard, "process" by default: a browser can hang), `[vips]` of conf/vips.toml.
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
    read_method_pages,
    run_table_job,
)
from pagesieve.udfs.adapter import MethodSpec, apply_method

__all__ = ["method_spec", "page_summary", "run", "main"]


def method_spec(config: JobConfig, method: str | None = None) -> MethodSpec:
    """The segmenter to run (`--method`, else `segment.method`) with its settings, deadline and guard."""
    from pagesieve.models.registry import resolve

    settings = config.job("segment")
    name = method or settings.method
    return MethodSpec.of(name, config.method_overrides(resolve(name, "segmenter").name), kind="segmenter",
                         timeout_s=settings.page_timeout_s, guard=settings.guard)


def page_summary(segments) -> tuple[dict[str, int], int, dict[str, int]]:
    """({page status: pages}, blocks written, {"max_depth": d}) of a segments table."""
    from pyspark.sql import functions as F

    per_page = segments.groupBy("page_id", "url").agg(F.first("status").alias("status"))
    by_status = {row.status: int(row["count"]) for row in per_page.groupBy("status").count().collect()}
    ok = segments.where(F.col("status") == "ok")
    n_blocks = ok.count()
    depth = ok.select(F.max(F.size(F.split("block_id", r"\."))).alias("d")).first().d or 0
    return by_status, n_blocks, {"max_depth": int(depth)}


def run(spark, pages_path: str, out: str, config: JobConfig, report: Report, spec: MethodSpec) -> int:
    """Segment the pages at `pages_path` into `out`; fills `report`; returns the blocks written."""
    pages, n_pages = read_method_pages(spark, pages_path, spec, config.job("segment"), report)
    apply_method(pages, spec).write.mode("overwrite").parquet(out)
    written = spark.read.parquet(out)
    by_status, n_blocks, shape = page_summary(written)
    report.check_accounting(n_pages, by_status, "pages")
    report.set(input=pages_path, input_rows=n_pages, output=out, by_status=by_status, blocks=n_blocks, **shape,
               methods=[f"{spec.method_class().name}/{spec.method_class().version}"])
    return n_blocks


def main(argv: list[str] | None = None) -> int:
    ap = job_parser("segment", "Segment pages into visual block trees: pages table -> segments table.")
    ap.add_argument("--pages", required=True, help="folder of the pages table")
    ap.add_argument("--out", required=True, help="output folder of the segments table")
    ap.add_argument("--method", default=None, help="a segmenter (default: segment.method, vips) or module:Class")
    args = ap.parse_args(argv)
    config = load_config(args, [args.method] if args.method else ["vips"], kind="segmenter")
    spec = method_spec(config, args.method)
    return run_table_job("segment", args, config, args.pages, "--pages", partial(run, spec=spec))


if __name__ == "__main__":
    sys.exit(exit_on_config_error(main))
