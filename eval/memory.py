"""Peak memory of one method over a dataset, measured in its own process.

    python -m pagesieve.eval.memory --method cnr --dataset ../shared/data/cleaneval --limit 200

Prints JSON: the process's resident high-water mark after loading the pages and building the
method (`baseline_mb`), after running it over every page (`peak_mb`), and the difference.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys


def high_water_mb() -> float:
    """The process's peak resident set size in MiB (Linux: VmHWM; elsewhere ru_maxrss)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024 if sys.platform == "darwin" else 1024)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--method", required=True)
    ap.add_argument("--dataset", required=True)
    ap.add_argument("--split", default=None)
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--settings", default="{}", help="JSON settings overrides of the method")
    args = ap.parse_args(argv)
    from pagesieve.models.page import PageInput, run_pages
    from pagesieve.models.registry import build_method

    from .datasets import iter_gold_pages

    pages = list(iter_gold_pages(args.dataset, args.split))
    if args.limit:
        pages = pages[: args.limit]
    method = build_method(args.method, json.loads(args.settings))
    inputs = [PageInput(p.html, url=p.url, page_id=p.page_id) for p in pages]
    baseline = high_water_mb()
    for page in inputs:      # one at a time, as a worker without batching holds them
        run_pages(method, [page])
    peak = high_water_mb()
    print(json.dumps({"method": args.method, "pages": len(pages), "baseline_mb": round(baseline, 1),
                      "peak_mb": round(peak, 1), "delta_mb": round(peak - baseline, 1)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
