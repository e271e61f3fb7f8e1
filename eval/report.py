"""The evaluation report: JSON and Markdown summaries, the per-page CSV, and plots.

A dataset with plain gold gets bag-of-words / shingle figures; one with snippet gold gets snippet
precision, recall, F1 and accuracy (trafilatura's protocol, `metrics.snippet_scores`); one with both
gets both. `by` fields break every figure down by a meta.jsonl field (`summarise_by`).
"""

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

from .harness import NO_VALUE, PageScore
from .metrics import aeb_aggregate, aggregate, block_counts_scores, snippet_scores

__all__ = ["speed_summary", "summarise", "summarise_by", "write_report"]


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


def _figures(group: Sequence[PageScore], memory: dict | None) -> dict[str, Any]:
    statuses: dict[str, int] = defaultdict(int)
    for s in group:
        statuses[s.status] += 1
    figures: dict[str, Any] = {
        "pages": len(group),
        "speed": _speed([s.ms for s in group]),
        "statuses": dict(statuses),
        # pages the method left without text, whatever the status: what a corpus loses by choosing it
        "empty_outputs": sum(1 for s in group if s.n_chars == 0),
        "memory": memory,
    }
    plain = [s for s in group if s.bow is not None and s.shingles is not None]
    if plain:
        figures |= {
            "gold_pages": len(plain),
            "bag_of_words": aggregate([s.bow for s in plain]),  # type: ignore[misc]
            "shingles": {**aggregate([s.shingles for s in plain]),  # type: ignore[misc]
                         "aeb": aeb_aggregate([s.shingles for s in plain])},  # type: ignore[misc]
            "exact_match": round(sum(bool(s.exact) for s in plain) / len(plain), 4),
        }
    for key, scorer in (("blocks", block_counts_scores), ("snippets", snippet_scores)):
        counted = [getattr(s, key) for s in group if getattr(s, key) is not None]
        if counted:
            sums = [sum(c[k] for c in counted) for k in range(4)]
            figures[key] = {"pages": len(counted), **scorer(*sums)}
    return figures


def summarise(scores: Sequence[PageScore], memory: dict[str, dict] | None = None) -> dict[str, dict[str, Any]]:
    """{dataset: {method: figures}} from the page scores (and memory probes, by method).

    Figures: pages, empty_outputs, statuses, speed, memory; with plain gold on some pages, gold_pages,
    bag_of_words, shingles and exact_match over those pages; with snippet gold, snippets (pages and
    `snippet_scores` of the passages summed over pages); with block counts, blocks.
    """
    groups: dict[tuple[str, str], list[PageScore]] = defaultdict(list)
    for s in scores:
        groups[(s.dataset, s.method)].append(s)
    out: dict[str, dict[str, Any]] = defaultdict(dict)
    for (dataset, method), group in groups.items():
        out[dataset][method] = _figures(group, (memory or {}).get(dataset, {}).get(method))
    return dict(out)


def summarise_by(scores: Sequence[PageScore], field: str) -> dict[str, dict[str, dict[str, Any]]]:
    """{dataset: {group value: {method: figures}}} for one `--by` field; groups by decreasing page count.

    A dataset none of whose pages has a value for the field (every value "(none)") is left out.
    """
    out: dict[str, dict[str, dict[str, Any]]] = {}
    datasets = dict.fromkeys(s.dataset for s in scores)
    for dataset in datasets:
        mine = [s for s in scores if s.dataset == dataset]
        values: dict[str, list[PageScore]] = defaultdict(list)
        for s in mine:
            values[s.groups.get(field, NO_VALUE)].append(s)
        if set(values) == {NO_VALUE}:
            continue
        ordered = sorted(values.items(), key=lambda kv: (-len(kv[1]), kv[0]))
        out[dataset] = {value: summarise(group)[dataset] for value, group in ordered}
    return out


