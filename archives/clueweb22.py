"""Random access to ClueWeb22 html documents through their `.warc.offset` files.

ClueWeb22 (docs/archives.md, "Profiles"; the reference ClueWeb22Api does the same): next
to `<lang>NNNN-FF.warc.gz` lies `<lang>NNNN-FF.warc.offset`, fixed-width entries of a 10-digit
zero-padded decimal byte offset and `\\n` (11 bytes). Entry i is where document i (the last five
digits of its `ClueWeb22-ID`) starts, entry i+1 where it ends; each document is its own gzip member.
"""

from __future__ import annotations

import io
import re
from typing import Any

from pagesieve.archives.archive import open_archive, read_warc
from pagesieve.archives.gzip_members import GZIP_MAGIC

__all__ = ["OFFSET_ENTRY_BYTES", "clueweb22_offset_path", "read_clueweb22_document"]

OFFSET_ENTRY_BYTES = 11
_ENTRY = re.compile(rb"\d{10}\n")
_DOC_NUMBER = re.compile(r"-(\d{5})$")


def clueweb22_offset_path(warc_path: str) -> str:
    """The `.warc.offset` file beside a ClueWeb22 html file (`en0000-00.warc.gz` -> `en0000-00.warc.offset`)."""
    return f"{warc_path.removesuffix('.gz')}.offset"


def read_clueweb22_document(warc_path: str, index: int, *, max_body_bytes: int = 20_000_000,
                            offset_path: str | None = None) -> dict[str, Any]:
    """Read document `index` of a ClueWeb22 html WARC file by its byte range alone.

    Args:
        warc_path: local path or fsspec URI of the `.warc.gz` file; kept in `source`.
        index: the document number (0 for `clueweb22-en0000-00-00000`).
        max_body_bytes: the body cap, as in `iter_records`.
        offset_path: the offset file, if not beside `warc_path` (see `clueweb22_offset_path`).

    Returns:
        One READER_ROWS dict (profile clueweb22) whose source_offset/source_length are the range.

    Raises:
        IndexError: the offset file has no entry i+1 for `index`.
        ValueError: a malformed entry, a range that is cut or holds no document, or a document whose
            ClueWeb22-ID number is not `index`.
    """
    if index < 0:
        raise IndexError(f"document index must be >= 0, got {index}")
    offsets = offset_path or clueweb22_offset_path(warc_path)
    with open_archive(offsets) as fh:
        fh.seek(index * OFFSET_ENTRY_BYTES)
        entries = fh.read(2 * OFFSET_ENTRY_BYTES)
    if len(entries) < 2 * OFFSET_ENTRY_BYTES:
        raise IndexError(f"{offsets} has no entries {index} and {index + 1} (document {index} is not there)")
    if not (_ENTRY.fullmatch(entries[:11]) and _ENTRY.fullmatch(entries[11:])):
        raise ValueError(f"{offsets}: entries {index}-{index + 1} are not 10-digit offsets: {entries!r}")
    start, end = int(entries[:10]), int(entries[11:21])
    if end <= start:
        raise ValueError(f"{offsets}: document {index} has the empty range {start}-{end}")
    with open_archive(warc_path) as fh:
        fh.seek(start)
        data = fh.read(end - start)
    if len(data) < end - start:
        raise ValueError(f"{warc_path} ends at {start + len(data)}, inside document {index} ({start}-{end})")
    gz = data.startswith(GZIP_MAGIC)
    rows = read_warc(warc_path, io.BytesIO(data), gz, len(data), max_body_bytes, "clueweb22",
                     start=(0, 0 if gz else None))
    # The range should hold exactly the document; a warcinfo in front of it is passed over.
    row = next((r for r in rows if r["skip_reason"] != "warcinfo"), None)
    if row is None or row["skip_reason"] == "read_error":
        raise ValueError(f"{warc_path}: bytes {start}-{end} hold no document" + (f" ({row['error']})" if row else ""))
    number = _DOC_NUMBER.search(row["page_id"] or "")
    if number and int(number.group(1)) != index:
        raise ValueError(f"{offsets}: entry {index} points at {row['page_id']}")
    row["source_offset"], row["source_length"] = start, end - start
    return row
