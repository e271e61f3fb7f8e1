"""Output rows of the three kinds: what varies between `documents`, `records` and `segments`.

Each builder turns one page's `Outcome` into its rows (one or more: a page with no record or no block,
or a failed page, still gets one row with its status, so every page is accounted for).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass

import pyarrow as pa

from pagesieve.models.page import CleanResult, ExtractResult, Outcome, PageInput, SegmentResult
from pagesieve.models.page.language import LanguageID, language_of
from pagesieve.schemas import DOCUMENTS, RECORDS, SEGMENTS

__all__ = ["OutputTable", "TABLES", "documents_rows", "label_languages", "records_rows", "segments_rows"]


def documents_rows(page: PageInput, method_id: str, outcome: Outcome) -> list[dict]:
    """Exactly one `documents` row."""
    r: CleanResult = outcome.result
    method = f"{method_id}+{r.text_from}" if r.text_from else method_id
    return [{"page_id": page.page_id, "url": page.url, "method": method, "status": r.status, "error": r.error,
             "title": r.title, "text": r.text or None, "content_xpaths": list(r.content_xpaths),
             "language": r.language, "language_score": r.language_score, "n_chars": r.n_chars,
             "n_words": r.n_words, "elapsed_ms": outcome.elapsed_ms}]


def label_languages(rows: list[dict], settings: LanguageID) -> None:
    """Fill `language` and `language_score` of the `ok` documents rows whose method left them null, in place.

    The same detector for every cleaner, so languages compare across methods. A text with too few letters
    gets null; a detector failure on one text gives null for that text, never a failed page.
    """
    for row in rows:
        if row["status"] == "ok" and row["language"] is None:
            row["language"], row["language_score"] = language_of(row["text"], settings)


def records_rows(page: PageInput, method_id: str, outcome: Outcome) -> list[dict]:
    """One `records` row per record; one row with the status (`empty` for ok without records) otherwise."""
    r: ExtractResult = outcome.result
    base = {"page_id": page.page_id, "url": page.url, "method": method_id, "schema": r.schema}
    if r.status != "ok" or not r.records:
        status = "empty" if r.status == "ok" else r.status
        return [{**base, "record_index": None, "record_xpath": None, "fields": [], "status": status,
                 "error": r.error or ("no record found" if status == "empty" else None)}]
    return [{**base, "record_index": i, "record_xpath": record.xpath, "fields": [asdict(f) for f in record.fields],
             "status": "ok", "error": None} for i, record in enumerate(r.records)]


def segments_rows(page: PageInput, method_id: str, outcome: Outcome) -> list[dict]:  # noqa: ARG001 - no method column
    """One `segments` row per block; one row with the status and null block columns otherwise."""
    r: SegmentResult = outcome.result
    base = {"page_id": page.page_id, "url": page.url}
    if r.status != "ok" or not r.segments:
        status = "empty" if r.status == "ok" else r.status
        error = r.error or ("no block found" if status == "empty" else None)
        return [{**base, "block_id": None, "parent_id": None, "doc": None, "bbox": None, "xpaths": [], "text": None,
                 "is_main": None, "status": status, "error": error}]
    return [{**base, "block_id": s.block_id, "parent_id": s.parent_id, "doc": s.doc,
             "bbox": asdict(s.bbox) if s.bbox is not None else None, "xpaths": list(s.xpaths), "text": s.text or None,
             "is_main": s.is_main, "status": "ok", "error": None} for s in r.segments]


@dataclass(frozen=True, slots=True)
class OutputTable:
    """The table a kind of method writes: its name, its Arrow schema and its row builder."""

    name: str
    schema: pa.Schema
    rows: Callable[[PageInput, str, Outcome], list[dict]]

    def batch(self, rows: list[dict]) -> pa.RecordBatch:
        return pa.RecordBatch.from_pylist(rows, schema=self.schema)


TABLES: dict[str, OutputTable] = {
    "cleaner": OutputTable("documents", DOCUMENTS, documents_rows),
    "extractor": OutputTable("records", RECORDS, records_rows),
    "segmenter": OutputTable("segments", SEGMENTS, segments_rows),
}
