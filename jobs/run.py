"""run: ingest -> clean -> export in one Spark session.

    pagesieve run data/sample/sample.warc.gz --out out/

writes `out/pages`, `out/documents`, `out/export/{jsonl,parquet}` and `out/_report.json` (the
three stage reports, plus the whole run's wall time and pages/s).

    pagesieve run --pages landing/ --out out/

cleans and exports a pages table that is already there (a crawl's landing folder) instead of ingesting.
"""

from __future__ import annotations

import sys

from pagesieve.jobs import clean, export, ingest
from pagesieve.jobs.common import (
    ConfigError,
    Report,
    check_output,
    check_table,
    exit_on_config_error,
    job_parser,
    load_config,
    spark_session,
    staging_path,
    swap_in,
    write_json,
)

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    ap = job_parser("run", "Ingest archives, clean them and export the documents, in one go.")
    ap.add_argument("inputs", nargs="*", help="archives (paths, globs, manifests, URIs) or HTML folders")
    ap.add_argument("--pages", default=None, help="an existing pages table (e.g. a crawl's landing folder) to clean "
                    "and export instead of ingesting INPUTs")
    ap.add_argument("--out", required=True, help="output folder: pages/, documents/, export/, _report.json")
    ap.add_argument("--method", default=None, help="cleaning method (default from conf: cnr)")
    ap.add_argument("--gzip", action="store_true", help="gzip the JSONL files")
    ap.add_argument("--profile", default="auto", help="archive profile (see pagesieve ingest --help)")
    ap.add_argument("--force", action="store_true", help="re-ingest archives already committed in OUT/pages")
    args = ap.parse_args(argv)
    if bool(args.inputs) == bool(args.pages):
        raise ConfigError("give INPUT archives or --pages PAGES (one of the two)")
    config = load_config(args, [args.method] if args.method else [], kind="cleaner")
    spec = clean.method_spec(config, args.method)
    ingest.check_profile_name(args.profile)
    check_output(args.out)
    out = args.out.rstrip("/")
    if args.pages:
        check_table(args.pages, "--pages")
    paths = ingest.list_archives(args.inputs, config) if args.inputs else []   # an input matching nothing fails here
    pages = args.pages or f"{out}/pages"
    spark = spark_session("run", args.master, config.spark)
    whole = Report("run", config)
    stages = {}
    # documents and export are written beside the old ones and swapped in together with the report at the
    # end, so a rerun killed half-way (another --method, say) leaves the previous run's outputs as they were
    documents, exported = staging_path(f"{out}/documents"), staging_path(f"{out}/export")
    final = {"clean": {"output": f"{out}/documents"},
             "export": {"input": f"{out}/documents", "output": f"{out}/export"}}
    steps = [] if args.pages else [
        ("ingest", lambda r: ingest.run(spark, args.inputs, pages, config, r, force=args.force,
                                        profile=args.profile, paths=paths))]
    for name, step in (
        *steps,
        ("clean", lambda r: clean.run(spark, pages, documents, config, r, spec)),
        ("export", lambda r: export.run(spark, documents, exported, config, r, ["jsonl", "parquet"], args.gzip)),
    ):
        report = Report(name, config)
        n = step(report)
        report.set(**final.get(name, {}))   # the reports name the outputs they are swapped in as
        stages[name] = report.finish(n, None, quiet=True)
        if not args.quiet:
            print(report.summary(), file=sys.stderr)
    n_pages = stages["clean"]["input_rows"]
    records = stages["ingest"]["input_records"] if "ingest" in stages else n_pages
    whole.set(stages=stages, input_records=records, pages=n_pages, by_status=stages["clean"]["by_status"], output=out)
    data = whole.finish(n_pages, None, quiet=True)
    swap_in(documents, f"{out}/documents")
    swap_in(exported, f"{out}/export")
    write_json(f"{out}/_report.json", data)
    if not args.quiet:
        print(f"pagesieve run: {records} records -> {n_pages} pages -> "
              f"{stages['export']['rows']} exported documents in {data['wall_s']:.1f} s "
              f"({data['pages_per_s']:.1f} pages/s); report: {out}/_report.json", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(exit_on_config_error(main))
