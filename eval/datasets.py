"""Readers for gold-standard page collections (HTML page + main text) in the layouts the harness accepts.

Layouts (`describe_dataset(path)["layout"]`):

- "shared": a folder with `input/<id>.html`, `gold/<id>.txt` and `meta.jsonl` (the layout of
  ../shared/data; `meta.jsonl` gives the URLs and the fields `--by` groups on), optionally `splits/<name>.txt`.
- "folder": the same without `meta.jsonl` (bring your own); ids are the file stems.
- "annotated": a folder with `input/<id>.html` and CleanEval `gold-annotated/<id>.txt` but no
  `gold/`; the plain gold is derived with `clean_annotated_gold`.
- "jsonl": a `.jsonl` file, one {"url", "html", "text"} object per line, optional "id" (default:
  the 1-based line number).
- "snippets": a folder with `input/<id>.html` and `gold-snippets/<id>.json` but no `gold/` (trafilatura's
  evaluation corpus): no plain gold text, only passages that must (`with`) and must not (`without`) be in
  the main text.

In folder layouts an input may be gzipped (`input/<id>.html.gz`). Snippet gold is read, in every folder
layout, from `gold-snippets/<id>.json` ({"with": [...], "without": [...]}) or else from WCXB's
`gold-json/<id>.json` ({"ground_truth": {"with", "without"}}); a page with neither has none.

In folder layouts a page whose gold file is missing is skipped with a logged warning.
"""

from __future__ import annotations

import codecs
import gzip
import json
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path
from typing import Any

__all__ = [
    "GoldPage",
    "Snippets",
    "iter_gold_pages",
    "strip_cleaneval_wrapper",
    "clean_annotated_gold",
    "decode_utf8_cp1252",
    "dataset_name",
    "meta_fields",
    "read_meta",
    "read_snippets",
    "describe_dataset",
"split_files"]

log = logging.getLogger(__name__)

LAYOUTS_HELP = (
    "accepted layouts: a folder with input/<id>.html[.gz] and gold/<id>.txt (optionally meta.jsonl and "
    "splits/<name>.txt); a folder with input/<id>.html[.gz] and CleanEval gold-annotated/<id>.txt; a folder "
    "with input/<id>.html[.gz] and gold-snippets/<id>.json; "
    'or a .jsonl file of {"url", "html", "text"} objects (optional "id")'
)


@dataclass(frozen=True, slots=True)
class Snippets:
    """Passages that must (`with_`) and must not (`without`) be in a page's main text."""

    with_: tuple[str, ...]
    without: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class GoldPage:
    page_id: str
    url: str | None
    html: bytes
    gold: str | None                       # plain gold text; None in the "snippets" layout
    snippets: Snippets | None = None
    meta: dict[str, Any] = field(default_factory=dict)   # the page's meta.jsonl row (or JSONL row less html/text)


def strip_cleaneval_wrapper(html: bytes) -> bytes:
    """Drop CleanEval's `<text id=... encoding=...>` first line and `</text>` last line, as Web2Text does."""
    if not html.lstrip().startswith(b"<text"):
        return html
    lines = html.strip().split(b"\n")
    if lines[-1].strip() == b"</text>":
        lines = lines[:-1]
    return b"\n".join(lines[1:])


def _cp1252_fallback(err: UnicodeError) -> tuple[str, int]:
    bad = err.object[err.start : err.end]  # type: ignore[attr-defined]
    return "".join(bytes([b]).decode("cp1252", errors="ignore") or chr(b) for b in bad), err.end  # type: ignore


codecs.register_error("pagesieve.cp1252", _cp1252_fallback)


def decode_utf8_cp1252(data: bytes) -> str:
    """Decode UTF-8, reading every byte that is not part of a valid UTF-8 sequence as Windows-1252.

    Bytes undefined in Windows-1252 (0x81, 0x8D, 0x8F, 0x90, 0x9D) become the code point of the
    same value. This is how the CleanEval README decodes the 48 gold files that are not UTF-8.
    """
    return data.decode("utf-8", errors="pagesieve.cp1252")


