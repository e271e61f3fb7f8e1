"""ARC files (plain or gzip) through warcio, which FastWARC cannot read."""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Iterator
from typing import IO, Any

from pagesieve.archives.gzip_members import GZIP_MAGIC, PADDING, find_member, iter_members
from pagesieve.archives.rows import (
    add_body,
    get_header,
    hash_id,
    keeps_body,
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
        tally: filled with where the file's bytes went (size, records, skipped, unaccounted), as for
            WARC files; left empty for a gzip ARC whose records share members (a whole-file gzip).

    Returns:
        One row per record, then a `read_error` row if warcio fails for good. In a gzip file, damage
        (junk between members, a member that does not decompress) is skipped to the next member that
        holds an ARC record line, as one `read_error` row with the skipped file range (issue 22).
    """
    fh.seek(0)
    if fh.read(2) == GZIP_MAGIC:
        yield from _read_members(path, fh, size, cap, start, tally)
    else:
        yield from _tallied(_read_with_warcio(path, fh, size, cap, start), size, start, tally)


def _tallied(rows: Iterator[dict[str, Any]], size: int, start: int,
             tally: dict[str, Any] | None) -> Iterator[dict[str, Any]]:
    """The rows of a plain ARC, counting their bytes: each record runs to the next one's offset, so records
    and skipped ranges tile the file unless warcio failed for good (a read_error without a length: then
    `unaccounted` is None, as for a WARC whose raw read failed, and the row says why)."""
    records = skipped = 0
    failed = False
    for row in rows:
        if row["skip_reason"] != "read_error":
            records += row["source_length"]
        elif row["source_length"] is None:
            failed = True
        else:
            skipped += row["source_length"]
        yield row
    if tally is not None:
        unaccounted = None if failed else size - start - records - skipped
        tally.update(size=size, records=records, skipped=skipped, unaccounted=unaccounted)


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
                if not gz and not _ARC_HEADER.match(_peek(fh, row["source_offset"], 4096)):
                    raise ValueError(f"no ARC record line at offset {row['source_offset']}")  # the same, plain
                if pending:
                    yield from _up_to(pending, end, row["source_offset"], None if gz else fh, path)
                end = row["source_offset"] + row["source_length"]
                pending = row
            if pending:
                yield from _up_to(pending, end, size, None if gz else fh, path)
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
        if not gz:  # the blank line that ends the last good record is its own, not damage
            head = _peek(fh, end, 64)
            end += len(head) - len(head.lstrip(PADDING))
        nxt = find_member(fh, end + 1) if gz else _next_record_line(fh, end + 1)
        if pending:
            if nxt is not None or not gz:
                pending["source_length"] = end - pending["source_offset"]
            yield pending
            pending = None
        where = f"the gzip member at {nxt}" if gz else f"the ARC record line at {nxt}"
        if nxt is not None:
            yield reader_row(path, skip_reason="read_error", source_offset=end, source_length=nxt - end,
                             source_profile="arc", error=f"unreadable ARC data ({type(failure).__name__}): skipped "
                                                         f"{nxt - end} bytes at {end}-{nxt}; reading goes on at "
                                                         f"{where}")
            fh.seek(nxt)
            end = resumed_at = nxt
            continue
        # a plain file's bytes up to its end are skipped and counted; a gzip one's may hold more than we can tell
        length = None if gz else size - end
        yield reader_row(path, skip_reason="read_error", source_offset=end, source_length=length,
                         source_profile="arc", error=one_line(failure))
        return


# An ARC record line: URL, IP address, 14-digit date, then media type ... length (v1), or more fields (v2).
_ARC_HEADER = re.compile(rb"[A-Za-z][A-Za-z0-9+.-]*:\S* \S+ \d{14} [^\r\n]*\d\r?\n")
_ARC_LINE = re.compile(rb"\n(?=" + _ARC_HEADER.pattern + rb")")


def _next_record_line(fh: IO[bytes], start: int) -> int | None:
    """The file offset of the first ARC record line that starts a line after `start`, or None."""
    fh.seek(max(start - 1, 0))
    base, buf = max(start - 1, 0), b""
    while True:
        chunk = fh.read(1 << 16)
        buf += chunk
        found = _ARC_LINE.search(buf)
        # a match must see its whole line; one cut by the chunk's end is searched again with the next chunk
        if found and (buf.find(b"\n", found.end()) >= 0 or not chunk):
            return base + found.end()
        if not chunk:
            return None
        keep = min(len(buf), 4096)
        base, buf = base + len(buf) - keep, buf[-keep:]


def _up_to(row: dict, end: int, nxt: int, plain: IO[bytes] | None, path: str) -> Iterator[dict[str, Any]]:
    """`row`, whose record ended at `end` by its length, with its length run to `nxt` (the next record, or the
    end of the file). In a plain file, bytes in between that are not blank are not the record's: warcio steps
    over a junk line after a record with a warning only, so they are a `read_error` row of their own."""
    gap = b""
    if plain is not None and 0 < nxt - end <= 1 << 20:
        pos = plain.tell()
        plain.seek(end)
        gap = plain.read(nxt - end)
        plain.seek(pos)
    if not gap.strip(PADDING):
        row["source_length"] = nxt - row["source_offset"]
        yield row
        return
    end += len(gap) - len(gap.lstrip(PADDING))
    row["source_length"] = end - row["source_offset"]
    yield row
    yield reader_row(path, skip_reason="read_error", source_offset=end, source_length=nxt - end, source_profile="arc",
                     error=f"bytes between ARC records that hold no record: skipped {nxt - end} bytes at {end}-{nxt}")


def _peek(fh: IO[bytes], offset: int, n: int = 2) -> bytes:
    """The `n` bytes at `offset`, the file position kept (warcio reads on from it)."""
    pos = fh.tell()
    fh.seek(offset)
    head = fh.read(n)
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
    if keeps_body(row):
        expected = getattr(rec.raw_stream, "limit", None)
        raw = rec.raw_stream.read(cap + 1)
        add_body(row, raw, expected is not None and len(raw) < expected, cap, pairs)
    return row
