"""One method against the better of its peers, per benchmark, with a paired bootstrap interval on the gap.

Reads the `scores.csv` that `pagesieve evaluate` writes (one row per page and method) and, for each dataset in
it, pairs the pages that every named method scored: the bar is the peer with the higher mean there (as the
held-out table of docs/evaluation.md#held-out-test-parts reads it), the gap is the method's mean minus the
bar's, and the interval comes from `pagesieve.eval.significance.paired_bootstrap` (seeded: reruns print the same
figures; "holds" where it excludes 0; under `FEW_PAGES` pages it is too narrow, and the row says so). A page a method
failed on keeps the score the report gave it (an empty output scores 0), as the means of `report.md` do.

    .venv/bin/python scripts/eval/compare_scores.py report/scores.csv --method blocknet \
        --against trafilatura,readability
    .venv/bin/python scripts/eval/compare_scores.py report/scores.csv --method blocknet --against readability \
        --metric shingle_f1 --level 0.9

(The code lives here, in the package, so that the tests import it; scripts/eval/compare_scores.py runs `main`.)
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pagesieve.eval.significance import FEW_PAGES, PairedDifference, paired_bootstrap

__all__ = ["METRICS", "Row", "compare", "main", "read_scores"]

METRICS = ("bow_f1", "bow_precision", "bow_recall", "shingle_f1", "shingle_precision", "shingle_recall")


def read_scores(path: Path, metric: str) -> dict[str, dict[str, dict[str, float]]]:
    """{dataset: {method: {page_id: score}}} from a scores.csv."""
    if not path.is_file():
        raise SystemExit(f"compare_scores: no such file: {path}")
    out: dict[str, dict[str, dict[str, float]]] = defaultdict(lambda: defaultdict(dict))
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        missing = {"dataset", "page_id", "method", metric} - set(reader.fieldnames or ())
        if missing:
            raise SystemExit(f"compare_scores: {path} has no column {', '.join(sorted(missing))} "
                             "(is it the scores.csv of `pagesieve evaluate`?)")
        for line, row in enumerate(reader, start=2):
            if row[metric] == "":
                continue   # a page without that gold (snippet gold only): not scored by this metric
            try:
                out[row["dataset"]][row["method"]][row["page_id"]] = float(row[metric])
            except ValueError:
                raise SystemExit(f"compare_scores: {path}:{line}: {metric} is not a number: {row[metric]!r}") from None
    return out


@dataclass(frozen=True, slots=True)
class Row:
    dataset: str
    bar: str                 # the peer with the higher mean on the paired pages
    method_mean: float
    bar_mean: float
    unpaired: int            # pages some but not all of the methods scored, left out
    gap: PairedDifference    # method minus bar


def compare(scores: dict[str, dict[str, dict[str, float]]], method: str, peers: list[str], rounds: int,
            level: float, seed: int) -> list[Row]:
    """One row per dataset that has scores of the method and of every peer."""
    rows = []
    for dataset, by_method in scores.items():
        absent = [m for m in [method, *peers] if m not in by_method]
        if absent:
            print(f"{dataset}: skipped, no scores for {', '.join(absent)}", file=sys.stderr)
            continue
        pages = sorted(set.intersection(*(set(by_method[m]) for m in [method, *peers])))
        everywhere = set().union(*(set(by_method[m]) for m in [method, *peers]))
        if not pages:
            print(f"{dataset}: skipped, no page scored by every method", file=sys.stderr)
            continue
        column = {m: np.array([by_method[m][p] for p in pages]) for m in [method, *peers]}
        bar = max(peers, key=lambda m: column[m].mean())        # ties: the first named
        gap = paired_bootstrap(column[method], column[bar], rounds=rounds, level=level, seed=seed)
        rows.append(Row(dataset, bar, float(column[method].mean()), float(column[bar].mean()),
                        len(everywhere) - len(pages), gap))
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scores", type=Path, help="scores.csv written by `pagesieve evaluate`")
    ap.add_argument("--method", required=True)
    ap.add_argument("--against", required=True, help="comma-separated peers; the bar is the best of them per dataset")
    ap.add_argument("--metric", default="bow_f1", choices=METRICS)
    ap.add_argument("--rounds", type=int, default=10_000)
    ap.add_argument("--level", type=float, default=0.95)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    peers = [p for p in args.against.split(",") if p]
    if not peers or args.method in peers:
        ap.error("--against needs at least one method other than --method")
    try:
        rows = compare(read_scores(args.scores, args.metric), args.method, peers, args.rounds, args.level, args.seed)
    except ValueError as e:      # a level or a rounds out of range
        ap.error(str(e))
    if not rows:
        raise SystemExit(f"compare_scores: no dataset in {args.scores} has scores of {args.method} and {args.against}")
    print(f"| dataset | pages | {args.method} | bar | bar {args.metric} | gap | {100 * args.level:g}% interval "
          "| wins / ties / losses |")
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        gap = row.gap
        pages = f"{gap.pages}" + (f" ({row.unpaired} unpaired left out)" if row.unpaired else "")
        pages += " (few: the interval is a hint)" if gap.pages < FEW_PAGES else ""
        print(f"| {row.dataset} | {pages} | {row.method_mean:.4f} | {row.bar} | {row.bar_mean:.4f} | "
              f"{gap.difference:+.4f} | [{gap.low:+.4f}, {gap.high:+.4f}]{' (holds)' if gap.excludes_zero else ''} | "
              f"{gap.wins} / {gap.ties} / {gap.losses} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