_MARKER = re.compile(r"<([phl])>", re.IGNORECASE)
_RULE = re.compile(r"\s*(?:_{10,}|-{10,})\s*")
_BULLET = re.compile(r"\A\s*(?:\*|»|\d{1,2}\.(?=\s))")
_SPACE = re.compile(r"\s+")


def clean_annotated_gold(text: str) -> str:
    """Plain gold text from a CleanEval annotated gold file, one paragraph per line.

    The rules of ../shared/data/cleaneval/README.md ("How gold/ was made"), applied to decoded text:
    remove a byte-order mark, leading blank lines and a first line starting with `URL:`; drop lines
    that consist only of 10 or more `_` or of 10 or more `-` (surrounding white space allowed);
    start a new paragraph at every `<p>`, `<h>`, `<l>` marker (any case, also inside a line) and at
    every blank (white-space-only) line; right after an `<l>` marker remove a bullet: `*`, `»`, or a
    one- or two-digit number with a period that is followed by white space (`1. Fast` -> `Fast`,
    but `2.8 GHz`, `2.a` and a lone `1.` are kept); join the lines of a paragraph with single spaces,
    each line stripped and its inner white-space runs collapsed to one space. Empty paragraphs are
    dropped; paragraphs are joined with "\\n", with a final "\\n" unless the result is empty.
    Other angle-bracket strings are literal text and kept.
    """
    lines = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    if lines and lines[0].startswith("URL:"):
        lines.pop(0)
    paragraphs: list[str] = []
    current: list[str] = []

    def add(piece: str) -> None:
        piece = _SPACE.sub(" ", piece.strip())
        if piece:
            current.append(piece)

    def flush() -> None:
        if current:
            paragraphs.append(" ".join(current))
            current.clear()

    for line in lines:
        if _RULE.fullmatch(line):
            continue
        if not line.strip():
            flush()
            continue
        parts = _MARKER.split(line)  # text, marker letter, text, marker letter, text, ...
        add(parts[0])
        for i in range(1, len(parts), 2):
            flush()
            add(_BULLET.sub("", parts[i + 1], count=1) if parts[i].lower() == "l" else parts[i + 1])
    flush()
    return "\n".join(paragraphs) + "\n" if paragraphs else ""


def _page_order(ids: list[str]) -> list[str]:
    return sorted(ids, key=lambda s: (len(s), s))


def _layout(root: Path) -> str:
    if root.is_file() and root.suffix == ".jsonl":
        return "jsonl"
    if root.is_dir() and (root / "input").is_dir():
        if (root / "gold").is_dir():
            return "shared" if (root / "meta.jsonl").is_file() else "folder"
        if (root / "gold-annotated").is_dir():
            return "annotated"
        if (root / "gold-snippets").is_dir():
            return "snippets"
    what = "does not exist" if not root.exists() else "is not a dataset"
    from pagesieve.data import data_root

    beside = data_root() / root.name
    hint = f" (a data set of that name: {beside})" if not root.exists() and beside != root and beside.is_dir() else ""
    raise ValueError(f"{root} {what}{hint}; {LAYOUTS_HELP}")


