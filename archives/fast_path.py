"""The fast path for a well-formed WARC with one gzip member per record: FastWARC decompresses and
reports the member offsets itself (issue 22, item 7).

Reading through `GzipMembers` costs Python's zlib plus a copy of every byte through a Python stream;
FastWARC alone runs about 2.5 times faster. Its `stream_pos` is the file offset of a record's gzip member
when each record has its own member (`manifest.jsonl`: equal for every per-record file in
`../shared/data/warc`), so the offsets come for free. What FastWARC does not say is whether the file
is well-formed (it stops without a word at junk or a broken member), so every member is checked
before its row is given out:

- a record starts a member: the gzip magic at `stream_pos`, offsets strictly increasing from 0;
- the member holds that record and nothing else: the gzip trailer's ISIZE (the last 4 bytes before the
  next member) is the record's Content-Length plus a header and separator (at most `_MAX_HEADER`);
- the last member ends at the end of the file, by the same check at the file's last 4 bytes.

At the first check that fails (or a record FastWARC cannot read whole) the path stops and returns the
member offset of the first record it did not give out; `read_warc` then reads the file with the lenient
machinery and drops the rows before that offset. Only local files take this path (it reads trailers
through mmap).
"""

from __future__ import annotations

import logging
import mmap
from collections.abc import Callable, Generator
from typing import IO, Any

__all__ = ["fast_gzip_rows"]

logger = logging.getLogger(__name__)

_MEMBER = b"\x1f\x8b\x08"
_MAX_HEADER = 1 << 20  # WARC header plus separators: more than this and the member holds something else


def fast_gzip_rows(path: str, fh: IO[bytes], size: int, make_row: Callable[[Any], tuple[dict, bool]]
                   ) -> Generator[dict, None, int | None]:
    """Rows of a per-record gzip WARC read by FastWARC alone, each member checked (see the module).

    Args:
        path: the archive (a local file), for messages.
        fh: it, open (read from its start; its descriptor is mapped to read the gzip trailers).
        size: its size.
        make_row: (row, whether the block is whole) of a FastWARC record.

    Returns:
        None when the whole file was read and checked; else the file offset from which the careful path
        must give the rows (those before it were given here).
    """
    from fastwarc.warc import ArchiveIterator

    try:
        view = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    except (AttributeError, OSError, ValueError):
        return 0
    pending: tuple[dict, int, int] | None = None  # the row whose member's end is not known yet
    with view:
        try:
            fh.seek(0)
            for rec in ArchiveIterator(fh, parse_http=True, auto_decode="none", quirks_mode=False):
                p = rec.stream_pos
                start = pending[1] if pending else 0
                if view[p:p + 3] != _MEMBER or (p <= start if pending else p != 0):
                    return start
                length = rec.headers.get("Content-Length")
                if length is None or not length.strip().isdigit():
                    return start
                if pending:
                    if not _holds_one_record(view, p, pending[2]):
                        return start
                    yield _finish(pending[0], start, p)
                row, complete = make_row(rec)
                if not complete:
                    return p  # the row before it was given out above
                pending = (row, p, int(length))
        except Exception as exc:  # noqa: BLE001 - whatever FastWARC raises, the careful path reads on from here
            logger.debug("%s: FastWARC raised %r on the fast path", path, exc)
            return pending[1] if pending else 0
        if pending is None or not _holds_one_record(view, size, pending[2]):
            return pending[1] if pending else 0
        yield _finish(pending[0], pending[1], size)
    return None


def _holds_one_record(view: mmap.mmap, end: int, content_length: int) -> bool:
    """Whether the member ending at `end` decompresses to one record of that Content-Length (its ISIZE)."""
    if end < 4 or content_length > (1 << 32) - _MAX_HEADER:
        return False
    isize = int.from_bytes(view[end - 4:end], "little")
    return content_length + 4 < isize <= content_length + 4 + _MAX_HEADER


def _finish(row: dict, start: int, end: int) -> dict:
    row["source_offset"], row["source_length"] = start, end - start
    return row
