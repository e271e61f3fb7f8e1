"""The Web2Text Collapsed DOM alone: the C walk against the Python walk, on the same parsed pages, one process.

Parses --limit pages of each pool once, then times `collapse_dom` (with and without the context bits blocknet
asks for) through the C module and through the Python walk, alternately for --rounds rounds, and prints the
median ms/page of each and the ratio. Pin it to one core (`taskset -c 1`) on a shared machine. The context bits
call Python's `attribute_bits` for every (attribute, value) not seen before: on pages of many sites most are new,
so those runs measure that cost too, the same in both walks.

    taskset -c 1 .venv/bin/python scripts/bench/bench_cdom.py --limit 40
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import time
from collections.abc import Callable

from pagesieve.data import data_root
from pagesieve.eval import iter_gold_pages
from pagesieve.models.page import PageError, ParsedPage, parse_page
from pagesieve.models.web2text import dom

POOLS = "cleaneval,scrapinghub,l3s-gn1,dragnet,readability,google-trends-2017,wcxb,trafilatura-eval"


def load_pages(pools: list[str], limit: int) -> list[ParsedPage]:
    pages = []
    for pool in pools:
        for gold in itertools.islice(iter_gold_pages(data_root() / pool), limit):
            try:
                pages.append(parse_page(gold.html, url=gold.url))
            except PageError:
                continue
    return pages


def ms_per_page(collapse: Callable[[ParsedPage, bool, int | None], dom.CollapsedDOM], pages: list[ParsedPage],
                context: bool) -> float:
    start = time.perf_counter()
    for page in pages:
        collapse(page, context, None)
    return (time.perf_counter() - start) / len(pages) * 1e3


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pools", default=POOLS, help="comma-separated pools under the data folder")
    ap.add_argument("--limit", type=int, default=40, help="pages per pool (default 40)")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds (default 3)")
    args = ap.parse_args(argv)
    if dom._cwalk is None:
        print("bench_cdom: the C walk is not built or PAGESIEVE_PURE_PYTHON is set: pip install -e .", file=sys.stderr)
        return 1
    pages = load_pages(args.pools.split(","), args.limit)
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
