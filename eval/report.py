"""The evaluation report: JSON and Markdown summaries, the per-page CSV, and plots."""

from __future__ import annotations

import csv
import json
import platform
import statistics
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .harness import PageScore
from .metrics import aeb_aggregate, aggregate, block_counts_scores

__all__ = ["speed_summary", "summarise", "write_report"]


def _speed(ms: Sequence[float]) -> dict[str, float]:
    ordered = sorted(ms)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return {"pages_per_s": round(len(ordered) / (sum(ordered) / 1000), 1) if sum(ordered) else 0.0,
            "median_ms": round(statistics.median(ordered), 2), "p99_ms": round(p99, 2)}


speed_summary = _speed   # pages/s, median and p99 ms of per-page times; the listing report uses it too


def run_meta(**extra: Any) -> dict[str, Any]:
    """What every report says about the run: date, machine, Python, and `extra`."""
    return {"date": time.strftime("%Y-%m-%d %H:%M"), "machine": f"{platform.machine()} {platform.node()}",
            "python": platform.python_version(), **extra}


def write_csv(path: Path, rows: Sequence[dict[str, Any]], first_column: str) -> None:
    """One row per dict (the first one's keys as the header; `first_column` alone when there is none)."""
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]) if rows else [first_column])
        writer.writeheader()
        writer.writerows(rows)


def summarise(scores: Sequence[PageScore], memory: dict[str, dict] | None = None) -> dict[str, dict[str, Any]]:
    """{dataset: {method: figures}} from the page scores (and memory probes, by method)."""
    groups: dict[tuple[str, str], list[PageScore]] = defaultdict(list)
    for s in scores:
        groups[(s.dataset, s.method)].append(s)
    out: dict[str, dict[str, Any]] = defaultdict(dict)
    for (dataset, method), group in groups.items():
        statuses: dict[str, int] = defaultdict(int)
        for s in group:
            statuses[s.status] += 1
        out[dataset][method] = {
            "pages": len(group),
            "bag_of_words": aggregate([s.bow for s in group]),
            "shingles": {**aggregate([s.shingles for s in group]), "aeb": aeb_aggregate([s.shingles for s in group])},
            "exact_match": round(sum(s.exact for s in group) / len(group), 4),
            "speed": _speed([s.ms for s in group]),
            "statuses": dict(statuses),
            # pages the method left without text, whatever the status: what a corpus loses by choosing it
            "empty_outputs": sum(1 for s in group if s.n_chars == 0),
            "memory": (memory or {}).get(dataset, {}).get(method),
        }
        counted = [s.blocks for s in group if s.blocks is not None]
        if counted:
            sums = [sum(c[k] for c in counted) for k in range(4)]
            out[dataset][method]["blocks"] = {"pages": len(counted), **block_counts_scores(*sums)}
    return out


