"""Speed of main-content extraction on one core: pagesieve's methods against the peers.

Every method starts from the same raw bytes (ours: decode + parse + extract; trafilatura:
`extract(bytes)`; resiliparse: `HTMLTree.parse_from_bytes` + `extract_plain_text(main_content=True)`),
in one process pinned to one CPU, after a warm-up, with methods interleaved page by page (the
order rotates) so that machine noise hits all of them alike. Report ratios, not absolute figures.

    .venv/bin/python scripts/bench_extract.py                       # cleaneval + scrapinghub
    .venv/bin/python scripts/bench_extract.py --limit 200 --json bench.json
    .venv/bin/python scripts/bench_extract.py --methods web2text,cnr,trafilatura,resiliparse
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from pagesieve.eval import iter_gold_pages

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def extractors(names: list[str]) -> dict[str, Callable[[bytes], str]]:
    """name -> function(raw bytes) -> text."""
    out: dict[str, Callable[[bytes], str]] = {}
    for name in names:
        if name in ("cnr", "web2text"):
            from pagesieve.models.page import PageError, parse_page
            from pagesieve.models.registry import build_method

            method = build_method(name)

            def ours(body: bytes, method=method, parse_page=parse_page, PageError=PageError) -> str:
                try:
                    return method.process(parse_page(body)).text
                except PageError:
                    return ""

            out[name] = ours
        elif name == "trafilatura":
            import trafilatura

            out[name] = lambda body: trafilatura.extract(body) or ""
        elif name == "resiliparse":
            from resiliparse.extract.html2text import extract_plain_text
            from resiliparse.parse.encoding import detect_encoding
            from resiliparse.parse.html import HTMLTree

            out[name] = lambda body: extract_plain_text(HTMLTree.parse_from_bytes(body, detect_encoding(body)),
                                                        main_content=True)
        else:
            raise SystemExit(f"unknown method {name}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", default=f"{DATA}/cleaneval,{DATA}/scrapinghub")
    ap.add_argument("--methods", default="cnr,trafilatura,resiliparse")
    ap.add_argument("--limit", type=int, default=0, help="pages per dataset (0 = all)")
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--cpu", type=int, default=0, help="CPU to pin to")
    ap.add_argument("--json", default=None, help="also write the figures here")
    args = ap.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {args.cpu})
    pages: list[bytes] = []
    for dataset in args.datasets.split(","):
        for i, page in enumerate(iter_gold_pages(dataset)):
            if args.limit and i >= args.limit:
                break
            pages.append(page.html)
    methods = extractors(args.methods.split(","))
    names = list(methods)
    for body in pages[: args.warmup]:
        for name in names:
            methods[name](body)
    times: dict[str, list[float]] = {n: [] for n in names}
    for i, body in enumerate(pages):
        for k in range(len(names)):
            name = names[(i + k) % len(names)]
            start = time.perf_counter()
            methods[name](body)
            times[name].append((time.perf_counter() - start) * 1000)
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