def _rank(methods: dict[str, Any]) -> list[tuple[str, Any]]:
    """Methods best first: by mean BoW F1 where there is plain gold, else by snippet F1."""
    def key(kv: tuple[str, Any]) -> float:
        m = kv[1]
        if "bag_of_words" in m:
            return -m["bag_of_words"]["mean"]["f1"]
        return -m["snippets"]["f1"] if "snippets" in m else 0.0
    return sorted(methods.items(), key=key)


_BOW_HEAD = "BoW F1 mean | BoW F1 median | BoW P | BoW R | BoW F1 micro | shingle F1 (AEB) | exact"
_SNIPPET_HEAD = "snippet P | snippet R | snippet F1 | snippet accuracy"


def _bow_cells(m: dict[str, Any]) -> str:
    if "bag_of_words" not in m:
        return " | ".join("-" * 7)
    bow, aeb = m["bag_of_words"], m["shingles"]["aeb"]
    return (f"{bow['mean']['f1']:.3f} | {bow['median']['f1']:.3f} | {bow['mean']['precision']:.3f} | "
            f"{bow['mean']['recall']:.3f} | {bow['micro']['f1']:.3f} | {aeb['f1']:.3f} | {m['exact_match']:.2f}")


def _snippet_cells(m: dict[str, Any]) -> str:
    if "snippets" not in m:
        return " | ".join("-" * 4)
    sn = m["snippets"]
    return f"{sn['precision']:.3f} | {sn['recall']:.3f} | {sn['f1']:.3f} | {sn['accuracy']:.3f}"


def _table(head: str, rows: list[str]) -> list[str]:
    return [f"| {head} |", "|" + "---|" * (head.count("|") + 1), *rows, ""]


def _dataset_tables(methods: dict[str, Any]) -> list[str]:
    ranked = _rank(methods)
    has_bow = any("bag_of_words" in m for _, m in ranked)
    has_snippets = any("snippets" in m for _, m in ranked)
    metric_head, cells = (_BOW_HEAD, _bow_cells) if has_bow or not has_snippets else (_SNIPPET_HEAD, _snippet_cells)
    rows = []
    for name, m in ranked:
        speed = m["speed"]
        mem = f"{m['memory']['peak_mb']:.0f} (+{m['memory']['delta_mb']:.0f})" if m.get("memory") else "-"
        rows.append(f"| {name} | {m['pages']} | {m['empty_outputs']} | {cells(m)} | {speed['pages_per_s']} | "
                    f"{speed['median_ms']} | {speed['p99_ms']} | {mem} |")
    lines = _table(f"method | pages | empty | {metric_head} | pages/s | median ms | p99 ms | peak MB (+method)", rows)
    if has_bow and has_snippets:
        first = next(m["snippets"] for _, m in ranked if "snippets" in m)
        lines += [f"Snippets ({first['pages']} pages, {first['passages']} `with` / `without` passages, "
                  "trafilatura's protocol, see docs/evaluation.md#metrics):", ""]
        lines += _table(f"method | {_SNIPPET_HEAD} | tp | fp | fn | tn",
                        [f"| {name} | {_snippet_cells(m)} | {m['snippets']['tp']} | {m['snippets']['fp']} | "
                         f"{m['snippets']['fn']} | {m['snippets']['tn']} |" for name, m in ranked if "snippets" in m])
    with_blocks = [(name, m["blocks"]) for name, m in ranked if m.get("blocks")]
    if with_blocks:
        lines += [f"Block level ({with_blocks[0][1]['pages']} pages, {with_blocks[0][1]['blocks']} blocks; "
                  "content = gold text aligned, see docs/evaluation.md#metrics):", ""]
        lines += _table("method | accuracy | precision | recall | F1",
                        [f"| {name} | {b['accuracy']:.3f} | {b['precision']:.3f} | {b['recall']:.3f} | {b['f1']:.3f} |"
                         for name, b in sorted(with_blocks, key=lambda kv: -kv[1]["f1"])])
    return lines