def _read_jsonl(root: Path) -> tuple[list[GoldPage], list[str]]:
    pages: list[GoldPage] = []
    skipped: list[str] = []
    seen: set[str] = set()
    with open(root, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{root}:{lineno}: not JSON ({exc})") from None
            if not isinstance(row, dict) or not isinstance(row.get("html"), str):
                raise ValueError(f'{root}:{lineno}: expected an object with an "html" string; {LAYOUTS_HELP}')
            page_id = str(row.get("id", lineno))
            if page_id in seen:
                raise ValueError(f"{root}:{lineno}: duplicate id {page_id!r}")
            seen.add(page_id)
            if not isinstance(row.get("text"), str):
                skipped.append(page_id)
                continue
            html = strip_cleaneval_wrapper(row["html"].encode("utf-8"))
            meta = {k: v for k, v in row.items() if k not in ("html", "text")}
            pages.append(GoldPage(page_id, row.get("url"), html, row["text"], meta=meta))
    return pages, skipped


def _folder_ids(root: Path, layout: str, split: str | None) -> tuple[list[str], list[str]]:
    """(ids with gold, ids skipped because their gold file is missing)."""
    if split is not None:
        splits = split_files(root)
        if split not in splits:
            raise ValueError(f"{root}: no split {split!r} (known: {', '.join(sorted(splits)) or 'none'})")
        ids = splits[split].read_text("utf-8").split()
    else:
        found = {_input_id(p.name) for p in (root / "input").iterdir()}
        ids = _page_order([i for i in found if i is not None])
    gold_dir, suffix = _GOLD[layout]
    have: list[str] = []
    missing: list[str] = []
    for i in ids:
        (have if (root / gold_dir / f"{i}{suffix}").is_file() else missing).append(i)
    return have, missing


_GOLD = {"shared": ("gold", ".txt"), "folder": ("gold", ".txt"), "annotated": ("gold-annotated", ".txt"),
         "snippets": ("gold-snippets", ".json")}


def _input_id(name: str) -> str | None:
    for suffix in (".html", ".html.gz"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return None


def _input_path(root: Path, page_id: str) -> Path | None:
    for suffix in (".html", ".html.gz"):
        if (path := root / "input" / f"{page_id}{suffix}").is_file():
            return path
    return None


def _read_input(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if path.name.endswith(".gz") else data


def read_snippets(root: Path, page_id: str) -> Snippets | None:
    """The page's snippet gold (see the module docstring), or None when it has none.

    Raises:
        ValueError: the file is not JSON or its `with` / `without` are not lists of strings.
    """
    for path, key in ((root / "gold-snippets" / f"{page_id}.json", None),
                      (root / "gold-json" / f"{page_id}.json", "ground_truth")):
        if not path.is_file():
            continue
        try:
            record = json.loads(path.read_text("utf-8"))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}: not JSON ({exc})") from None
        record = (record.get(key) if key else record) or {}
        lists = [record.get(k) or [] for k in ("with", "without")]
        if not all(isinstance(x, list) and all(isinstance(t, str) for t in x) for x in lists):
            raise ValueError(f'{path}: "with" and "without" must be lists of strings')
        if any(lists):
            return Snippets(tuple(lists[0]), tuple(lists[1]))
        return None
    return None


def split_files(root: Path) -> dict[str, Traversable | Path]:
    """Split name -> file of ids: the data folder's own `splits/*.txt`, then the project's fixed splits of
    that dataset (`conf/splits/<name>/*.txt`, written by scripts/train/make_splits.py; the data folder is read-only)."""
    found: dict[str, Traversable | Path] = {}
    project = resources.files("pagesieve.conf").joinpath("splits", root.resolve().name)
    if project.is_dir():
        found.update({f.name[:-4]: f for f in project.iterdir() if f.name.endswith(".txt")})
    found.update({p.stem: p for p in (root / "splits").glob("*.txt")})
    return found


def _warn_skipped(root: Path, skipped: list[str]) -> None:
    if skipped:
        shown = ", ".join(skipped[:10]) + (", ..." if len(skipped) > 10 else "")
        log.warning("%s: %d page(s) without gold skipped: %s", root, len(skipped), shown)


def iter_gold_pages(dataset: str | Path, split: str | None = None) -> Iterator[GoldPage]:
    """Pages of a dataset in id order (shortest id first, then lexical) or the order of `splits/<split>.txt`.

    Args:
        dataset: a folder or `.jsonl` file in one of the layouts of this module's docstring.
        split: name of a file in `splits/` listing the ids to read (folder layouts only).

    Returns:
        An iterator of GoldPage with the input bytes (CleanEval's `<text>` wrapper removed), the URL where known
        (`meta.jsonl`, the JSONL "url", or the `URL:` line of an annotated gold) and the gold text.

    Raises:
        ValueError: (on the call, not on iteration) the path does not exist or has none of the
            accepted layouts, the split is unknown, a listed page has no input file, or a JSONL
            line is malformed.
    """
    root = Path(dataset)
    layout = _layout(root)  # errors are raised here, before the first page is asked for
    if layout == "jsonl":
        if split is not None:
            raise ValueError(f"{root}: a JSONL dataset has no splits")
        pages, skipped = _read_jsonl(root)
        _warn_skipped(root, skipped)
        return iter(pages)
    meta = read_meta(root)
    ids, skipped = _folder_ids(root, layout, split)
    _warn_skipped(root, skipped)
    for page_id in ids:
        if _input_path(root, page_id) is None:
            raise ValueError(f"{root}: page {page_id!r} is listed but input/{page_id}.html is missing (nor .html.gz)")
    return _iter_folder(root, layout, ids, meta)


def read_meta(root: Path) -> dict[str, dict[str, Any]]:
    """{id: row} of a folder's `meta.jsonl` ({} without one)."""
    rows: dict[str, dict[str, Any]] = {}
    if (root / "meta.jsonl").is_file():
        with open(root / "meta.jsonl", encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    row = json.loads(line)
                    rows[str(row["id"])] = row
    return rows


def _iter_folder(root: Path, layout: str, ids: list[str], meta: dict[str, dict[str, Any]]) -> Iterator[GoldPage]:
    for page_id in ids:
        html = strip_cleaneval_wrapper(_read_input(_input_path(root, page_id)))  # type: ignore[arg-type]
        row = meta.get(page_id, {})
        url = row.get("url")
        gold: str | None
        if layout == "annotated":
            raw = decode_utf8_cp1252((root / "gold-annotated" / f"{page_id}.txt").read_bytes())
            gold = clean_annotated_gold(raw)
            if url is None:
                first = raw.lstrip("\ufeff").lstrip().split("\n", 1)[0]
                if first.startswith("URL:"):
                    url = first[4:].strip() or None
        elif layout == "snippets":
            gold = None
        else:
            gold = decode_utf8_cp1252((root / "gold" / f"{page_id}.txt").read_bytes()).lstrip("\ufeff")
        yield GoldPage(page_id, url, html, gold, read_snippets(root, page_id), row)


def meta_fields(dataset: str | Path) -> set[str]:
    """The fields the pages of a dataset have in meta.jsonl (JSONL: the keys of its rows but "html" and "text")."""
    root = Path(dataset)
    if _layout(root) == "jsonl":
        pages, _ = _read_jsonl(root)
        return {k for p in pages for k in p.meta}
    return {k for row in read_meta(root).values() for k in row}


def dataset_name(path: str | Path) -> str:
    """Short name of a dataset: the file stem of a `.jsonl` file, else the folder's name."""
    p = Path(path)
    return p.stem if p.suffix == ".jsonl" or p.is_file() else p.resolve().name


def describe_dataset(path: str | Path) -> dict:
    """Name, layout and page counts of a dataset, without reading the pages' contents (JSONL is parsed).

    Returns:
        {"name", "path", "layout", "pages" (with gold), "skipped" (number of pages without gold),
        "skipped_ids", "splits" (names of `split_files`, sorted; [] for JSONL)}.

    Raises:
        ValueError: as `iter_gold_pages`.
    """
    root = Path(path)
    layout = _layout(root)
    if layout == "jsonl":
        pages, skipped = _read_jsonl(root)
        n, splits = len(pages), []
    else:
        ids, skipped = _folder_ids(root, layout, None)
        n, splits = len(ids), sorted(split_files(root))
    return {
        "name": dataset_name(root),
        "path": str(root),
        "layout": layout,
        "pages": n,
        "skipped": len(skipped),
        "skipped_ids": skipped,
        "splits": splits,
    }
