"""The Web2Text Collapsed DOM alone: the C walk against the Python walk, on the same parsed pages, one process.

Parses --limit pages of each pool once, then times `collapse_dom` (with and without the context bits blocknet
asks for) through the C module and through the Python walk, alternately for --rounds rounds, and prints the
median ms/page of each and the ratio. Pin it to one core (`taskset -c 1`) on a shared machine. The context bits
call Python's `attribute_bits` for every (attribute, value) not seen before: on pages of many sites most are new,
so those runs measure that cost too, the same in both walks.

With --xpaths it times `xpaths_of` instead (models/page/dom.py: C against Python, alternately), on every block
holder of each page (what Blocks.xpath asks for; blocknet asks for the content blocks' only). With --check it times
nothing: it reads every page of the pools one at a time (--limit 0: all) and counts the pages where the C
`xpaths_of`, the Python one and libxml2's getpath disagree on the block holders. With --xpaths --method NAME it
times that cleaner end to end instead, as bench_extract.py charges it (decode, parse, the method), once with each
`xpaths_of`, alternating page by page, and checks that both give the same content XPaths.

    taskset -c 1 .venv/bin/python scripts/bench/bench_cdom.py --limit 40
    taskset -c 1 .venv/bin/python scripts/bench/bench_cdom.py --xpaths --limit 40
    taskset -c 1 .venv/bin/python scripts/bench/bench_cdom.py --xpaths --method blocknet --limit 40
    .venv/bin/python scripts/bench/bench_cdom.py --check --limit 0
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import time
from collections.abc import Callable, Iterator

from lxml import etree

from pagesieve.data import data_root
from pagesieve.eval import iter_gold_pages
from pagesieve.models.page import (
    PageError,
    PageInput,
    ParsedPage,
    charged_ms,
    parse_page,
    prepare,
    run_prepared,
    xpath_of,
)
from pagesieve.models.page import dom as page_dom
from pagesieve.models.registry import build_method
from pagesieve.models.web2text import dom

POOLS = "cleaneval,scrapinghub,l3s-gn1,dragnet,readability,google-trends-2017,wcxb,trafilatura-eval"


def iter_pages(pools: list[str], limit: int) -> Iterator[tuple[str, str, ParsedPage]]:
    """(pool, page id, parsed page) of the first `limit` pages of each pool (0: all), unparseable ones left out."""
    for pool in pools:
        for gold in itertools.islice(iter_gold_pages(data_root() / pool), limit or None):
            try:
                yield pool, gold.page_id, parse_page(gold.html, url=gold.url)
            except PageError:
                continue


def load_pages(pools: list[str], limit: int) -> list[ParsedPage]:
    return [page for _, _, page in iter_pages(pools, limit)]


def block_holders(page: ParsedPage) -> list[etree._Element]:
    blocks = dom.page_blocks(page)
    return [blocks.cdom.holder[k] for k in blocks.node]


def bench_xpaths(pages: list[ParsedPage], rounds: int) -> None:
    holders = [block_holders(page) for page in pages]
    functions = {"c": page_dom._c_xpaths_of, "python": page_dom._python_xpaths_of}
    times: dict[str, list[float]] = {name: [] for name in functions}
    for r in range(rounds):
        for name in sorted(functions, reverse=r % 2 == 1):        # alternate which runs first
            start = time.perf_counter()
            for elements in holders:
                functions[name](elements)
            times[name].append((time.perf_counter() - start) / len(pages) * 1e3)
    c, py = statistics.median(times["c"]), statistics.median(times["python"])
    print(f"xpaths_of of {sum(map(len, holders)) / len(pages):.0f} block holders a page: C {c:.3f} ms/page, "
          f"Python {py:.3f} ms/page, Python/C {py / c:.1f}x")


def bench_method(name: str, pools: list[str], limit: int, warmup: int = 10) -> int:
    method = build_method(name, kind="cleaner")
    pages = [PageInput(gold.html, url=gold.url, page_id=gold.page_id) for pool in pools
             for gold in itertools.islice(iter_gold_pages(data_root() / pool), limit or None)]
    inside = {"c": 0.0, "python": 0.0}          # seconds in xpaths_of itself, measured pages only

    def timed(key: str, function: Callable) -> Callable:
        def run(elements: list) -> list[str]:
            start = time.perf_counter()
            try:
                return function(elements)
            finally:
                inside[key] += time.perf_counter() - start
        return run

    functions = {"c": timed("c", page_dom._c_xpaths_of), "python": timed("python", page_dom._python_xpaths_of)}
    times: dict[str, list[float]] = {k: [] for k in functions}
    differ = 0
    try:
        for i, page in enumerate(pages[:warmup] + pages):
            if i == warmup:
                inside.update(c=0.0, python=0.0)
            results = {}
            for k in sorted(functions, reverse=i % 2 == 1):         # alternate which runs first
                page_dom._xpaths_of = functions[k]                  # what models.page.dom.xpaths_of calls
                prepared = prepare(page)
                outcome = run_prepared(method, prepared)
                results[k] = getattr(outcome.result, "content_xpaths", None)
                if i >= warmup:
                    times[k].append(charged_ms(method, prepared, outcome))
            differ += results["c"] != results["python"]
    finally:
        page_dom._xpaths_of = page_dom._c_xpaths_of
    c, py = sum(times["c"]), sum(times["python"])
    print(f"{name}, {len(pages)} pages end to end: C xpaths_of {len(pages) / c * 1e3:.1f} pages/s, Python xpaths_of "
          f"{len(pages) / py * 1e3:.1f} pages/s, time Python/C {py / c:.3f}x; pages whose content XPaths differ: "
          f"{differ}")
    print(f"  in xpaths_of: C {inside['c'] / len(pages) * 1e3:.3f} ms/page, Python "
          f"{inside['python'] / len(pages) * 1e3:.3f} ms/page; whole page: C {c / len(pages):.2f} ms, Python "
          f"{py / len(pages):.2f} ms")
    return 1 if differ else 0


def check_xpaths(pools: list[str], limit: int) -> int:
    pages = elements = 0
    bad = []
    for pool, page_id, page in iter_pages(pools, limit):
        holders = block_holders(page)
        c = page_dom._c_xpaths_of(holders)
        if c != page_dom._python_xpaths_of(holders) or c != [xpath_of(e) for e in holders]:
            bad.append(f"{pool}/{page_id}")
        pages += 1
        elements += len(holders)
    print(f"{pages} pages, {elements} block holders: {len(bad)} pages where C, Python and getpath differ {bad[:20]}")
    return 1 if bad else 0


def ms_per_page(collapse: Callable[[ParsedPage, bool, int | None], dom.CollapsedDOM], pages: list[ParsedPage],
                context: bool) -> float:
    start = time.perf_counter()
    for page in pages:
        collapse(page, context, None)
    return (time.perf_counter() - start) / len(pages) * 1e3


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pools", default=POOLS, help="comma-separated pools under the data folder")
    ap.add_argument("--limit", type=int, default=40, help="pages per pool (default 40; 0: all)")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds (default 3)")
    ap.add_argument("--xpaths", action="store_true", help="time xpaths_of instead of collapse_dom")
    ap.add_argument("--method", default=None, help="with --xpaths: time this cleaner end to end (e.g. blocknet)")
    ap.add_argument("--check", action="store_true", help="compare xpaths_of's C, Python and getpath; no timing")
    args = ap.parse_args(argv)
    if dom._cwalk is None or page_dom._cwalk is None:
        print("bench_cdom: the C walk is not built or PAGESIEVE_PURE_PYTHON is set: pip install -e .", file=sys.stderr)
        return 1
    if args.check:
        return check_xpaths(args.pools.split(","), args.limit)
    if args.xpaths and args.method:
        return bench_method(args.method, args.pools.split(","), args.limit)
    pages = load_pages(args.pools.split(","), args.limit)
    if args.xpaths:
        print(f"{len(pages)} pages, {args.rounds} rounds")
        bench_xpaths(pages, args.rounds)
        return 0
    walks = {"c": dom._c_collapse, "python": dom._python_collapse}
    print(f"{len(pages)} pages, {args.rounds} rounds")
    for context in (False, True):
        times: dict[str, list[float]] = {name: [] for name in walks}
        for _ in range(args.rounds):
            for name, collapse in walks.items():
                times[name].append(ms_per_page(collapse, pages, context))
        c, py = statistics.median(times["c"]), statistics.median(times["python"])
        print(f"context={context}: C {c:.2f} ms/page, Python {py:.2f} ms/page, Python/C {py / c:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
