"""VIPS speed and memory per worker: rendered pages per second, and where the time goes.

    python scripts/bench/bench_vips.py                          # 50 pages of each of the six benchmarks, JavaScript off
    python scripts/bench/bench_vips.py --javascript --limit 20  # scripts on, with their time budget

One worker = this process pinned to one CPU core; the browser's processes inherit the pin, as they would in
a Spark Python worker. Per page: decode + parse (shared by every method), loading the HTML into the reused
tab (`set_content`), the visual-DOM call, and the segmentation + main-content choice in Python. trafilatura
runs on the same pages in the same run (the peer), so the ratio is measured, not recalled. Memory: the
resident set (RSS) and proportional set (PSS) of this process and of the browser's processes (Playwright's
driver and every Chromium process below it), sampled every 10 pages; the peaks are printed.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from pagesieve.data import data_root
from pagesieve.eval import iter_gold_pages
from pagesieve.models.page import PageInput, page_markup, prepare
from pagesieve.models.registry import build_method
from pagesieve.models.vips import analyse
from pagesieve.models.vips.render import Renderer
from pagesieve.models.vips.settings import VIPSSettings

DATA = data_root()


def _memory_mb(pid: int) -> tuple[float, float]:
    """(RSS, PSS) of a process in MiB; PSS splits the pages Chromium's processes share, so PSS sums add up."""
    values = {"Rss:": 0.0, "Pss:": 0.0}
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                key, *rest = line.split()
                if key in values:
                    values[key] = int(rest[0]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    return values["Rss:"], values["Pss:"]


def _descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    out, stack = [], [root]
    while stack:
        for child in children.get(stack.pop(), []):
            out.append(child)
            stack.append(child)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", default="cleaneval,scrapinghub,l3s-gn1,dragnet,readability,google-trends-2017")
    ap.add_argument("--data", default=str(DATA))
    ap.add_argument("--limit", type=int, default=50, help="pages of each dataset")
    ap.add_argument("--javascript", action="store_true")
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--cpu", type=int, default=0, help="the core to pin to (-1: no pinning)")
    args = ap.parse_args(argv)
    if args.cpu >= 0:
        os.sched_setaffinity(0, {args.cpu})
    pages = [p for name in args.datasets.split(",")
             for p in list(iter_gold_pages(Path(args.data) / name))[: args.limit]]
    settings = VIPSSettings.load({"javascript": args.javascript})
    renderer = Renderer(settings.render_options())
    peer = build_method("trafilatura", kind="cleaner")
    for page in pages[: args.warmup]:
        prepared = prepare(PageInput(page.html, url=page.url))
        if prepared.page is not None:
            analyse(renderer.render(page_markup(prepared.page), prepared.page.url), settings)
    keys = ("prepare", "load", "visual_dom", "nodes", "segment")
    totals = dict.fromkeys((*keys, "decode", "peer"), 0.0)
    failures, done = 0, 0
    peak = {"python": (0.0, 0.0), "browser": (0.0, 0.0)}
    for i, page in enumerate(pages):
        start = time.perf_counter()
        prepared = prepare(PageInput(page.html, url=page.url))
        totals["prepare"] += time.perf_counter() - start
        totals["decode"] += prepared.decode_ms / 1000
        if prepared.page is None:
            continue
        try:
            start = time.perf_counter()
            visual = renderer.render(page_markup(prepared.page), prepared.page.url)
            rendered = time.perf_counter() - start
            analysis = analyse(visual, settings)
        except Exception as exc:  # noqa: BLE001 - counted, the benchmark goes on as the job would
            failures += 1
            print(f"  {page.page_id}: {exc}", file=sys.stderr)
            continue
        totals["load"] += visual.render_ms / 1000
        totals["visual_dom"] += visual.extract_ms / 1000
        # what render() spends in Python after the JavaScript call: building the node objects
        totals["nodes"] += rendered - (visual.render_ms + visual.extract_ms) / 1000
        totals["segment"] += analysis.segment_ms / 1000
        start = time.perf_counter()
        peer.process(prepared.page)
        totals["peer"] += time.perf_counter() - start
        done += 1
        if i % 10 == 0:
            python = _memory_mb(os.getpid())
            browser = [_memory_mb(p) for p in _descendants(os.getpid())]
            peak["python"] = tuple(map(max, peak["python"], python))
            peak["browser"] = tuple(map(max, peak["browser"], (sum(m[0] for m in browser), sum(m[1] for m in browser))))
    renderer.close()
    if not done:
        print("no page rendered", file=sys.stderr)
        return 1
    vips_s = sum(totals[k] for k in keys)
    print(f"{done} pages ({args.datasets}, first {args.limit} of each), JavaScript "
          f"{'on' if args.javascript else 'off'}, pinned to core {args.cpu}, {failures} failed")
    for key in keys:
        print(f"  {key:<11} {1000 * totals[key] / done:7.1f} ms/page  {100 * totals[key] / vips_s:5.1f} %")
    print(f"  vips        {done / vips_s:7.2f} pages/s end to end (decode + parse + render + segment)")
    peer_s = totals["decode"] + totals["peer"]    # it parses the markup itself, as in the evaluation
    print(f"  trafilatura {done / peer_s:7.2f} pages/s (decode + its own parse and extraction), same pages; "
          f"vips / trafilatura = {peer_s / vips_s:.3f}")
    print(f"  memory, peak RSS / PSS: python {peak['python'][0]:.0f} / {peak['python'][1]:.0f} MiB, "
          f"browser processes {peak['browser'][0]:.0f} / {peak['browser'][1]:.0f} MiB (sums)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
