"""AMBER on the real listing pages: record- and attribute-level precision/recall/F1 per page, per domain and
overall, with the time per page (one process, pinned to one core).

Pages of the real_estate and used_cars domains run with their schema; products, jobs and other pages with
the generic `products` schema. Records are matched to the truth by `pagesieve.eval.listings` (the README's
rule: the gold snippet in the record's visible text, or its anchor in the record's HTML).

    .venv/bin/python scripts/eval_amber.py                          # ../shared/data/listings
    .venv/bin/python scripts/eval_amber.py --json amber.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

from pagesieve.eval.listings import aggregate_scores, read_listings, record_views, score_records
from pagesieve.models.page import PageInput, prepare, run_prepared
from pagesieve.models.registry import build_method

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "listings"
SCHEMAS = {"real_estate": "real_estate", "used_cars": "used_cars"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--listings", default=str(DATA))
    ap.add_argument("--cpu", type=int, default=0, help="CPU to pin to (-1: none)")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    if args.cpu >= 0 and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {args.cpu})
    methods: dict[str, object] = {}
    scores, rows, times = [], [], []
    for page in read_listings(args.listings):
        schema = SCHEMAS.get(page.domain, "products")
        method = methods.setdefault(schema, build_method("amber", {"schema": schema}, kind="extractor"))
        start = time.perf_counter()
        prepared = prepare(PageInput(page.html, url=page.url, page_id=page.page_id))
        result = run_prepared(method, prepared).result
        ms = (time.perf_counter() - start) * 1000
        times.append(ms)
        score = score_records(result.records, page, views=record_views(result.records, page.html))
        scores.append(score)
        r = score.records
        rows.append({"page": page.page_id, "domain": page.domain, "schema": schema, "status": result.status,
                     "predicted": r.predicted, "gold": r.gold, "precision": round(r.precision, 3),
                     "recall": round(r.recall, 3), "f1": round(r.f1, 3), "ms": round(ms, 1)})
        print(f"{page.page_id:<26} {page.domain:<12} {result.status:<6} records {r.predicted:>4} / gold {r.gold:>3}"
              f"  P {r.precision:.2f}  R {r.recall:.2f}  F1 {r.f1:.2f}  {ms:7.1f} ms")
    summary = {}
    print(f"\n{'':<12} {'pages':>5} {'record P':>9} {'R':>6} {'F1':>6} (micro)   attributes P / R / F1 (micro)")
    for name, s in aggregate_scores(scores).items():
        rec, att = s.records_micro, s.attributes_total_micro
        summary[name] = {"pages": s.n_pages, "records": [rec.precision, rec.recall, rec.f1],
                         "attributes": [att.precision, att.recall, att.f1]}
        print(f"{name:<12} {s.n_pages:>5} {rec.precision:>9.3f} {rec.recall:>6.3f} {rec.f1:>6.3f}"
              f"            {att.precision:.3f} / {att.recall:.3f} / {att.f1:.3f}")
    rate = 1000 * len(times) / sum(times)
    print(f"\nspeed: {rate:.1f} pages/s on one core (median {statistics.median(times):.1f} ms, "
          f"max {max(times):.1f} ms; decode + parse + AMBER)")
    if args.json:
        Path(args.json).write_text(json.dumps({"pages": rows, "summary": summary, "pages_per_s": rate}, indent=1))


if __name__ == "__main__":
    main()
