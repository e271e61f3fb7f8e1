"""run: ingest -> clean -> export in one Spark session.

    pagesieve run data/sample/sample.warc.gz --out out/

writes `out/pages`, `out/documents`, `out/export/{jsonl,parquet}` and `out/_report.json` (the
three stage reports, plus the whole run's wall time and pages/s).

    pagesieve run --pages landing/ --out out/

cleans and exports a pages table that is already there (a crawl's landing folder) instead of ingesting.

    pagesieve run data/sample/sample.warc.gz --out out/ --filter --dedup

adds the corpus stages between clean and export: `filter` (quality signals and rules) and then `dedup`
(among the documents the filter kept, so that no cluster is kept through a document a rule removed).
`out/documents` is then the last stage's table, with every stage's columns; the run report says how many
documents each stage removed and why (`removed`), and the counts add up to the cleaned documents.
"""

from __future__ import annotations

import sys

from pagesieve.jobs import clean, dedup, export, ingest
from pagesieve.jobs import filter as quality_filter
from pagesieve.jobs.common import (
    ConfigError,
    Report,
    check_apart,
    check_output,
    check_table,
    exit_on_config_error,
    job_parser,
    load_config,
    remove_tree,
    removed_on_failure,
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
    ap.add_argument("--method", default=None,
                    help="cleaning method (default from conf: blocknet; cnr for a fast first pass)")
    ap.add_argument("--gzip", action="store_true", help="gzip the JSONL files")
    ap.add_argument("--profile", default="auto", help="archive profile (see pagesieve ingest --help)")
    ap.add_argument("--force", action="store_true", help="re-ingest archives already committed in OUT/pages")
    ap.add_argument("--filter", action="store_true", help="after clean: quality signals and rules ([filter] in conf)")
    ap.add_argument("--dedup", action="store_true", help="after clean (and filter): mark exact and near duplicates "
                    "([dedup] in conf); export leaves them out")
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
    # what the run replaces or adds to: documents/ and export/, and pages/ when it ingests
    written = ("documents", "export") if args.pages else ("documents", "export", "pages")
    if args.pages:
        check_apart(args.out, [("--pages", args.pages)], written)
    else:
        ingest.check_inputs_apart(args.out, args.inputs, paths, written)
    pages = args.pages or f"{out}/pages"
    spark = spark_session("run", args.master, config.spark)
    whole = Report("run", config)
    stages = {}
    # documents and export are written beside the old ones and swapped in together with the report at the
    # end, so a rerun killed half-way (another --method, say) leaves the previous run's outputs as they were
    documents, exported = staging_path(f"{out}/documents"), staging_path(f"{out}/export")
    # each corpus stage reads the table before it; the tables before the last are scratch beside `documents`
    # (named so that the next run's staging_path tidies them if this one is killed)
    corpus = [name for name, on in (("filter", args.filter), ("dedup", args.dedup)) if on]
    tables = [f"{documents}-{name}" for name in ["clean", *corpus][:-1]] + [documents]
    final = {name: {"output": f"{out}/documents"} for name in ["clean", *corpus]}
    final["export"] = {"input": f"{out}/documents", "output": f"{out}/export"}
    steps = [] if args.pages else [
        ("ingest", lambda r: ingest.run(spark, args.inputs, pages, config, r, force=args.force,
                                        profile=args.profile, paths=paths))]
    steps.append(("clean", lambda r: clean.run(spark, pages, tables[0], config, r, spec)))
    stage_jobs = {"filter": quality_filter.run, "dedup": dedup.run}
    for i, name in enumerate(corpus):
        steps.append((name, lambda r, i=i, job=stage_jobs[name]: job(spark, tables[i], tables[i + 1], config, r)))
    steps.append(("export", lambda r: export.run(spark, documents, exported, config, r, ["jsonl", "parquet"],
                                                 args.gzip)))
    with removed_on_failure(documents, exported, *tables[:-1]):   # a failed run leaves no staging folder
        for name, step in steps:
            report = Report(name, config)
            n = step(report)
            report.set(**final.get(name, {}))   # the reports name the outputs they are swapped in as
            stages[name] = report.finish(n, None, quiet=True)
            if not args.quiet:
                print(report.summary(), file=sys.stderr)
    n_pages = stages["clean"]["input_rows"]
    records = stages["ingest"]["input_records"] if "ingest" in stages else n_pages
    whole.set(stages=stages, input_records=records, pages=n_pages, by_status=stages["clean"]["by_status"],
              by_method=stages["clean"]["by_method"], output=out)
    if corpus:
        whole.set(removed=_removed(stages))
    data = whole.finish(n_pages, None, quiet=True)
    for scratch in tables[:-1]:
        remove_tree(scratch)
    swap_in(documents, f"{out}/documents")
    swap_in(exported, f"{out}/export")
    write_json(f"{out}/_report.json", data)
    if not args.quiet:
        print(f"pagesieve run: {records} records -> {n_pages} pages -> "
              f"{stages['export']['rows']} exported documents in {data['wall_s']:.1f} s "
              f"({data['pages_per_s']:.1f} pages/s); report: {out}/_report.json", file=sys.stderr)
    return 0


def _removed(stages: dict) -> dict:
    """What each corpus stage removed and why, from the export's count of what it left out, checked to add up:
    ok documents = exported + removed by filter rules + duplicates."""
    left_out = stages["export"]["left_out"]
    removed = {"filter": left_out.get("removed_by", {}), "dedup": left_out.get("duplicate", 0)}
    ok = stages["clean"]["by_status"].get("ok", 0)
    exported = stages["export"]["exported"].get("jsonl", 0)
    if ok != exported + sum(removed["filter"].values()) + removed["dedup"]:
        raise RuntimeError(f"run: {ok} ok documents, {exported} exported and {removed} removed do not add up")
    return removed | {"ok_documents": ok, "exported": exported}


if __name__ == "__main__":
    sys.exit(exit_on_config_error(main))
