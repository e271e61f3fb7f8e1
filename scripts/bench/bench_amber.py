"""Speed of AMBER on the real listing pages, on one core, split by stage.

Each page goes from raw bytes through decoding (`decode_page`), the lxml parse (`page_from_decoded`) and
`Amber.process_timed`, which adds each of its stages' seconds (annotate, areas, records, align, output) to
a dict. One process pinned to one CPU (`os.sched_setaffinity`), one untimed warm-up pass over a few pages,
then `--repeat` timed passes over all pages; every figure is the median over the passes. Pages of the
real_estate and used_cars domains run with their schema, the others with `products` (as
`pagesieve evaluate --listings` does). The project's goal is >= 20 pages/s.

    .venv/bin/python scripts/bench/bench_amber.py                      # 3 passes over ../shared/data/listings
    .venv/bin/python scripts/bench/bench_amber.py --repeat 5 --json bench_amber.json
    .venv/bin/python scripts/bench/bench_amber.py --mode structure     # an ablation (models/amber/ablation.py)
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from pathlib import Path

from pagesieve.eval.listings import ListingPage, read_listings
from pagesieve.eval.listings_report import DEFAULT_LISTINGS, schema_for
from pagesieve.models.page import decode_page, page_from_decoded
from pagesieve.models.registry import build_method

STAGES = ("decode", "parse", "annotate", "areas", "records", "align", "output")


def one_pass(pages: list[ListingPage], methods: dict) -> dict[str, float]:
    """Seconds per stage over all pages (and "total", timed around everything)."""
    timings: dict[str, float] = {}
    start = time.perf_counter()
    for page in pages:
        t0 = time.perf_counter()
        decoded = decode_page(page.html)
        t1 = time.perf_counter()
        parsed = page_from_decoded(decoded, url=page.url, page_id=page.page_id)
        t2 = time.perf_counter()
        timings["decode"] = timings.get("decode", 0.0) + t1 - t0
        timings["parse"] = timings.get("parse", 0.0) + t2 - t1
        methods[schema_for(page.domain)].process_timed(parsed, timings)
    timings["total"] = time.perf_counter() - start
    return timings


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--listings", default=str(DEFAULT_LISTINGS))
    ap.add_argument("--repeat", type=int, default=3, help="timed passes over all pages (median reported)")
    ap.add_argument("--warmup", type=int, default=3, help="pages run untimed first")
    ap.add_argument("--mode", default="amber", help="AmberSettings.mode: amber | structure | annotations")
    ap.add_argument("--cpu", type=int, default=0, help="CPU to pin to (-1: none)")
    ap.add_argument("--json", default=None, help="also write the figures here")
    args = ap.parse_args()
    if args.cpu >= 0 and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {args.cpu})
    pages = read_listings(args.listings)
    methods = {s: build_method("amber", {"schema": s, "mode": args.mode}, kind="extractor")
               for s in sorted({schema_for(p.domain) for p in pages})}
    one_pass(pages[: args.warmup], methods)
    passes = [one_pass(pages, methods) for _ in range(args.repeat)]
    stages = [*STAGES, *sorted({k for p in passes for k in p} - {*STAGES, "total"})]
    ms = {s: 1000 * statistics.median(p.get(s, 0.0) for p in passes) for s in [*stages, "total"]}
    staged = sum(ms[s] for s in stages)
    rate = len(pages) / (ms["total"] / 1000)
    print(f"AMBER ({args.mode}) on {len(pages)} listing pages, {args.repeat} passes (median), "
          f"{'CPU ' + str(args.cpu) if args.cpu >= 0 else 'no pinning'}\n")
    print(f"{'stage':<10} {'ms total':>10} {'ms/page':>8} {'share %':>8}")
    for s in stages:
        print(f"{s:<10} {ms[s]:>10.1f} {ms[s] / len(pages):>8.2f} {100 * ms[s] / staged:>8.1f}")
    print(f"{'(staged)':<10} {staged:>10.1f} {staged / len(pages):>8.2f} {100.0:>8.1f}")
    print(f"{'total':<10} {ms['total']:>10.1f} {ms['total'] / len(pages):>8.2f}")
    spread = sorted(len(pages) / p["total"] for p in passes)
    print(f"\npages/s: {rate:.1f} on one core (passes: {', '.join(f'{r:.1f}' for r in spread)}; goal >= 20)")
    if args.json:
        Path(args.json).write_text(json.dumps({
            "mode": args.mode, "pages": len(pages), "repeat": args.repeat, "cpu": args.cpu,
            "machine": f"{platform.machine()} {platform.node()}", "python": platform.python_version(),
            "pages_per_s": round(rate, 2), "pages_per_s_passes": [round(r, 2) for r in spread],
            "stages_ms": {s: round(ms[s], 2) for s in stages}, "total_ms": round(ms["total"], 2),
            "share": {s: round(ms[s] / staged, 4) for s in stages}}, indent=1) + "\n")


if __name__ == "__main__":
    main()