def _group_table(field: str, groups: dict[str, dict[str, Any]]) -> list[str]:
    """One table of a dataset broken down by `field`: a row per (group, method)."""
    every = [m for methods in groups.values() for m in methods.values()]
    heads = [("BoW F1 mean | BoW F1 median | BoW F1 micro | shingle F1 (AEB)", "bag_of_words"),
             (_SNIPPET_HEAD, "snippets")]
    heads = [(h, k) for h, k in heads if any(k in m for m in every)]
    rows = []
    for value, methods in groups.items():
        for name, m in _rank(methods):
            cells = []
            for _, key in heads:
                if key == "snippets":
                    cells.append(_snippet_cells(m))
                elif "bag_of_words" in m:
                    bow = m["bag_of_words"]
                    cells.append(f"{bow['mean']['f1']:.3f} | {bow['median']['f1']:.3f} | {bow['micro']['f1']:.3f} | "
                                 f"{m['shingles']['aeb']['f1']:.3f}")
                else:
                    cells.append(" | ".join("-" * 4))
            rows.append(f"| {value} | {name} | {m['pages']} | {m['empty_outputs']} | {' | '.join(cells)} |")
    return _table(" | ".join([field, "method", "pages", "empty", *(h for h, _ in heads)]), rows)


def _markdown(summary: dict[str, dict[str, Any]], skipped: dict[str, str], meta: dict[str, Any],
              by: dict[str, dict[str, dict[str, Any]]] | None = None) -> str:
    lines = [f"# pagesieve evaluation ({meta['date']})", "",
             f"Machine: {meta['machine']}; Python {meta['python']}; speed on one core, one process, methods "
             f"interleaved page by page after a warm-up of {meta['warmup']} pages.", ""]
    for dataset, methods in summary.items():
        lines += [f"## {dataset}", "", *_dataset_tables(methods)]
    for field, datasets in (by or {}).items():
        for dataset, groups in datasets.items():
            lines += [f"## {dataset} by {field}", "", *_group_table(field, groups)]
        missing = [d for d in summary if d not in datasets]
        if missing:
            lines += [f"No `{field}` value in meta.jsonl of: {', '.join(missing)}.", ""]
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
        if not all("bag_of_words" in m for m in methods.values()):
            continue   # the F1 plots are of BoW F1: a dataset with snippet gold only has none
        names = sorted(methods, key=lambda n: -methods[n]["bag_of_words"]["median"]["f1"])
        data = [[s.bow.f1 for s in scores if s.dataset == dataset and s.method == n and s.bow is not None]
                for n in names]
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
        plotted = {n: m for n, m in methods.items() if "bag_of_words" in m}
        xs = [m["speed"]["pages_per_s"] for m in plotted.values()]
        ys = [m["bag_of_words"]["mean"]["f1"] for m in plotted.values()]
        ax.scatter(xs, ys, label=dataset)
        for name, x, y in zip(plotted, xs, ys, strict=True):
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
                 plots: bool = True, by: Sequence[str] = ()) -> dict[str, Any]:
    """Write report.json, report.md, scores.csv and the PNG plots under `out`; returns the JSON data.

    With `by`, report.json gets "by": {field: {dataset: {group: {method: figures}}}} (`summarise_by`),
    report.md a table per field and dataset, and scores.csv a column per field (the page's group).
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    summary = summarise(scores, memory)
    grouped = {field: summarise_by(scores, field) for field in by}
    meta = run_meta(warmup=(config or {}).get("warmup"))
    write_csv(out / "scores.csv", [s.row() for s in scores], "dataset")
    files = ["report.json", "report.md", "scores.csv"]
    if plots and scores:
        files += _plots(scores, summary, out)
    data = {**meta, "config": config or {}, "skipped": skipped, "datasets": summary, "files": files}
    if by:
        data["by"] = grouped
    (out / "report.json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    (out / "report.md").write_text(_markdown(summary, skipped, meta, grouped), encoding="utf-8")
    return data
