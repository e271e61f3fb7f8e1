"""ARC files (plain or gzip) through warcio, which FastWARC cannot read."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator
from typing import IO, Any

from pagesieve.archives.gzip_members import GZIP_MAGIC, find_member, iter_members
from pagesieve.archives.rows import (
    add_body,
    get_header,
    hash_id,
    media_type,
    one_line,
    parse_date,
    reader_row,
    skip_reason,
    strip_brackets,
)

__all__ = ["read_arc"]

logger = logging.getLogger(__name__)
_HEAD_ROOM = 1 << 20  # decompressed bytes kept beyond the body cap, for the ARC and HTTP headers


def read_arc(path: str, fh: IO[bytes], size: int, cap: int, *, start: int = 0,
             tally: dict[str, Any] | None = None) -> Iterator[dict[str, Any]]:
    """Rows of the ARC records of `fh` from file offset `start` on (see `iter_records`).

    Args:
        path: the archive, kept in `source`.
        fh: the open file.
        size: its size in bytes (the last record's length runs to it).
        cap: the body cap.
        start: where to start reading (a record offset).
        tally: filled, for a gzip ARC with a member per record, with where the file's bytes went
            (size, records, skipped, unaccounted), as for WARC files.

    Returns:
        One row per record, then a `read_error` row if warcio fails for good. In a gzip file, damage
        (junk between members, a member that does not decompress) is skipped to the next member that
        holds an ARC record line, as one `read_error` row with the skipped file range (issue 22).
    """
    fh.seek(0)
    if fh.read(2) == GZIP_MAGIC:
        yield from _read_members(path, fh, size, cap, start, tally)
    else:
        yield from _read_with_warcio(path, fh, size, cap, start)


def _read_members(path: str, fh: IO[bytes], size: int, cap: int, start: int,
                  tally: dict[str, Any] | None) -> Iterator[dict[str, Any]]:
    """A gzip ARC read member by member (the ARC format gzips each record on its own), so that zlib
    checks every member's CRC: a corrupt member is one `read_error` row, and the records around it
    keep their offsets. A member holding more than one record (a whole-file gzip) hands the file
    over to warcio from that member on, without a tally (offsets inside a member are warcio's)."""
    pending, skipped = None, 0
    for piece in iter_members(fh, start, size, keep=cap + _HEAD_ROOM):
        if piece.kind == "skip" and piece.note is None:  # padding: part of the record before it, if any
            if pending:
                pending["source_length"] += piece.end - piece.start
            else:
                skipped += piece.end - piece.start
            continue
        if pending:
            yield pending
            pending = None
        if piece.kind == "skip":
            skipped += piece.end - piece.start
            yield reader_row(path, skip_reason="read_error", source_offset=piece.start,
                             source_length=piece.end - piece.start, source_profile="arc",
                             error=piece.note)
            continue
        rows = _member_rows(piece.data, path, cap)
        if len(rows) > 1:
            yield from _read_with_warcio(path, fh, size, cap, piece.start)
            return
        for row in rows:
            row["source_offset"], row["source_length"] = piece.start, piece.end - piece.start
        pending = rows[0] if rows else reader_row(
            path, skip_reason="read_error", source_offset=piece.start, source_length=piece.end - piece.start,
            source_profile="arc", error="a gzip member holding no ARC record")
    if pending:
        yield pending
    if tally is not None:
        tally.update(size=size, records=size - start - skipped, skipped=skipped, unaccounted=0)


def _member_rows(data: bytes, path: str, cap: int) -> list[dict[str, Any]]:
    """The rows of the ARC records in one member's data (a read_error row if warcio cannot read it)."""
    from warcio.archiveiterator import ArchiveIterator

    rows = []
    try:
        for rec in ArchiveIterator(io.BytesIO(data), arc2warc=True):
            rows.append(_arc_row(rec, path, cap))
    except Exception as exc:
        rows.append(reader_row(path, skip_reason="read_error", source_profile="arc",
                               error=f"unreadable ARC record ({type(exc).__name__}: {one_line(exc)})"))
    return rows


def _read_with_warcio(path: str, fh: IO[bytes], size: int, cap: int, start: int) -> Iterator[dict[str, Any]]:
    """warcio over the whole file from `start`: a plain ARC, or a gzip ARC with records sharing members."""
    from warcio.archiveiterator import ArchiveIterator

    fh.seek(0)
    gz = fh.read(2) == GZIP_MAGIC
    end = resumed_at = start  # end of the last good record; where warcio was last (re)started
    pending = None  # its length is the next record's offset minus its own (warcio's omits the "\n")
    fh.seek(start)
    while True:
        try:
            it = ArchiveIterator(fh, arc2warc=True)
            for rec in it:
                row = _arc_row(rec, path, cap)
                # Asked after the body was read: warcio reads the rest of the record to answer.
                row["source_offset"], row["source_length"] = it.get_record_offset(), it.get_record_length()
                if gz and _peek(fh, row["source_offset"]) != GZIP_MAGIC:
                    # warcio read bytes that are not gzip as a plain ARC header (junk with spaces in it)
                    # and the members after them as its body: damage, not a record
                    raise ValueError(f"no gzip member at offset {row['source_offset']}")
                end = row["source_offset"] + row["source_length"]
                if pending:
                    pending["source_length"] = row["source_offset"] - pending["source_offset"]
                    yield pending
                pending = row
            if pending:
                pending["source_length"] = size - pending["source_offset"]
                yield pending
            return
        except Exception as exc:
            failure = exc
        # `commoncrawl-2008-arc-sample.arc`: the filedesc length (73) already counts the blank line
        # after it, so warcio eats the next record's header line and fails on its HTTP status line.
        # Restarting warcio where the last good record ended reads the other 145 records. A restart
        # must follow progress, so real damage gives one read_error row, not a loop.
        if end > resumed_at:
            logger.warning("%s: warcio failed after offset %d (%s); restarting there", path, end, one_line(failure))
            try:
                fh.seek(end)
                resumed_at = end
                continue
            except Exception as exc:
                failure = exc
        nxt = find_member(fh, end + 1) if gz else None
        if pending:
            if nxt is not None:
                pending["source_length"] = end - pending["source_offset"]
            yield pending
            pending = None
        if nxt is not None:
            yield reader_row(path, skip_reason="read_error", source_offset=end, source_length=nxt - end,
                             source_profile="arc", error=f"unreadable ARC data ({type(failure).__name__}): skipped "
                                                         f"{nxt - end} bytes at {end}-{nxt}; reading goes on at the "
                                                         f"gzip member at {nxt}")
            fh.seek(nxt)
            end = resumed_at = nxt
            continue
        yield reader_row(path, skip_reason="read_error", source_offset=end, source_profile="arc",
                         error=one_line(failure))
        return


def _peek(fh: IO[bytes], offset: int) -> bytes:
    """The 2 bytes at `offset`, the file position kept (warcio reads on from it)."""
    pos = fh.tell()
    fh.seek(offset)
    head = fh.read(2)
    fh.seek(pos)
    return head


def _arc_row(rec: Any, path: str, cap: int) -> dict:
    url = strip_brackets(rec.rec_headers.get_header("WARC-Target-URI"))
    date = rec.rec_headers.get_header("WARC-Date")
    http = rec.http_headers
    pairs = list(http.headers) if http is not None else []
    media, charset = media_type(get_header(pairs, "content-type"))
    if http is None and url and url.startswith("dns:"):
        media = "text/dns"  # arc2warc drops the ARC mime field; Heritrix types dns: records text/dns
    code = http.get_statuscode() if http is not None else None
    # No page_id from WARC-Record-ID: arc2warc invents a random one on every read.
    row = reader_row(path, page_id=hash_id(url, date), url=url, fetch_time=parse_date(date),
                     http_status=int(code) if code and code.isdigit() else None, content_type=media,
                     charset_hint=charset, source_profile="arc",
                     skip_reason=skip_reason(rec.rec_type or "unknown", media))
    if row["skip_reason"] is None:
        expected = getattr(rec.raw_stream, "limit", None)
        raw = rec.raw_stream.read(cap + 1)
        add_body(row, raw, expected is not None and len(raw) < expected, cap, pairs)
    return row
