"""Peak memory of a block method on generated hostile pages (hostile-pass issue, items 8 and 9).

    .venv/bin/python scripts/bench/bench_page_memory.py spans --n 1320000        # one 19.8 MB page of <span>a</span>
    .venv/bin/python scripts/bench/bench_page_memory.py attributes --pages 150   # pages of long unique class/id values

Each case runs in a fresh child process (so that one case's peak is not another's): the child builds the method
(torch and the weights), notes its RSS, runs the pages through the runner (`run_pages`, as the UDF does) and
prints one JSON line: the status, seconds, the peak RSS of the run above the built method (`ru_maxrss`, the
child has no other children) and, for `attributes`, the RSS after every `--every` pages. Only public names that
every version has are used, so the same script measures an older checkout (run it with that checkout's Python).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time


def spans_page(n: int) -> bytes:
    """`<span>a</span>` n times: one block per 15 bytes (the issue's pages: 19.8 MB, 1.32 million blocks)."""
    return b"<html><body>" + b"<span>a</span>" * n + b"</body></html>"


def attributes_page(page: int, elements: int, chars: int) -> bytes:
    """A page whose every element has its own long class and id values (generated ids, tracking blobs)."""
    pad = b"q" * chars
    return b"<html><body>" + b"".join(b'<div class="c%d-%d %s" id="i%d-%d %s">text %d</div>'
                                      % (page, i, pad, page, i, pad, i) for i in range(elements)) + b"</body></html>"


def _rss_mib() -> float:
    with open("/proc/self/statm", encoding="ascii") as fh:
        return int(fh.read().split()[1]) * resource.getpagesize() / 2**20


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child(args: argparse.Namespace) -> dict:
    from pagesieve.models.page import PageInput, run_pages
    from pagesieve.models.registry import build_method

    method = build_method(args.method, {"device": "cpu"})
    base = _rss_mib()
    start = time.perf_counter()
    out: dict = {"case": args.case, "method": args.method, "built_rss_mib": round(base)}
    if args.case == "spans":
        body = spans_page(args.n)
        outcome = run_pages(method, [PageInput(body)], timeout_s=args.timeout)[0]
        out |= {"page_mb": round(len(body) / 1e6, 1), "status": outcome.result.status,
                "error": outcome.result.error, "seconds": round(time.perf_counter() - start, 1),
                "peak_over_built_mib": round(_peak_mib() - base),
                "bytes_per_page_byte": round((_peak_mib() - base) * 2**20 / len(body), 1)}
    else:
        growth = []
        for i in range(args.pages):
            body = attributes_page(i, args.elements, args.chars)
            assert run_pages(method, [PageInput(body)], timeout_s=args.timeout)[0].result.status == "ok"
            if (i + 1) % args.every == 0:
                growth.append(round(_rss_mib() - base))
        out |= {"page_mb": round(len(body) / 1e6, 1), "pages": args.pages,
                "seconds": round(time.perf_counter() - start, 1),
                f"rss_over_built_mib_every_{args.every}_pages": growth}
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("case", choices=("spans", "attributes"))
    ap.add_argument("--method", default="blocknet")
    ap.add_argument("--n", type=int, default=1_320_000, help="spans: elements of the page")
    ap.add_argument("--pages", type=int, default=150, help="attributes: pages run one after another")
    ap.add_argument("--elements", type=int, default=100, help="attributes: elements per page")
    ap.add_argument("--chars", type=int, default=100_000, help="attributes: characters of each class and id value")
    ap.add_argument("--every", type=int, default=25, help="attributes: RSS noted every this many pages")
    ap.add_argument("--timeout", type=float, default=0.0, help="page deadline (0: none)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args)))
        return 0
    done = subprocess.run([sys.executable, __file__, *sys.argv[1:], "--child"], check=False)
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
