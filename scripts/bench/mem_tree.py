"""Peak memory of a command's whole process tree (driver, JVM, Python workers), sampled from /proc.

    .venv/bin/python scripts/bench/mem_tree.py -- .venv/bin/pagesieve run data/sample/sample.warc.gz --out /tmp/o

Prints the peak of the tree's summed RSS and of its summed PSS (shared pages split between the
processes that share them, so forked Python workers are not counted twice), and the peak process count.
Linux only.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time


def _children() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", encoding="ascii", errors="replace") as fh:
                ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        kids.setdefault(ppid, []).append(int(name))
    return kids


def _tree(root: int) -> list[int]:
    kids, out, stack = _children(), [], [root]
    while stack:
        pid = stack.pop()
        out.append(pid)
        stack.extend(kids.get(pid, []))
    return out


def _kib(pid: int) -> tuple[int, int]:
    """(RSS, PSS) of one process in KiB, 0 when it is gone."""
    rss = pss = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Rss:"):
                    rss = int(line.split()[1])
                elif line.startswith("Pss:"):
                    pss = int(line.split()[1])
    except OSError:
        pass
    return rss, pss


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--interval", type=float, default=0.1)
    ap.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    start = time.time()
    proc = subprocess.Popen(command)
    peak_rss = peak_pss = peak_n = 0
    while proc.poll() is None:
        pids = _tree(proc.pid)
        sizes = [_kib(p) for p in pids]
        peak_rss = max(peak_rss, sum(r for r, _ in sizes))
        peak_pss = max(peak_pss, sum(p for _, p in sizes))
        peak_n = max(peak_n, len(pids))
        time.sleep(args.interval)
    print(f"mem_tree: exit {proc.returncode}, {time.time() - start:.1f} s, peak tree RSS {peak_rss / 1024:.0f} MiB, "
          f"peak tree PSS {peak_pss / 1024:.0f} MiB, up to {peak_n} processes", file=sys.stderr)
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
