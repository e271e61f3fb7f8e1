"""Re-reading one record from the `source`/`source_offset` stored in the pages table, and showing it.

Used by `pagesieve show-record ARCHIVE OFFSET`. The record is parsed by the same code as in
`iter_records`, so it comes back as the very row the ingest job wrote (page_id, body, offsets).
"""

from __future__ import annotations

import codecs
import os
from typing import Any

from pagesieve.archives.arc import read_arc
from pagesieve.archives.archive import Start, open_archive, read_warc
from pagesieve.archives.gzip_members import GZIP_MAGIC
from pagesieve.archives.profiles import check_profile, detect_profile, sniff
from pagesieve.archives.source_languages import attach_verdicts

__all__ = ["format_record", "read_record_at"]

_FIELDS = ("source", "source_offset", "source_length", "source_profile", "page_id", "url", "fetch_time",
           "http_status", "content_type", "charset_hint", "ingest_status", "skip_reason", "error")


def read_record_at(path: str, offset: int, *, profile: str = "auto",
                   max_body_bytes: int = 20_000_000) -> dict[str, Any]:
    """Read the one record that starts at `offset` (a `source_offset` of the pages table).

    How the offset is used depends on the file, as `iter_records` set it:
    - gzip with a member per record (Common Crawl, Wget, Heritrix ARC, ClueWeb22): `offset` is the
      member's file offset; the file is seeked there and that member decompressed.
    - plain WARC or ARC: `offset` is a file offset; the file is seeked there and one record parsed.
    - whole-file gzip (ClueWeb09/12): `offset` is a position in the decompressed stream. There is
      no way to seek into a gzip stream, so the file is decompressed from the start up to the
      offset: slow for a large file (all of it for its last record).

    Args:
        path: local path or fsspec URI of the archive (the `source` column).
        offset: the record's `source_offset`.
        profile: one of PROFILES; `auto` detects it from the start of the file as `iter_records` does.
        max_body_bytes: the body cap, as in `iter_records`.

    Returns:
        The record's READER_ROWS dict (the same as `iter_records` gives for it).

    Raises:
        ValueError: an unknown profile, a negative offset, or no record starts at `offset`.
        OSError: the archive cannot be opened.
    """
    check_profile(profile)
    if offset < 0:
        raise ValueError(f"offset must be >= 0, got {offset}")
    with open_archive(path) as fh:
        size = fh.seek(0, os.SEEK_END)
        fh.seek(0)
        gz, head = sniff(fh)
        used = detect_profile(head, path) if profile == "auto" else profile
        seen = []
        for start in _starts(fh, gz, offset, used):
            if used == "arc":
                rows = read_arc(path, fh, size, max_body_bytes, start=offset)
            else:
                rows = read_warc(path, fh, gz, size, max_body_bytes, used, start=start)
            row = next(attach_verdicts(rows), None)   # reads on to the page's metadata record, if any
            rows.close()
            if row is not None and row["skip_reason"] != "read_error" and row["source_offset"] == offset:
                return row
            if row is not None:
                seen.append(row["error"] or f"a record at offset {row['source_offset']}")
    why = "; ".join(dict.fromkeys(seen)) or ("no gzip member or line starts there" if used == "arc" else "")
    raise ValueError(f"no record starts at offset {offset} of {path} (profile {used})" + (f": {why}" if why else ""))


def _starts(fh: Any, gz: bool, offset: int, profile: str) -> list[Start]:
    """Where to try reading: a gzip member at `offset`, else `offset` in the decompressed stream."""
    fh.seek(max(offset - 1, 0))
    before, magic = (b"\n", fh.read(2)) if offset == 0 else (fh.read(1), fh.read(2))
    fh.seek(0)
    at_member = magic == GZIP_MAGIC
    if profile == "arc":
        # An ARC header is a bare line (url ip date type length) that warcio parses wherever it is
        # started, so the offset must be a gzip member or a line start (`commoncrawl-2008-arc-sample.arc`).
        return [(offset, None)] if (at_member if gz else before == b"\n") else []
    if not gz:
        return [(offset, None)]
    # A member at `offset` is read with its decompressed offset taken as 0: a record there comes back
    # with `offset` only if it is alone in its member (or at offset 0 of a whole-file gzip).
    return ([(0, offset)] if at_member else []) + [(offset, None)]


def format_record(row: dict[str, Any], *, body_bytes: int = 4096) -> str:
    """A reader row as text: its fields, its HTTP headers, then the start of its body.

    Args:
        row: a READER_ROWS dict (from `read_record_at`, `iter_records` or the pages table).
        body_bytes: how many body bytes to show.

    Returns:
        Text for a terminal. The body is decoded with its charset hint when Python knows it, else
        as UTF-8, with undecodable bytes replaced; nothing here raises on odd bytes.
    """
    width = max(map(len, _FIELDS))
    lines = [f"{name:<{width}}  {row.get(name)}" for name in _FIELDS if row.get(name) is not None]
    headers = row.get("http_headers") or {}
    if isinstance(headers, list):  # a map column read back by pyarrow is a list of pairs
        headers = dict(headers)
    if headers:
        lines += ["", "--- HTTP headers ---", *(f"{k}: {v}" for k, v in headers.items())]
    body = row.get("body")
    if body is not None:
        shown = body[:body_bytes]
        lines += ["", f"--- body: first {len(shown)} of {len(body)} bytes ---",
                  _decode(shown, row.get("charset_hint"))]
    return "\n".join(lines)


def _decode(data: bytes, charset: str | None) -> str:
    try:
        codec = codecs.lookup(charset).name if charset else "utf-8"
    except LookupError:
        codec = "utf-8"
    return data.decode(codec, errors="replace")
