"""run: ingest -> clean -> export in one Spark session.

    pagesieve run data/sample/sample.warc.gz --out out/

writes `out/pages`, `out/documents`, `out/export/{jsonl,parquet}` and `out/_report.json` (the
three stage reports, plus the whole run's wall time and pages/s).
"""

from __future__ import annotations

import sys

from pagesieve.jobs import clean, export, ingest
from pagesieve.jobs.common import (
    Report,
    check_output,
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
    ap.add_argument("inputs", nargs="+", help="archives (paths, globs, manifests, URIs) or HTML folders")
    ap.add_argument("--out", required=True, help="output folder: pages/, documents/, export/, _report.json")
    ap.add_argument("--method", default=None, help="cleaning method (default from conf: cnr)")
    ap.add_argument("--gzip", action="store_true", help="gzip the JSONL files")
    ap.add_argument("--profile", default="auto", help="archive profile (see pagesieve ingest --help)")
    ap.add_argument("--force", action="store_true", help="re-ingest archives already committed in OUT/pages")
    args = ap.parse_args(argv)
    config = load_config(args, [args.method] if args.method else [], kind="cleaner")
    spec = clean.method_spec(config, args.method)
    ingest.check_profile_name(args.profile)
    check_output(args.out)
    out = args.out.rstrip("/")
    paths = ingest.list_archives(args.inputs, config)     # an input that matches nothing fails here
    spark = spark_session("run", args.master, config.spark)
    whole = Report("run", config)
    stages = {}
    # documents and export are written beside the old ones and swapped in together with the report at the
    # end, so a rerun killed half-way (another --method, say) leaves the previous run's outputs as they were
    documents, exported = staging_path(f"{out}/documents"), staging_path(f"{out}/export")
    final = {"clean": {"output": f"{out}/documents"},
             "export": {"input": f"{out}/documents", "output": f"{out}/export"}}
    for name, step in (
        ("ingest", lambda r: ingest.run(spark, args.inputs, f"{out}/pages", config, r, force=args.force,
                                        profile=args.profile, paths=paths)),
        ("clean", lambda r: clean.run(spark, f"{out}/pages", documents, config, r, spec)),
        ("export", lambda r: export.run(spark, documents, exported, config, r, ["jsonl", "parquet"], args.gzip)),
    ):
        report = Report(name, config)
        n = step(report)
        report.set(**final.get(name, {}))   # the reports name the outputs they are swapped in as
        stages[name] = report.finish(n, None, quiet=True)
        if not args.quiet:
            print(report.summary(), file=sys.stderr)
    pages = stages["ingest"]["rows"]
    whole.set(stages=stages, input_records=stages["ingest"]["input_records"], pages=pages,
              by_status=stages["clean"]["by_status"], output=out)
    data = whole.finish(pages, None, quiet=True)
    swap_in(documents, f"{out}/documents")
    swap_in(exported, f"{out}/export")
    write_json(f"{out}/_report.json", data)
    if not args.quiet:
        print(f"pagesieve run: {stages['ingest']['input_records']} records -> {pages} pages -> "
              f"{stages['export']['rows']} exported documents in {data['wall_s']:.1f} s "
              f"({data['pages_per_s']:.1f} pages/s); report: {out}/_report.json", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(exit_on_config_error(main))
