"""Overhead of the page guards: the same method over the same pages through the in-process alarm and
through the supervised child process (`clean.guard = "alarm" | "process"`), in one run, alternating.

The process guard sends each batch of pages to the child in one message and gets one message back per
page, so its cost is pickling the bodies and the results through a pipe; the alarm costs two
`setitimer` calls per page.

    .venv/bin/python scripts/bench/bench_guard.py                              # cnr, cleaneval + scrapinghub
    .venv/bin/python scripts/bench/bench_guard.py --method web2text --rounds 3 --batch 256
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from pagesieve.data import data_root
from pagesieve.eval import iter_gold_pages
from pagesieve.models.page import PageInput, build_runner
from pagesieve.models.registry import load_settings, method_class

DATA = data_root()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", default=f"{DATA}/cleaneval,{DATA}/scrapinghub")
    ap.add_argument("--method", default="cnr")
    ap.add_argument("--batch", type=int, default=256, help="pages per call, as an Arrow batch in the UDF")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("--cpu", type=int, default=0, help="CPU to pin to (the child inherits it; -1: none)")
    args = ap.parse_args()
    if args.cpu >= 0 and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {args.cpu})
    pages = [PageInput(p.html, url=p.url, page_id=p.page_id) for d in args.datasets.split(",")
             for p in iter_gold_pages(d)]
    batches = [pages[i:i + args.batch] for i in range(0, len(pages), args.batch)]
    cls, settings = method_class(args.method, "cleaner"), load_settings(args.method)
    runners = {guard: build_runner(cls, settings, args.timeout, guard) for guard in ("alarm", "process")}
    for runner in runners.values():
        runner.run(pages[:20])                 # warm-up: the child is started and its method built
    seconds: dict[str, list[float]] = {g: [] for g in runners}
    texts: dict[str, list[str]] = {}
    for _ in range(args.rounds):
        for guard, runner in runners.items():
            start = time.perf_counter()
            outcomes = [o for batch in batches for o in runner.run(batch)]
            seconds[guard].append(time.perf_counter() - start)
            texts[guard] = [o.result.text for o in outcomes]
    for runner in runners.values():
        runner.close()
    alarm, process = statistics.median(seconds["alarm"]), statistics.median(seconds["process"])
    print(f"{args.method}, {len(pages)} pages in batches of {args.batch}, {args.rounds} rounds, "
          f"{time.strftime('%Y-%m-%d %H:%M')}")
    for guard in runners:
        median = statistics.median(seconds[guard])
        print(f"  {guard:<8} median {median:.2f} s = {1000 * median / len(pages):.3f} ms/page "
              f"({', '.join(f'{s:.2f}' for s in seconds[guard])})")
    print(f"  process guard overhead: {1000 * (process - alarm) / len(pages):+.3f} ms/page "
          f"({process / alarm:.2f}x); same texts: {texts['alarm'] == texts['process']}")


if __name__ == "__main__":
    main()
