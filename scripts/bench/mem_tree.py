"""Peak memory of a command's whole process tree (driver, JVM, Python workers), sampled from /proc.

    .venv/bin/python scripts/bench/mem_tree.py -- .venv/bin/pagesieve run data/sample/sample.warc.gz --out /tmp/o

Prints the peak of the tree's summed RSS and of its summed PSS (shared pages split between the
processes that share them, so forked Python workers are not counted twice), the peak process count, and
the PSS at its peak by kind of process (JVM, Python workers, driver). The sampling is
`pagesieve.eval.tree_memory`, which `bench_pipeline.py` uses too. Linux only.
"""

from __future__ import annotations

import argparse
import sys

from pagesieve.eval.tree_memory import run_watched


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--interval", type=float, default=0.1)
    ap.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    peak = run_watched(command, args.interval)
    kinds = ", ".join(f"{k} {v / 1024:.0f}" for k, v in sorted(peak.pss_by_kind_kib.items()))
    print(f"mem_tree: exit {peak.returncode}, {peak.wall_s:.1f} s, peak tree RSS {peak.rss_kib / 1024:.0f} MiB, "
          f"peak tree PSS {peak.pss_kib / 1024:.0f} MiB ({kinds} MiB), up to {peak.processes} processes",
          file=sys.stderr)
    return peak.returncode


if __name__ == "__main__":
    sys.exit(main())
