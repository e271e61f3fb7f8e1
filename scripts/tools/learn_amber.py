"""Learn AMBER's gazetteers from result pages (paper section 4, Algorithm 5; upfront learning, section 6.4).

Runs rounds over the pages: each round extracts every page with the current gazetteers (the shipped ones
with the learned file applied), sums the pages' evidence and adds or drops terms; the state is saved to
--learned after every round (JSON, a temp file renamed over it; a person may edit it). Extraction then uses
it with `--conf amber.learned=FILE` / `AmberSettings(learned=FILE)`. One local process; the evidence is
mergeable (`Evidence.to_json`), so a Spark version would compute it per page and merge on the driver.

    .venv/bin/python scripts/tools/learn_amber.py --pages ../shared/data/listings --domain real_estate \\
        --schema real_estate --learned /tmp/learned_real_estate.json --rounds 5
    .venv/bin/python scripts/tools/learn_amber.py --pages saved_pages/ --learned learned.json     # *.html files
    .venv/bin/python scripts/tools/learn_amber.py --generated 60 --learned /tmp/learned.json       # generated pages
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pagesieve.models.amber.learning import learn_pages, load_learned
from pagesieve.models.page import PageError, ParsedPage, parse_page
from pagesieve.settings import ConfigError


def read_pages(folder: Path, domain: str | None = None) -> tuple[list[ParsedPage], int]:
    """The parsed pages of a folder of .html/.htm files, or of a listings folder (its pages/, only those
    whose truth names `domain` when given); and the number of files that could not be parsed (skipped)."""
    root = folder / "pages" if (folder / "pages").is_dir() else folder
    files = sorted(p for p in root.iterdir() if p.suffix.lower() in (".html", ".htm"))
    if domain is not None and (folder / "truth").is_dir():
        from pagesieve.eval.listings import read_listing_truth

        files = [p for p in files if (t := folder / "truth" / f"{p.stem}.json").is_file()
                 and read_listing_truth(t).domain == domain]
    pages, bad = [], 0
    for path in files:
        try:
            pages.append(parse_page(path.read_bytes(), page_id=path.stem))
        except PageError:
            bad += 1
    return pages, bad


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    source = ap.add_mutually_exclusive_group(required=True)
    source.add_argument("--pages", type=Path, help="folder of .html files, or a listings folder with pages/")
    source.add_argument("--generated", type=int, help="learn from this many generated pages instead")
    ap.add_argument("--domain", default=None, help="listings folder: only the pages of this domain")
    ap.add_argument("--seed", type=int, default=0, help="seed of the generated pages")
    ap.add_argument("--schema", default="real_estate", help="packaged domain or a schema file path")
    ap.add_argument("--learned", required=True, type=Path, help="learned-gazetteers file (created or continued)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--all-rounds", action="store_true", help="do not stop at a round that changes nothing")
    ap.add_argument("--show", type=int, default=12, help="terms to list per type and round")
    args = ap.parse_args(argv)

    if args.generated is not None:
        from pagesieve.eval.listing_generator import generate_pages

        pages, bad = [parse_page(p.html.encode()) for p in generate_pages(args.generated, args.seed)], 0
    else:
        if not args.pages.is_dir():
            print(f"learn_amber: --pages {args.pages}: not a folder", file=sys.stderr)
            return 2
        pages, bad = read_pages(args.pages, args.domain)
    if not pages:
        print("learn_amber: no pages to learn from", file=sys.stderr)
        return 2
    print(f"{len(pages)} pages" + (f" ({bad} unparsable skipped)" if bad else "") + f", schema {args.schema}")
    try:
        reports = learn_pages(pages, args.learned, schema=args.schema, rounds=args.rounds,
                              stop_when_stable=not args.all_rounds)
    except ConfigError as exc:
        print(f"learn_amber: {exc}", file=sys.stderr)
        return 2
    for k, report in enumerate(reports, 1):
        for type_ in sorted(set(report.added) | set(report.dropped)):
            added, dropped = report.added.get(type_, ()), report.dropped.get(type_, ())
            print(f"round {k} {type_:<14} +{len(added):<4} -{len(dropped):<4}"
                  f" added: {', '.join(added[:args.show])}{' ...' if len(added) > args.show else ''}"
                  f"{'  dropped: ' + ', '.join(dropped[:args.show]) if dropped else ''}")
    state = load_learned(args.learned)
    totals = ", ".join(f"{t} +{len(state.added.get(t, ()))} -{len(state.dropped.get(t, ()))}"
                       for t in sorted(set(state.added) | set(state.dropped)))
    print(f"{args.learned}: {state.rounds} rounds in all; {totals}")
    print(f"use it with: pagesieve extract ... --method amber --schema {args.schema} "
          f"--conf amber.learned={args.learned}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
