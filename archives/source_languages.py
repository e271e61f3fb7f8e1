"""The archive's own language verdict: Common Crawl's `languages-cld2` line, moved from the `metadata` record
onto the page it describes (`pages.source_languages`).

Common Crawl writes each capture as request, response, metadata (`cc-main-2024-22-whirlwind.warc.gz`, records
1-3). The metadata record is `application/warc-fields` with a line

    languages-cld2: {"reliable":false,"text-bytes":3080,"languages":[{"code":"es",...}]}

and names the response by `WARC-Concurrent-To` (`WARC-Refers-To` in other writers). The readers read that block
for metadata records only (`metadata_verdict`); `attach_verdicts` then holds each page row until the record that
follows it is seen, so the verdict lands on the page before the row leaves the reader. Memory stays bounded: one
page row plus at most `WINDOW` bodiless rows read after it, never the archive.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from pagesieve.archives.rows import text

__all__ = ["METADATA_BYTES", "WINDOW", "LanguageVerdict", "attach_verdicts", "metadata_verdict"]

# A CC metadata block is ~200 bytes (`fetchTimeMs`, `charset-detected`, `languages-cld2`): read no more than this.
METADATA_BYTES = 1 << 16
# Rows read after a page while looking for its metadata record (CC puts it right after the response).
WINDOW = 8
_KEY = b"languages-cld2:"


class LanguageVerdict(str):
    """The `languages-cld2` JSON of a metadata record, carrying the record id it names (`refers_to`) for
    `attach_verdicts`. It is a plain string to everything else."""

    refers_to: str | None

    def __new__(cls, value: str, refers_to: str | None) -> LanguageVerdict:
        verdict = super().__new__(cls, value)
        verdict.refers_to = refers_to
        return verdict


def metadata_verdict(block: bytes, get: Callable[[str], str | None]) -> LanguageVerdict | None:
    """The `languages-cld2` verdict of a metadata record's block, or None when it has none.

    Args:
        block: the start of the record's block (at least `METADATA_BYTES` when the block is longer).
        get: the record's WARC header lookup (for `WARC-Concurrent-To` / `WARC-Refers-To`).

    Returns:
        The JSON text as recorded (not parsed: a malformed value is kept as it is), with the record it names.
    """
    at = block.find(_KEY)
    if at < 0 or (at > 0 and block[at - 1] not in b"\r\n"):
        return None
    value = text(block[at + len(_KEY):].split(b"\n", 1)[0]).strip()
    refers_to = get("WARC-Concurrent-To") or get("WARC-Refers-To")
    return LanguageVerdict(value, refers_to.strip() if refers_to else None) if value else None


def attach_verdicts(rows: Iterable[dict], window: int = WINDOW) -> Iterator[dict]:
    """The rows, in the same order, each page's `source_languages` set from the metadata record naming it.

    A metadata row names a page when its `WARC-Concurrent-To` / `WARC-Refers-To` is the page's id (the
    WARC-Record-ID: CC pages have no TREC id), or, when it names no record, when its target URI is the page's.
    A page is given out once its verdict is found, or when the next response, `window` rows or the end of the
    input come first (its `source_languages` then stays null).
    """
    held: list[dict] = []
    for row in rows:
        verdict = row["source_languages"]
        if held and isinstance(verdict, LanguageVerdict) and _names(verdict, row, held[0]):
            held[0]["source_languages"] = str(verdict)
            held.append(row)
            yield from _release(held)
            continue
        if held and (row["skip_reason"] in (None, "non_html") or len(held) > window):
            yield from _release(held)
        if row["skip_reason"] is None or held:  # a page starts a hold; rows after it wait with it
            held.append(row)
        else:
            yield _plain(row)
    yield from _release(held)


def _names(verdict: LanguageVerdict, metadata: dict, page: dict) -> bool:
    if verdict.refers_to is not None:
        return verdict.refers_to == page["page_id"]
    return metadata["url"] is not None and metadata["url"] == page["url"]


def _release(held: list[dict]) -> Iterator[dict]:
    for row in held:
        yield _plain(row)
    held.clear()


def _plain(row: dict) -> dict:
    """The row with its verdict as a plain str (the metadata row keeps the verdict it carries)."""
    if isinstance(row["source_languages"], LanguageVerdict):
        row["source_languages"] = str(row["source_languages"])
    return row
