"""Readers for the benchmark layout of ../shared/data: `input/<id>.html` + `gold/<id>.txt`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["GoldPage", "iter_gold_pages", "strip_cleaneval_wrapper"]


@dataclass(frozen=True, slots=True)
class GoldPage:
    page_id: str
    url: str | None
    html: bytes
    gold: str


def strip_cleaneval_wrapper(html: bytes) -> bytes:
    """Drop CleanEval's `<text id=... encoding=...>` first line and `</text>` last line, as Web2Text does."""
    if not html.lstrip().startswith(b"<text"):
        return html
    lines = html.strip().split(b"\n")
    if lines[-1].strip() == b"</text>":
        lines = lines[:-1]
    return b"\n".join(lines[1:])


def iter_gold_pages(dataset: str | Path, split: str | None = None) -> Iterator[GoldPage]:
    """Pages of a dataset folder in id order (or the order of `splits/<split>.txt`).

    Args:
        dataset: a folder with `input/<id>.html` and `gold/<id>.txt`, and optionally `meta.jsonl`.
        split: name of a file in `splits/` listing the ids to read.
    """
    root = Path(dataset)
    urls: dict[str, str | None] = {}
    if (root / "meta.jsonl").exists():
        with open(root / "meta.jsonl", encoding="utf-8") as fh:
            for line in fh:
                row = json.loads(line)
                urls[str(row["id"])] = row.get("url")
    if split is not None:
        ids = (root / "splits" / f"{split}.txt").read_text().split()
    else:
        ids = sorted((p.stem for p in (root / "input").glob("*.html")), key=lambda s: (len(s), s))
    for page_id in ids:
        html = strip_cleaneval_wrapper((root / "input" / f"{page_id}.html").read_bytes())
        gold = (root / "gold" / f"{page_id}.txt").read_text("utf-8")
        yield GoldPage(page_id, urls.get(page_id), html, gold)
