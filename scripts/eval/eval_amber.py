"""AMBER on the real listing pages: record- and attribute-level precision/recall/F1 per page, per domain and
overall, with the time per page (one process, pinned to one core).

A thin console view of `pagesieve evaluate --listings` (eval/listings_report.py), which runs, scores and
times the pages: real_estate and used_cars pages run with their schema, products, jobs and other pages with
the generic `products` schema; records are matched to the truth by `pagesieve.eval.listings`. For the
report files (report.md, scores.csv, plot) use `pagesieve evaluate --listings --out DIR`.

    .venv/bin/python scripts/eval/eval_amber.py                          # ../shared/data/listings
    .venv/bin/python scripts/eval/eval_amber.py --json amber.json
    .venv/bin/python scripts/eval/eval_amber.py --ablation               # amber, amber:structure, amber:annotations
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from pagesieve.eval.listings import read_listings
from pagesieve.eval.listings_report import (
    ABLATION_METHODS,
    DEFAULT_LISTINGS,
    ListingMethods,
    evaluate_listings,
    schema_for,
    summarise_listings,
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--listings", default=str(DEFAULT_LISTINGS))
    ap.add_argument("--methods", default="amber", help="comma-separated NAME[:MODE] (amber:structure)")
    ap.add_argument("--ablation", action="store_true", help="amber and its two ablations side by side")
    ap.add_argument("--cpu", type=int, default=0, help="CPU to pin to (-1: none)")
    ap.add_argument("--warmup", type=int, default=0, help="pages run untimed first")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    if args.cpu >= 0 and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {args.cpu})
    specs = list(ABLATION_METHODS) if args.ablation else [m for m in args.methods.split(",") if m]
    pages = read_listings(args.listings)
    scores = evaluate_listings(pages, ListingMethods(specs, [schema_for(p.domain) for p in pages]), args.warmup)
    summary = summarise_listings(scores)
    out: dict[str, dict] = {}
    for spec in specs:
        print(f"\n== {spec}")
        rows = []
        for s in (s for s in scores if s.method == spec):
            r = s.score.records
            rows.append({"page": s.page_id, "domain": s.domain, "schema": s.schema, "status": s.status,
                         "predicted": r.predicted, "gold": r.gold, "precision": round(r.precision, 3),
                         "recall": round(r.recall, 3), "f1": round(r.f1, 3), "ms": round(s.ms, 1)})
            print(f"{s.page_id:<26} {s.domain:<12} {s.status:<6} records {r.predicted:>4} / gold {r.gold:>3}"
                  f"  P {r.precision:.2f}  R {r.recall:.2f}  F1 {r.f1:.2f}  {s.ms:7.1f} ms")
        print(f"\n{'':<12} {'pages':>5} {'record P':>9} {'R':>6} {'F1':>6} (micro)   attributes P / R / F1 (micro)")
        groups = {}
        for name, g in summary[spec]["groups"].items():
            rec, att = g["records_micro"], g["attributes_micro"]
            groups[name] = {"pages": g["pages"], "records": [rec["precision"], rec["recall"], rec["f1"]],
                            "attributes": [att["precision"], att["recall"], att["f1"]]}
            print(f"{name:<12} {g['pages']:>5} {rec['precision']:>9.3f} {rec['recall']:>6.3f} {rec['f1']:>6.3f}"
                  f"            {att['precision']:.3f} / {att['recall']:.3f} / {att['f1']:.3f}")
        speed = summary[spec]["speed"]
        print(f"\nspeed: {speed['pages_per_s']} pages/s on one core (median {speed['median_ms']} ms, "
              f"p99 {speed['p99_ms']} ms; decode + parse + {spec})")
        out[spec] = {"pages": rows, "summary": groups, "pages_per_s": speed["pages_per_s"]}
    if args.json:
        # one method: the file keeps its earlier shape; several: one such object per method
        Path(args.json).write_text(json.dumps(out[specs[0]] if len(specs) == 1 else out, indent=1))


if __name__ == "__main__":
    main()
