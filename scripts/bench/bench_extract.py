"""Speed of main-content extraction on one core: pagesieve's methods against the peers.

Every method starts from the same raw bytes and goes through the same per-page runner as the Spark UDF
and the evaluation (`models.page`: decode, parse, process, statuses), ours and the peers alike (the peers
through `models/peers`). A method is charged as the evaluation charges it (`models.page.charged_ms`):
decoding, plus our lxml parse when it reads our tree, plus its own work; a peer that parses the markup
itself (trafilatura, resiliparse, ...) pays its own parse inside its work. One process pinned to one
CPU, after a warm-up, methods interleaved page by page (the order rotates) so that machine noise hits
all of them alike. Report ratios, not absolute figures.

    .venv/bin/python scripts/bench/bench_extract.py                       # cleaneval + scrapinghub
    .venv/bin/python scripts/bench/bench_extract.py --limit 200 --json bench.json
    .venv/bin/python scripts/bench/bench_extract.py --methods web2text,cnr,trafilatura,resiliparse
    .venv/bin/python scripts/bench/bench_extract.py --methods blocknet,cascade,cascade@unsure=0.24,trafilatura
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from pathlib import Path

from pagesieve.data import data_root
from pagesieve.eval import iter_gold_pages
from pagesieve.models.page import PageInput, charged_ms, prepare, run_prepared
from pagesieve.models.registry import build_method

DATA = data_root()


def _build(spec: str):
    """`name`, or `name@key=value` with one or more settings changed, each value read as TOML
    (`cascade@unsure=0.24`, `blocknet@trees=false@drop_landmarks=false`)."""
    import tomllib

    name, *settings = spec.split("@")
    overrides = tomllib.loads("\n".join(settings))
    return build_method(name, overrides, kind="cleaner")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", default=f"{DATA}/cleaneval,{DATA}/scrapinghub")
    ap.add_argument("--methods", default="cnr,trafilatura,resiliparse",
                    help="registered cleaners, ours or peers; NAME@KEY=VALUE changes a setting (repeat @ for more)")
    ap.add_argument("--limit", type=int, default=0, help="pages per dataset (0 = all)")
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--cpu", type=int, default=0, help="CPU to pin to")
    ap.add_argument("--json", default=None, help="also write the figures here")
    args = ap.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {args.cpu})
    pages: list[PageInput] = []
    for dataset in args.datasets.split(","):
        for i, page in enumerate(iter_gold_pages(dataset)):
            if args.limit and i >= args.limit:
                break
            pages.append(PageInput(page.html, url=page.url, page_id=page.page_id))
    names = args.methods.split(",")
    methods = {name: _build(name) for name in names}

    def timed(name: str, page: PageInput) -> float:
        # the decode and parse are redone for every method: each is charged its own, as from raw bytes
        method = methods[name]
        prepared = prepare(page)
        return charged_ms(method, prepared, run_prepared(method, prepared))

    for page in pages[: args.warmup]:
        for name in names:
            timed(name, page)
    times: dict[str, list[float]] = {n: [] for n in names}
    for i, page in enumerate(pages):
        for k in range(len(names)):
            name = names[(i + k) % len(names)]
            times[name].append(timed(name, page))
    base = names[0]
    base_rate = len(pages) / (sum(times[base]) / 1000)
    rows = {}
    print(f"{len(pages)} pages, {platform.processor() or platform.machine()}, python {platform.python_version()}, "
          f"pinned to cpu {args.cpu}, {time.strftime('%Y-%m-%d %H:%M')}")
    print(f"{'method':<12} {'pages/s':>9} {'median ms':>10} {'p99 ms':>8} {base + ' speed x':>10}")
    for name in names:
        ms = sorted(times[name])
        rate = len(ms) / (sum(ms) / 1000)
        rows[name] = {"pages_per_s": round(rate, 1), "median_ms": round(statistics.median(ms), 2),
                      "p99_ms": round(ms[min(len(ms) - 1, int(0.99 * len(ms)))], 2),
                      f"{base}_speedup": round(base_rate / rate, 2)}
        r = rows[name]
        print(f"{name:<12} {r['pages_per_s']:>9} {r['median_ms']:>10} {r['p99_ms']:>8} {r[f'{base}_speedup']:>10}")
    if args.json:
        Path(args.json).write_text(json.dumps({"pages": len(pages), "methods": rows}, indent=2))


if __name__ == "__main__":
    main()
