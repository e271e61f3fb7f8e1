"""clean: `pages` -> `documents`, one row per page, through the one UDF adapter.

    pagesieve clean --pages out/pages --out out/documents --method cnr
    spark-submit --py-files dist/pagesieve.zip jobs/clean.py --pages out/pages --out out/documents
"""

from __future__ import annotations

import sys
from collections import Counter
from functools import partial

from pagesieve.jobs.common import (
    JobConfig,
    Report,
    executor_native,
    exit_on_config_error,
    grouped_counts,
    job_parser,
    load_config,
    method_ids,
    read_method_pages,
    run_table_job,
)
from pagesieve.udfs.adapter import MethodSpec, apply_method

__all__ = ["build", "method_spec", "run", "main"]


def method_spec(config: JobConfig, method: str | None = None) -> MethodSpec:
    """The cleaner to run (`--method`, else `clean.method`), its settings and guard, all checked."""
    settings = config.job("clean")
    name = method or settings.method
    return MethodSpec.of(name, config.method_overrides(_section(name)), kind="cleaner",
                         timeout_s=settings.page_timeout_s, guard=settings.guard, language=settings.language_id(),
                         max_site_pages=settings.max_site_pages)


def _section(method: str) -> str:
    from pagesieve.models.registry import resolve

    return resolve(method).name


def build(pages, spec: MethodSpec):
    """documents DataFrame for a pages DataFrame (lazy)."""
    return apply_method(pages, spec)


def run(spark, pages_path: str, out: str, config: JobConfig, report: Report, spec: MethodSpec | None = None) -> int:
    """Clean the pages at `pages_path` into `out` with `spec` (default: `method_spec(config)`); fills
    `report`; returns the documents written."""
    spec = spec or method_spec(config)
    pages, n_pages = read_method_pages(spark, pages_path, spec, config.job("clean"), report)
    build(pages, spec).write.mode("overwrite").parquet(out)
    # the three counts of what was written in one pass (they were three Spark jobs)
    by_status: Counter[str] = Counter()
    by_language: Counter[str] = Counter()
    by_method: Counter[str] = Counter()     # blocknet's second opinion shows as blocknet/1+resiliparse
    for (status, method, language), n in grouped_counts(spark.read.parquet(out), "status", "method", "language"):
        by_status[status] += n
        by_method[method] += n
        if status == "ok":   # ok documents by language ("null": too short, or language identification off)
            by_language[language] += n
    report.check_accounting(n_pages, dict(by_status), "pages")
    n_docs = sum(by_status.values())
    report.set(input=pages_path, input_rows=n_pages, output=out, by_status=dict(by_status),
               methods=method_ids(by_method), by_method=dict(by_method), by_language=dict(by_language),
               native=executor_native(spark))
    return n_docs


def main(argv: list[str] | None = None) -> int:
    ap = job_parser("clean", "Remove boilerplate: pages table -> documents table (one row per page).")
    ap.add_argument("--pages", required=True, help="folder of the pages table")
    ap.add_argument("--out", required=True, help="output folder of the documents table")
    ap.add_argument("--method", default=None,
                    help="blocknet (default), cnr (fastest), web2text, trafilatura, resiliparse, ..., or a dotted "
                         "path module:Class")
    args = ap.parse_args(argv)
    config = load_config(args, [args.method] if args.method else [], kind="cleaner")
    spec = method_spec(config, args.method)
    return run_table_job("clean", args, config, args.pages, "--pages", partial(run, spec=spec))


if __name__ == "__main__":
    sys.exit(exit_on_config_error(main))
