"""Extraction speed of two source trees in one run: each tree's bench_extract.py, alternately.

The old tree is a temporary `git worktree` of --baseline, the new one this checkout (or --new REV); each
tree's own scripts/bench/bench_extract.py (scripts/bench_extract.py in a tree from before scripts/ was sorted)
runs as a subprocess with that tree's environment (set up and checked as in scripts/tools/compare_documents.py:
PYTHONPATH at the worktree root, or none for this checkout), in the order old, new, old, new, ... (--rounds),
all pinned to the same CPU and with math libraries at one thread.
Prints per method the pages/s of every run, the median per tree and the ratio new/old (> 1: new is faster),
the same ratio from the runs' median ms/page, and the ratio within each round with its median ("paired":
the figure to trust when the machine's load drifts during the run).
The machine is shared: compare medians of several rounds, and keep --limit modest.

    .venv/bin/python scripts/bench/bench_trees.py                                   # 7838954 vs this checkout
    .venv/bin/python scripts/bench/bench_trees.py --limit 100 --rounds 3 --cpu 1
    .venv/bin/python scripts/bench/bench_trees.py --baseline 7838954 --new 7838954 --methods cnr   # noise floor
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# the trees are set up as scripts/tools/compare_documents.py sets them up
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from compare_documents import (  # noqa: E402
    DATA,
    Tree,
    add_worktree,
    checkout_state,
    python,
    remove_worktree,
    tree_from_checkout,
    tree_from_worktree,
)

# where a tree keeps bench_extract.py: since scripts/ was sorted, and before (a baseline revision may be older)
BENCHES = (Path("scripts") / "bench" / "bench_extract.py", Path("scripts") / "bench_extract.py")

__all__ = ["bench_command", "run_bench", "summarise", "format_table"]


def bench_command(tree: Tree, methods: str, datasets: str, limit: int, cpu: int, warmup: int, json_path: Path
                  ) -> list[str]:
    """The argv of one tree's bench_extract.py (the first of `BENCHES` it has).

    Args:
        tree: the tree whose script and code run.
        methods: comma-separated methods.
        datasets: comma-separated dataset folders (explicit: the script's default is relative to its tree).
        limit: pages per dataset (0 = all).
        cpu: the CPU to pin to.
        warmup: warm-up pages.
        json_path: where the script writes its figures.

    Returns:
        The command line.

    Raises:
        FileNotFoundError: if the tree has none of `BENCHES`.
    """
    script = next((tree.root / b for b in BENCHES if (tree.root / b).is_file()), None)
    if script is None:
        raise FileNotFoundError(f"{tree.label} tree: no {' or '.join(str(tree.root / b) for b in BENCHES)}")
    return [python(), str(script), "--methods", methods, "--datasets", datasets, "--limit", str(limit),
            "--cpu", str(cpu), "--warmup", str(warmup), "--json", str(json_path)]


def run_bench(tree: Tree, argv: list[str], log_path: Path) -> tuple[dict[str, Any], float]:
    """Run one benchmark of a tree; its output goes to `log_path`.

    Args:
        tree: the tree (its environment and working directory are used).
        argv: from `bench_command`.
        log_path: file for stdout and stderr.

    Returns:
        The figures the script wrote ({"pages": n, "methods": {name: {"pages_per_s": ...}}}) and the wall time.

    Raises:
        RuntimeError: with the log's tail, if the script fails.
    """
    json_path = Path(argv[argv.index("--json") + 1])
    json_path.unlink(missing_ok=True)
    start = time.perf_counter()
    with log_path.open("w", encoding="utf-8") as log:
        log.write(f"# cwd {tree.cwd}\n# PYTHONPATH {tree.env.get('PYTHONPATH', '')}\n# {' '.join(argv)}\n")
        log.flush()
        rc = subprocess.run(argv, cwd=tree.cwd, env=tree.env, stdout=log, stderr=subprocess.STDOUT).returncode
    wall = time.perf_counter() - start
    if rc or not json_path.exists():
        tail = "\n".join(log_path.read_text(encoding="utf-8", errors="replace").splitlines()[-15:])
        raise RuntimeError(f"{tree.label} tree: bench_extract exited {rc} (log {log_path}):\n{tail}")
    return json.loads(json_path.read_text(encoding="utf-8")), wall


def summarise(results: dict[str, list[dict[str, Any]]], methods: list[str]) -> dict[str, dict[str, Any]]:
    """Per method: the pages/s of every run per tree, the median per tree and the ratio new/old.

    The median ms/page of each run (less sensitive to a noisy moment than pages/s, which is a mean) is
    summarised alike, as a second opinion.

    Args:
        results: tree label ("old", "new") -> the figures of its runs, in order.
        methods: the methods benchmarked.

    Returns:
        method -> {"old": [pages/s, ...], "new": [...], "old_median": x, "new_median": y, "ratio": y / x,
        "paired": median over rounds of new/old pages/s within the round (robust to a load that drifts
        between rounds), "old_ms": median over runs of the median ms/page, "new_ms": ...,
        "ms_ratio": old_ms / new_ms} (all ratios > 1 when the new tree is faster).
    """
    out: dict[str, dict[str, Any]] = {}
    for m in methods:
        row: dict[str, Any] = {label: [r["methods"][m]["pages_per_s"] for r in runs] for label, runs in results.items()}
        for label, runs in results.items():
            row[f"{label}_median"] = statistics.median(row[label])
            row[f"{label}_ms"] = statistics.median(r["methods"][m]["median_ms"] for r in runs)
        row["ratio"] = row["new_median"] / row["old_median"] if row["old_median"] else float("nan")
        row["paired"] = statistics.median(n / o if o else float("nan") for o, n in zip(row["old"], row["new"],
                                                                                         strict=True))
        row["ms_ratio"] = row["old_ms"] / row["new_ms"] if row["new_ms"] else float("nan")
        out[m] = row
    return out


def format_table(summary: dict[str, dict[str, Any]]) -> list[str]:
    """The printed table of `summarise`'s result.

    Args:
        summary: from `summarise`.

    Returns:
        Lines: per method one line per tree (runs, median pages/s, median ms/page), one with the ratios
        new/old of those medians (speed: > 1 when new is faster), and one with the per-round ratios and
        their median.
    """
    width = max(45, 9 * max(len(row["old"]) for row in summary.values()))
    lines = [f"{'method':<12} {'tree':<8} {'pages/s per run':<{width}} {'median':>8}  {'median ms/page':>14}"]
    for m, row in summary.items():
        for label in ("old", "new"):
            runs = " ".join(f"{x:8.1f}" for x in row[label])
            lines.append(f"{m:<12} {label:<8} {runs:<{width}} {row[f'{label}_median']:>8.1f}  "
                         f"{row[f'{label}_ms']:>14.3f}")
        lines.append(f"{m:<12} {'new/old':<8} {'(of the medians; > 1: new faster)':<{width}} {row['ratio']:>8.3f}  "
                     f"{row['ms_ratio']:>14.3f}")
        rounds = " ".join(f"{n / o:8.3f}" for o, n in zip(row["old"], row["new"], strict=True))
        lines.append(f"{m:<12} {'paired':<8} {rounds:<{width}} {row['paired']:>8.3f}")
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", default="7838954", help="git revision of the old tree (default 7838954)")
    ap.add_argument("--new", default=None, metavar="REV", help="git revision of the new tree (default: this checkout)")
    ap.add_argument("--methods", default="cnr,web2text", help="comma-separated methods (default cnr,web2text)")
    ap.add_argument("--data", default=str(DATA), help="folder holding cleaneval/ and scrapinghub/")
    ap.add_argument("--datasets", default="cleaneval,scrapinghub", help="dataset folders under --data, or paths")
    ap.add_argument("--limit", type=int, default=100, help="pages per dataset (default 100; 0 = all)")
    ap.add_argument("--warmup", type=int, default=20, help="warm-up pages of each run")
    ap.add_argument("--rounds", type=int, default=5, help="runs per tree, alternating old, new (default 5)")
    ap.add_argument("--cpu", type=int, default=max(os.sched_getaffinity(0)), help="CPU to pin to (default: last)")
    ap.add_argument("--work", default=None, help="folder for the logs and JSON of every run (default: temporary)")
    ap.add_argument("--json", default=None, help="also write the summary here")
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S")
    log = logging.getLogger("bench_trees")

    methods = [m for m in args.methods.split(",") if m]
    datasets = ",".join(str(Path(args.data) / d) if os.sep not in d else d for d in args.datasets.split(",") if d)
    tmp = Path(tempfile.mkdtemp(prefix="bench-trees-"))
    work = Path(args.work).resolve() if args.work else tmp / "runs"
    work.mkdir(parents=True, exist_ok=True)
    trees: list[Tree] = []
    try:
        try:
            trees.append(tree_from_worktree("old", add_worktree(args.baseline, tmp), args.baseline, tmp, threads=1))
            trees.append(tree_from_worktree("new", add_worktree(args.new, tmp), args.new, tmp, threads=1) if args.new
                         else tree_from_checkout("new", threads=1))
            commands = {t.label: bench_command(t, ",".join(methods), datasets, args.limit, args.cpu, args.warmup,
                                               work / f"{t.label}.json") for t in trees}
        except (RuntimeError, FileNotFoundError, subprocess.CalledProcessError) as exc:
            log.error("cannot set up the trees: %s %s", exc, (getattr(exc, "stderr", "") or "").strip())
            return 2
        for t in trees:
            print(f"{t.label}: {t.rev or checkout_state()} at {t.root} ({t.mode}), "
                  f"pagesieve.models from {Path(t.origins.get('pagesieve.models', '?')).parent}")
        print(f"methods {','.join(methods)}; limit {args.limit} per dataset; cpu {args.cpu}; {args.rounds} rounds; "
              f"load average {os.getloadavg()[0]:.2f}")
        results: dict[str, list[dict[str, Any]]] = {t.label: [] for t in trees}
        for r in range(1, args.rounds + 1):
            for t in trees:
                try:
                    figures, wall = run_bench(t, commands[t.label], work / f"{t.label}-{r}.log")
                except RuntimeError as exc:
                    log.error("%s", exc)
                    return 2
                results[t.label].append(figures)
                rates = ", ".join(f"{m} {figures['methods'][m]['pages_per_s']:.1f}" for m in methods)
                log.info("round %d %s: %d pages, %s pages/s (%.1f s)", r, t.label, figures["pages"], rates, wall)
        pages = {t: {f["pages"] for f in runs} for t, runs in results.items()}
        if len(set().union(*pages.values())) != 1:
            log.warning("the trees benchmarked different page counts: %s", pages)
        summary = summarise(results, methods)
        print(f"{next(iter(pages['old']))} pages per run; load average {os.getloadavg()[0]:.2f}")
        for line in format_table(summary):
            print(line)
        if args.json:
            Path(args.json).write_text(json.dumps({"pages": sorted(pages["old"]), "cpu": args.cpu, "limit": args.limit,
                                                   "methods": summary}, indent=2), encoding="utf-8")
    finally:
        for t in trees:
            if t.worktree:
                remove_worktree(t.root)
        for leftover in tmp.glob("*"):
            if leftover.is_dir() and (leftover / ".git").exists():
                remove_worktree(leftover)
        if args.work:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print(f"logs and figures of every run: {work}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