def _markdown(summary: dict[str, dict[str, Any]], skipped: dict[str, str], meta: dict[str, Any]) -> str:
    lines = [f"# pagesieve evaluation ({meta['date']})", "",
             f"Machine: {meta['machine']}; Python {meta['python']}; speed on one core, one process, methods "
             f"interleaved page by page after a warm-up of {meta['warmup']} pages.", ""]
    for dataset, methods in summary.items():
        lines += [f"## {dataset}", "",
                  "| method | pages | empty | BoW F1 mean | BoW F1 median | BoW P | BoW R | BoW F1 micro "
                  "| shingle F1 (AEB) | exact | pages/s | median ms | p99 ms | peak MB (+method) |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        ranked = sorted(methods.items(), key=lambda kv: -kv[1]["bag_of_words"]["mean"]["f1"])
        for name, m in ranked:
            bow, aeb, speed = m["bag_of_words"], m["shingles"]["aeb"], m["speed"]
            mem = f"{m['memory']['peak_mb']:.0f} (+{m['memory']['delta_mb']:.0f})" if m.get("memory") else "-"
            lines.append(
                f"| {name} | {m['pages']} | {m['empty_outputs']} | {bow['mean']['f1']:.3f} | "
                f"{bow['median']['f1']:.3f} | {bow['mean']['precision']:.3f} | {bow['mean']['recall']:.3f} | "
                f"{bow['micro']['f1']:.3f} | "
                f"{aeb['f1']:.3f} | {m['exact_match']:.2f} | {speed['pages_per_s']} | {speed['median_ms']} | "
                f"{speed['p99_ms']} | {mem} |")
        lines.append("")
        with_blocks = [(name, m["blocks"]) for name, m in ranked if m.get("blocks")]
        if with_blocks:
            lines += [f"Block level ({with_blocks[0][1]['pages']} pages, {with_blocks[0][1]['blocks']} blocks; "
                      "content = gold text aligned, see docs/evaluation.md#metrics):", "",
                      "| method | accuracy | precision | recall | F1 |", "|---|---|---|---|---|"]
            lines += [f"| {name} | {b['accuracy']:.3f} | {b['precision']:.3f} | {b['recall']:.3f} | {b['f1']:.3f} |"
                      for name, b in sorted(with_blocks, key=lambda kv: -kv[1]["f1"])]
            lines.append("")
    if skipped:
        lines += ["## Skipped methods", ""] + [f"- `{k}`: {v}" for k, v in skipped.items()] + [""]
    lines += ["Metric definitions: docs/evaluation.md#metrics. Per-page scores: `scores.csv`.", ""]
    return "\n".join(lines)


def _plots(scores: Sequence[PageScore], summary: dict[str, dict[str, Any]], out: Path) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    for dataset, methods in summary.items():
        names = sorted(methods, key=lambda n: -methods[n]["bag_of_words"]["median"]["f1"])
        data = [[s.bow.f1 for s in scores if s.dataset == dataset and s.method == n] for n in names]
        fig, ax = plt.subplots(figsize=(1.2 * len(names) + 2, 4))
        ax.boxplot(data, showmeans=True)
        ax.set_xticks(range(1, len(names) + 1), names, rotation=30, ha="right")
        ax.set_ylabel("bag-of-words F1 per page")
        ax.set_title(f"F1 distribution: {dataset}")
        fig.tight_layout()
        path = out / f"f1_{dataset}.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path.name)
    fig, ax = plt.subplots(figsize=(7, 5))
    for dataset, methods in summary.items():
        xs = [m["speed"]["pages_per_s"] for m in methods.values()]
        ys = [m["bag_of_words"]["mean"]["f1"] for m in methods.values()]
        ax.scatter(xs, ys, label=dataset)
        for name, x, y in zip(methods, xs, ys, strict=True):
            ax.annotate(name, (x, y), fontsize=8, xytext=(3, 3), textcoords="offset points")
    ax.set_xscale("log")
    ax.set_xlabel("pages/s on one core (log)")
    ax.set_ylabel("mean bag-of-words F1")
    ax.set_title("speed vs quality")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "speed_vs_f1.png", dpi=110)
    plt.close(fig)
    return [*written, "speed_vs_f1.png"]


def write_report(scores: Sequence[PageScore], out: str | Path, *, skipped: dict[str, str],
                 memory: dict[str, dict] | None = None, config: dict[str, Any] | None = None,
                 plots: bool = True) -> dict[str, Any]:
    """Write report.json, report.md, scores.csv and the PNG plots under `out`; returns the JSON data."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    summary = summarise(scores, memory)
    meta = run_meta(warmup=(config or {}).get("warmup"))
    write_csv(out / "scores.csv", [s.row() for s in scores], "dataset")
    files = ["report.json", "report.md", "scores.csv"]
    if plots and scores:
        files += _plots(scores, summary, out)
    data = {**meta, "config": config or {}, "skipped": skipped, "datasets": summary, "files": files}
    (out / "report.json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    (out / "report.md").write_text(_markdown(summary, skipped, meta), encoding="utf-8")
    return data
