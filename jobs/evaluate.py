"""evaluate: score extraction methods against gold text, and time them against each other.

    pagesieve evaluate --dataset ../shared/data/cleaneval --dataset ../shared/data/scrapinghub \\
        --methods cnr,trafilatura,resiliparse --out report/
    pagesieve evaluate --dataset ../shared/data/wcxb --dataset ../shared/data/trafilatura-eval \\
        --by page_type --by language --out report/

Plain gold is scored by bag of words and shingles, snippet gold (`gold-snippets/`, WCXB's `gold-json/`) by
trafilatura's with/without passage protocol; `--by FIELD` adds the tables per value of a meta.jsonl field.
Writes `report/report.md` and `report.json` (one table per dataset), `scores.csv` (every method on
every page) and PNG plots. Runs in one Python process, not on Spark: speed is compared on one
core with the methods interleaved, which a cluster would blur. A method that cannot be built
(unknown name, missing optional package) is skipped with its reason in the report.

Extractors on the listing pages with record ground truth (`eval/listings_report.py`): record and
attribute P/R/F1 per domain and overall, the same report files, a plot of the per-page record F1:

    pagesieve evaluate --listings [DIR] --methods amber --out report/
    pagesieve evaluate --listings --ablation --out report/     # amber, amber:structure, amber:annotations

FreeDOM on SWDE-style sites (`eval/freedom.py`, `eval/swde.py`): SWDE's page-level F1 per field, macro over
fields, then over sites, node stage alone and with XPath voting; SITES as scripts/train/train_freedom.py's
`--seed-sites` (an SWDE site with pages on disk, `name[A-B]` for a range of its page ids, `synthetic:A-B`):

    pagesieve evaluate --swde 'booksamillion[200-399],synthetic:20-29' --model book --out report/

`NAME:MODE` runs a method with its `mode` setting (AMBER's ablations, models/amber/ablation.py). DIR
defaults to ../shared/data/listings.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

from pagesieve.jobs.common import ConfigError, check_apart, check_output, exit_on_config_error, load_config

__all__ = ["main"]

log = logging.getLogger(__name__)


def memory_probe(method: str, dataset: str, split: str | None, limit: int, settings: dict) -> dict | None:
    """Peak memory of one method over (part of) a dataset, in a fresh subprocess; None if the probe fails."""
    cmd = [sys.executable, "-m", "pagesieve.eval.memory", "--method", method, "--dataset", dataset,
           "--limit", str(limit), "--settings", json.dumps(settings)]
    if split:
        cmd += ["--split", split]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
    if proc.returncode != 0:
        log.warning("memory probe of %s failed: %s", method, proc.stderr.strip()[-300:])
        return None
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    from pagesieve.eval import dataset_name, iter_gold_pages
    from pagesieve.eval.datasets import split_files
    from pagesieve.eval.harness import build_methods, evaluate_pages
    from pagesieve.eval.listings_report import DEFAULT_LISTINGS
    from pagesieve.eval.report import write_report

    ap = argparse.ArgumentParser(prog="pagesieve evaluate", description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", action="append", default=None, metavar="DIR_OR_JSONL",
                    help="input/ + gold/ folder (../shared/data layout or your own), or a JSONL of {url, html, text}")
    ap.add_argument("--listings", nargs="?", const=str(DEFAULT_LISTINGS), default=None, metavar="DIR",
                    help="score extractors on listing pages with record truth (pages/ + truth/; default "
                         "../shared/data/listings) instead of cleaners on --dataset")
    ap.add_argument("--swde", default=None, metavar="SITES",
                    help="FreeDOM on SWDE-style sites instead of cleaners on --dataset (see above)")
    ap.add_argument("--model", default=None, help="with --swde: the FreeDOM model (packaged name or file stem)")
    ap.add_argument("--fields", default="author,isbn_13,publication_date,publisher,title",
                    help="with --swde: the fields scored")
    ap.add_argument("--methods", default=None,
                    help="comma-separated method names (default cnr,trafilatura,resiliparse; amber with --listings); "
                         "NAME:MODE sets the method's mode (amber:structure)")
    ap.add_argument("--ablation", action="store_true",
                    help="with --listings: amber, amber:structure and amber:annotations side by side")
    ap.add_argument("--out", required=True, help="report folder")
    ap.add_argument("--split", default=None,
                    help="the split NAME of each dataset that has it (its splits/NAME.txt or "
                         "conf/splits/<dataset>/NAME.txt; test = the held-out part of the six benchmarks)")
    ap.add_argument("--limit", type=int, default=0, help="first N pages of each dataset (0 = all)")
    ap.add_argument("--warmup", type=int, default=None,
                    help="pages run untimed through every method first (default 20; 2 with --listings)")
    ap.add_argument("--memory-pages", type=int, default=200, help="pages for the per-method memory probe")
    ap.add_argument("--no-memory", action="store_true", help="skip the memory probes")
    ap.add_argument("--no-plots", action="store_true")
    ap.add_argument("--blocks", action="store_true",
                    help="also score block labels (Web2Text's DOM-leaf blocks, labelled from the gold text)")
    ap.add_argument("--by", action="append", default=[], metavar="FIELD",
                    help="also break every table down by this meta.jsonl field (repeatable: --by page_type "
                         "--by language); scores.csv gets a column per field")
    ap.add_argument("--cpu", type=int, default=0, help="CPU to pin the process to (-1: no pinning)")
    ap.add_argument("--conf", action="append", default=[], metavar="METHOD.KEY=VALUE", help="method settings")
    ap.add_argument("--config", default=None, metavar="FILE", help="TOML file with [method] sections")
    args = ap.parse_args(argv)
    if args.swde is not None:
        if args.dataset or args.listings is not None:
            raise ConfigError("--swde with --dataset or --listings: give one")
        return main_swde(args)
    if args.listings is not None:
        if args.dataset:
            raise ConfigError("--listings and --dataset: give one (records and text are scored apart)")
        return main_listings(args)
    if not args.dataset:
        raise ConfigError("--dataset or --listings is required")
    if args.ablation:
        raise ConfigError("--ablation: only with --listings")
    args.warmup = 20 if args.warmup is None else args.warmup
    names = [m.strip() for m in (args.methods or "cnr,trafilatura,resiliparse").split(",") if m.strip()]
    config = load_config(args, names, kind="cleaner")
    for path in args.dataset:
        if "://" not in path and not os.path.exists(path):
            raise ConfigError(f"--dataset {path}: no such folder or file")
    by = list(dict.fromkeys(args.by))
    _check_by(by, args.dataset)
    check_output(args.out)
    check_apart(args.out, [("--dataset", path) for path in args.dataset])
    if args.cpu >= 0 and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {args.cpu})  # "pages/s on one core" must mean one core
    methods, skipped = build_methods(names, {n: config.method_overrides(n) for n in names})
    if not methods:
        raise ConfigError(f"no method could be built: {skipped}")
    scores, memory = [], {}
    for path in args.dataset:
        name = dataset_name(path)
        split = args.split if args.split and args.split in split_files(Path(path)) else None
        pages = list(iter_gold_pages(path, split))
        if args.limit:
            pages = pages[: args.limit]
        log.info("%s: %d pages, methods %s", name, len(pages), ", ".join(methods))
        scores += evaluate_pages(name, pages, methods, warmup=args.warmup, blocks=args.blocks, by=by)
        if not args.no_memory:
            limit = min(args.memory_pages, len(pages))
            memory[name] = {m: memory_probe(m, path, split, limit, config.method_overrides(m)) for m in methods}
    data = write_report(scores, args.out, skipped=skipped, memory=memory, plots=not args.no_plots, by=by,
                        config={"methods": names, "datasets": args.dataset, "split": args.split, "limit": args.limit,
                                "warmup": args.warmup, "cpu": args.cpu, "blocks": args.blocks, "by": by,
                                "settings": {n: config.method_overrides(n) for n in methods}})
    print((Path(args.out) / "report.md").read_text(encoding="utf-8"))
    print(f"report: {args.out}/report.md, {len(data['files'])} files", file=sys.stderr)
    return 0


def _check_by(by: list[str], datasets: list[str]) -> None:
    """A --by field must be in the meta.jsonl of at least one dataset and must not shadow a scores.csv column."""
    from pagesieve.eval.datasets import meta_fields
    from pagesieve.eval.harness import PageScore

    if not by:
        return
    columns = PageScore("", "", "", "", None, None, None, 0.0, 0).row()
    try:
        present = set().union(*(meta_fields(path) for path in datasets))
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    for field in by:
        if field in columns:
            raise ConfigError(f"--by {field}: already a column of scores.csv; group on another meta.jsonl field")
        if field not in present:
            raise ConfigError(f"--by {field}: no page of {', '.join(datasets)} has it in meta.jsonl "
                              f"(fields: {', '.join(sorted(present)) or 'none'})")


def main_swde(args: argparse.Namespace) -> int:
    """`evaluate --swde`: FreeDOM's page-level F1 per site, voting off and on; report.json and report.md."""
    from pagesieve.eval.freedom import score_sites, sites_of
    from pagesieve.eval.swde import SWDE_ROOT
    from pagesieve.models.registry import load_settings

    config = load_config(args, ["freedom"], kind="extractor")
    overrides = config.method_overrides("freedom") | ({"model": args.model} if args.model else {})
    settings = load_settings("freedom", overrides, "extractor")
    fields = [f for f in args.fields.split(",") if f]
    try:
        sites = sites_of(args.swde, "book", fields, SWDE_ROOT, 30, 0)
    except (ValueError, FileNotFoundError) as exc:
        raise ConfigError(f"--swde {args.swde}: {exc}") from None
    check_output(args.out)
    if args.cpu >= 0 and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {args.cpu})
    data = {"config": {"swde": args.swde, "fields": fields, "settings": overrides},
            "node": score_sites("", sites, fields, False, settings=settings),
            "vote": score_sites("", sites, fields, True, settings=settings)}
    lines = ["| site | node stage alone | + XPath voting |", "|---|---|---|"]
    lines += [f"| {s} | {data['node'][s]['f1']:.3f} | {data['vote'][s]['f1']:.3f} |"
              for s in [*(site.name for site in sites), "mean"]]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.json").write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
    (out / "report.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    return 0


def main_listings(args: argparse.Namespace) -> int:
    """`evaluate --listings`: extractors on the listing pages, scored by `eval/listings.py`, written by
    `eval/listings_report.py`."""
    from pagesieve.eval.listings import read_listings
    from pagesieve.eval.listings_report import (
        ABLATION_METHODS,
        ListingMethods,
        evaluate_listings,
        schema_for,
        split_spec,
        write_listings_report,
    )

    specs = [m.strip() for m in (args.methods or ("" if args.ablation else "amber")).split(",") if m.strip()]
    if args.ablation:
        specs = list(dict.fromkeys([*ABLATION_METHODS, *specs]))
    names = list(dict.fromkeys(split_spec(s)[0] for s in specs))
    config = load_config(args, names, kind="extractor")
    if "://" in args.listings or not os.path.isdir(args.listings):
        raise ConfigError(f"--listings {args.listings}: no such folder")
    check_output(args.out)
    check_apart(args.out, [("--listings", args.listings)])
    pages = read_listings(args.listings)
    if args.limit:
        pages = pages[: args.limit]
    methods = ListingMethods(specs, [schema_for(p.domain) for p in pages],
                             {n: config.method_overrides(n) for n in names})
    if args.cpu >= 0 and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {args.cpu})  # "pages/s on one core" must mean one core
    warmup = 2 if args.warmup is None else args.warmup
    log.info("listings: %d pages, methods %s", len(pages), ", ".join(specs))
    scores = evaluate_listings(pages, methods, warmup=warmup)
    data = write_listings_report(scores, args.out, plots=not args.no_plots,
                                 config={"methods": specs, "listings": args.listings, "limit": args.limit,
                                         "warmup": warmup, "cpu": args.cpu,
                                         "settings": {n: config.method_overrides(n) for n in names}})
    print((Path(args.out) / "report.md").read_text(encoding="utf-8"))
    print(f"report: {args.out}/report.md, {len(data['files'])} files", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(exit_on_config_error(main))
