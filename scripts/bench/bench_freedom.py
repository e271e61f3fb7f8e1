"""FreeDOM speed: pages per second of the shipped model on one site's pages, one CPU core by default.

    python scripts/bench/bench_freedom.py                       # booksamillion's 400 pages, CPU, 1 thread
    python scripts/bench/bench_freedom.py --device cuda --max-batch-nodes 512,8192,65536 --check-cpu   # a GPU machine

Counts decoding and parsing (as the Spark job pays them) apart from the method's own work (node selection,
features, the forward passes, decision and voting). The site's pages go through in one `process_batch`, as the
job's grouping by site gives them; `--repeat` runs it several times and keeps the best.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from pagesieve.eval.swde import SWDE_ROOT, read_site
from pagesieve.models.freedom import FreeDOM, FreeDOMSettings
from pagesieve.models.page import ExtractResult, parse_page

FIELDS = ["author", "isbn_13", "publication_date", "publisher", "title"]


def _fields(result: ExtractResult) -> list[tuple[str, str | None, str | None, str, float | None]]:
    """(name, value, xpath, origin, score) of every field; the first three are what a user reads."""
    return [(f.name, f.value, f.xpath, f.origin, f.score) for r in result.records for f in r.fields]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="book")
    ap.add_argument("--site", default="booksamillion")
    ap.add_argument("--swde", default=SWDE_ROOT)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--max-batch-nodes", default="8192", help="comma-separated values to try, in one run")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--check-cpu", action="store_true",
                    help="also run the CPU (one thread) once and count the pages whose records differ from it")
    args = ap.parse_args(argv)
    cuda = args.device.startswith("cuda")
    if not cuda:
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})     # one core, whatever torch would like
    site = read_site(args.swde, "book", args.site, FIELDS)
    ids = sorted(site.pages)
    n = len(ids)
    reference = None
    if args.check_cpu:
        pages = [parse_page(site.pages[i][1], url=site.pages[i][0]) for i in ids]
        reference = FreeDOM(FreeDOMSettings(model=args.model, device="cpu", threads=1)).process_batch(pages)
    print(f"{args.site}: {n} pages, device {args.device}, {args.threads} thread(s)")
    for max_batch_nodes in (int(m) for m in args.max_batch_nodes.split(",")):
        method = FreeDOM(FreeDOMSettings(model=args.model, device=args.device, threads=args.threads,
                                         max_batch_nodes=max_batch_nodes))
        best_parse = best_method = float("inf")
        if cuda:
            import torch

            torch.cuda.reset_peak_memory_stats()
        for _ in range(args.repeat):
            start = time.perf_counter()
            pages = [parse_page(site.pages[i][1], url=site.pages[i][0]) for i in ids]
            parsed = time.perf_counter()
            results = method.process_batch(pages)
            if cuda:
                torch.cuda.synchronize()
            done = time.perf_counter()
            best_parse, best_method = min(best_parse, parsed - start), min(best_method, done - parsed)
        print(f"max_batch_nodes {max_batch_nodes}:")
        print(f"  decode + parse: {best_parse:.2f} s ({n / best_parse:.1f} pages/s)")
        print(f"  freedom:        {best_method:.2f} s ({n / best_method:.1f} pages/s)")
        print(f"  end to end:     {n / (best_parse + best_method):.1f} pages/s")
        if cuda:
            print(f"  peak GPU memory: {torch.cuda.max_memory_allocated() / 2**20:.0f} MiB")
        if reference is not None:
            differ = sum(a != b for a, b in zip(results, reference, strict=True))
            values = sum([f[:3] for f in _fields(a)] != [f[:3] for f in _fields(b)]
                         for a, b in zip(results, reference, strict=True))
            print(f"  pages whose records differ from the CPU's: {differ} of {n} (in a value or XPath: {values})")
            for page_id, a, b in zip(ids, results, reference, strict=True):
                if a != b:
                    print(f"    {page_id}: {args.device} {_fields(a)}\n    {' ' * len(page_id)}  cpu {_fields(b)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
