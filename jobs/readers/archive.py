"""Read WARC/ARC archives and saved HTML files into reader rows (`pagesieve.schemas.READER_ROWS`).

Every record becomes exactly one row, so the ingest report can account for all input: HTML
responses are pages (`skip_reason` None); everything else carries a skip reason (its WARC type,
`non_html`, or `read_error`). A damaged file never raises: the rows read before the damage come
out, then one `read_error` row. WARC goes through FastWARC, ARC through warcio (FastWARC has no ARC
support); payloads are decoded by `decode_payload` so that both libraries behave the same.
"""

from __future__ import annotations

import collections
import hashlib
import logging
import os
import zlib
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import IO, Any

from pagesieve.jobs.readers.gzip_members import GZIP_MAGIC, GzipMembers
from pagesieve.jobs.readers.payload import decode_payload
from pagesieve.schemas import READER_ROWS

__all__ = ["HTML_MEDIA_TYPES", "iter_records", "reader_row", "one_line"]

logger = logging.getLogger(__name__)

HTML_MEDIA_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_COLUMNS = tuple(READER_ROWS.names)
_FATAL = (KeyboardInterrupt, SystemExit, GeneratorExit)  # anything else becomes a read_error row


def iter_records(path: str, *, max_body_bytes: int = 20_000_000) -> Iterator[dict[str, Any]]:
    """Yield one READER_ROWS dict per record of a WARC or ARC file (plain, gzip per record or whole).

    Args:
        path: local path or fsspec URI; kept as given in the `source` column.
        max_body_bytes: bodies longer than this are cut to it and get ingest_status `too_large`.

    Returns:
        An iterator of rows. Never raises for bad input: a missing, unreadable or damaged file
        gives the rows read before the damage plus one `read_error` row, whose source_offset is
        where the unreadable data starts when known (a gzip member, the end of the last ARC record),
        else the start of the last good record, else 0. A record whose headers were read but whose
        block is cut short is a row with ingest_status `truncated`, not a read_error (this is how
        a file cut inside a body ends). An empty file gives no row.
    """
    counts: collections.Counter[str] = collections.Counter()
    for row in _read_archive(path, max_body_bytes):
        counts[row["skip_reason"] or "page"] += 1
        yield row
    total = sum(counts.values())
    logger.info("read %s: %d records, %d pages, %d skipped %s", path, total, counts["page"],
                total - counts["page"], dict(sorted((k, v) for k, v in counts.items() if k != "page")))


def _read_archive(path: str, cap: int) -> Iterator[dict[str, Any]]:
    try:
        fh = _open(path)
        head, size = fh.read(4096), fh.seek(0, os.SEEK_END)
        fh.seek(0)
    except Exception as exc:
        yield reader_row(path, skip_reason="read_error", source_offset=0, error=one_line(exc))
        return
    with fh:
        if not head:
            return  # an empty file holds no record, so there is nothing to account for
        text = head
        if head.startswith(GZIP_MAGIC):
            try:
                text = zlib.decompressobj(31).decompress(head, 64)
            except zlib.error:
                text = b""
        # Trust the content before the name: both ARC samples start with `filedesc://`.
        if text.startswith(b"filedesc://") or (
                not text.startswith(b"WARC/") and path.lower().endswith((".arc", ".arc.gz"))):
            yield from _read_arc(path, fh, size, cap)
        else:
            yield from _read_warc(path, fh, size, cap, gz=GzipMembers(fh) if head.startswith(GZIP_MAGIC) else None)


def _open(path: str) -> IO[bytes]:
    if "://" in path and not path.startswith("file://"):
        import fsspec

        return fsspec.open(path, "rb").open()
    return open(path.removeprefix("file://"), "rb")  # noqa: SIM115 - closed by the caller's `with`


def _read_warc(path: str, fh: IO[bytes], size: int, cap: int, gz: GzipMembers | None) -> Iterator[dict]:
    from fastwarc.warc import ArchiveIterator

    ctx = {"profile": "warc"}
    pending: tuple | None = None  # (row, decompressed offset, member): its length needs the next offset
    last_u, bad_at, failure = -1, None, None
    try:
        # quirks_mode: without it FastWARC stops after the warcinfo of ClueWeb09's WARC/0.18
        # (`clueweb09-en0000-00-excerpt.warc.gz`); with it all 24 records come out.
        for rec in ArchiveIterator(gz or fh, parse_http=True, auto_decode="none", quirks_mode=True,
                                   stream_detect=gz is None):
            last_u = rec.stream_pos
            member = gz.member_at(last_u) if gz else None
            bad_at = member[1] if member else last_u  # where the damage is if reading this record fails
            row = _warc_row(rec, path, cap, ctx)
            bad_at = None
            if pending:
                yield _finish(*pending, end=last_u)
            pending = (row, last_u, member)
    except BaseException as exc:
        if isinstance(exc, _FATAL):
            raise
        failure = one_line(exc)
    end = None if failure else size
    if gz:
        try:
            if not failure:
                gz.drain()
                end = gz.produced
        except Exception as exc:  # the raw stream itself failed (a remote read, a disk error)
            failure = one_line(exc)
        # A member that starts after the last record and holds data is one FastWARC could not read
        # (a gzip WARC cut inside a record's header ends like this, without an exception).
        unparsed = [m for m in gz.members if m[0] > last_u and (m[4] or m[3] is None or m[3] > m[0])]
        if unparsed and bad_at is None:
            bad_at = unparsed[0][1]
            failure = failure or (gz.problem[1] if gz.problem and gz.problem[0] == bad_at
                                  else "gzip member holds no readable WARC record")
        elif gz.problem and not failure:
            bad_at, failure = gz.problem
    if pending:
        row = _finish(*pending, end=end)
        yield row
    if failure:
        at = bad_at if bad_at is not None else (row["source_offset"] if pending else 0)
        yield reader_row(path, skip_reason="read_error", source_offset=at, source_profile=ctx["profile"],
                   error=failure)
    elif not pending:
        yield reader_row(path, skip_reason="read_error", source_offset=0, error="no WARC record found")


def _finish(row: dict, u: int, member: list | None, end: int | None) -> dict:
    """Set offset and length: the record's gzip member when it holds just this record, else the
    decompressed range up to `end` (the next record or the end of the stream; None if unknown)."""
    if member is not None and member[2] is not None and (end is None or member[3] == end):
        row["source_offset"], row["source_length"] = member[1], member[2] - member[1]
    else:
        row["source_offset"], row["source_length"] = u, (end - u if end is not None else None)
    return row


def _warc_row(rec: Any, path: str, cap: int, ctx: dict) -> dict:
    h = rec.headers
    wtype = (h.get("WARC-Type") or "unknown").strip().lower()
    url, date = _strip_brackets(h.get("WARC-Target-URI")), h.get("WARC-Date")
    trec, cw22 = h.get("WARC-TREC-ID"), h.get("ClueWeb22-ID")
    if trec and trec.lower().startswith(("clueweb09-", "clueweb12-")):
        ctx["profile"] = trec[:9].lower()
    elif cw22:
        ctx["profile"] = "clueweb22"
    elif wtype == "warcinfo":  # ClueWeb09/12 name themselves here: "isPartOf: clueweb09-en"
        info = rec.reader.read(1 << 16).lower()
        ctx["profile"] = next((p for p in ("clueweb09", "clueweb12", "clueweb22") if p.encode() in info),
                              ctx["profile"])
    http = rec.http_headers
    pairs = [(_text(k), _text(v)) for k, v in http.items_bytes()] if http is not None else []
    # A response without an HTTP header takes the WARC Content-Type: `dns:` records (text/dns) and
    # `wayback-snapshots-nonconforming.warc.gz`, whose blocks are bare HTML typed text/html.
    media, charset = _media_type(_get(pairs, "content-type") if http is not None else h.get("Content-Type"))
    if http is None and media == "application/http":
        media = charset = None
    status = http.status_code if http is not None else None
    row = reader_row(path, page_id=trec or cw22 or h.get("WARC-Record-ID") or _hash_id(url, date), url=url,
               fetch_time=_parse_date(date), http_status=status, content_type=media, charset_hint=charset,
               source_profile=ctx["profile"], skip_reason=_skip_reason(wtype, media))
    if row["skip_reason"] is None:
        _add_body(row, rec.reader, rec.content_length, cap, pairs)
    return row


def _read_arc(path: str, fh: IO[bytes], size: int, cap: int) -> Iterator[dict]:
    from warcio.archiveiterator import ArchiveIterator

    end = resumed_at = 0  # end of the last good record; where warcio was last (re)started
    pending = None  # its length is the next record's offset minus its own (warcio's omits the "\n")
    while True:
        try:
            it = ArchiveIterator(fh, arc2warc=True)
            for rec in it:
                row = _arc_row(rec, path, cap)
                # Asked after the body was read: warcio reads the rest of the record to answer.
                row["source_offset"], row["source_length"] = it.get_record_offset(), it.get_record_length()
                end = row["source_offset"] + row["source_length"]
                if pending:
                    pending["source_length"] = row["source_offset"] - pending["source_offset"]
                    yield pending
                pending = row
            if pending:
                pending["source_length"] = size - pending["source_offset"]
                yield pending
            return
        except BaseException as exc:
            if isinstance(exc, _FATAL):
                raise
            failure = exc
        # `commoncrawl-2008-arc-sample.arc`: the filedesc length (73) already counts the blank line
        # after it, so warcio eats the next record's header line and fails on its HTTP status line.
        # Restarting warcio where the last good record ended reads the other 145 records. A restart
        # must follow progress, so real damage gives one read_error row, not a loop.
        if end > resumed_at:
            logger.warning("%s: warcio failed after offset %d (%s); restarting there", path, end,
                           one_line(failure))
            try:
                fh.seek(end)
                resumed_at = end
                continue
            except Exception as exc:
                failure = exc
        if pending:
            yield pending
        yield reader_row(path, skip_reason="read_error", source_offset=end, source_profile="arc",
                   error=one_line(failure))
        return


def _arc_row(rec: Any, path: str, cap: int) -> dict:
    url = _strip_brackets(rec.rec_headers.get_header("WARC-Target-URI"))
    date = rec.rec_headers.get_header("WARC-Date")
    http = rec.http_headers
    pairs = list(http.headers) if http is not None else []
    media, charset = _media_type(_get(pairs, "content-type"))
    if http is None and url and url.startswith("dns:"):
        media = "text/dns"  # arc2warc drops the ARC mime field; Heritrix types dns: records text/dns
    code = http.get_statuscode() if http is not None else None
    # No page_id from WARC-Record-ID: arc2warc invents a random one on every read.
    row = reader_row(path, page_id=_hash_id(url, date), url=url, fetch_time=_parse_date(date),
               http_status=int(code) if code and code.isdigit() else None, content_type=media,
               charset_hint=charset, source_profile="arc",
               skip_reason=_skip_reason(rec.rec_type or "unknown", media))
    if row["skip_reason"] is None:
        _add_body(row, rec.raw_stream, getattr(rec.raw_stream, "limit", None), cap, pairs)
    return row


def _add_body(row: dict, reader: Any, expected: int | None, cap: int, pairs: list) -> None:
    """Read, decode and cap the payload; flag `truncated` when fewer bytes than announced exist.

    `expected` is the payload length the record announces (FastWARC's content_length after the HTTP
    header was parsed); FastWARC returns what exists without complaint (web-2016: 74970 of 88038).
    """
    raw = reader.read(cap + 1)
    too_large = len(raw) > cap
    truncated = not too_large and expected is not None and len(raw) < expected
    body, note = decode_payload(raw[:cap], _get(pairs, "transfer-encoding"), _get(pairs, "content-encoding"),
                                max_output=cap + 1, complete=not (too_large or truncated))
    too_large = too_large or len(body) > cap
    row.update(body=body[:cap], http_headers=_header_dict(pairs), error=note,
               ingest_status="too_large" if too_large else "truncated" if truncated else "ok")


def _skip_reason(wtype: str, media: str | None) -> str | None:
    if wtype != "response":
        return wtype
    return None if media in HTML_MEDIA_TYPES else "non_html"


def reader_row(source: str, **values: Any) -> dict[str, Any]:
    row = dict.fromkeys(_COLUMNS)
    row["source"] = source
    row.update(values)
    return row


def one_line(exc: BaseException | str) -> str:
    text = exc if isinstance(exc, str) else f"{type(exc).__name__}: {exc}"
    return " ".join(text.split())[:200]


def _text(value: bytes | str) -> str:
    if isinstance(value, str):
        return value
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        return value.decode("latin-1")  # never fails: every byte maps to a code point


def _get(pairs: Iterable[tuple[str, str]], name: str) -> str | None:
    return next((v for k, v in pairs if k.lower() == name), None)


def _header_dict(pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Headers as recorded; a repeated name (any case) is joined with ", " under its first spelling."""
    out: dict[str, str] = {}
    first: dict[str, str] = {}
    for name, value in pairs:
        key = first.setdefault(name.lower(), name)
        out[key] = f"{out[key]}, {value}" if key in out else value
    return out


def _media_type(value: str | None) -> tuple[str | None, str | None]:
    """(media type lower-cased without parameters, charset parameter lower-cased) of a Content-Type."""
    if not value:
        return None, None
    media, *params = value.split(";")
    charset = next((p.split("=", 1)[1].strip().strip("\"'").lower() or None for p in params
                    if p.strip().lower().startswith("charset=")), None)
    return media.strip().lower() or None, charset


def _strip_brackets(url: str | None) -> str | None:
    # Wget 1.21 writes `WARC-Target-URI: <https://...>` (`wget-2024-sample-0000.warc.gz`).
    url = url.strip() if url else url
    return url[1:-1] if url and url.startswith("<") and url.endswith(">") else url


def _parse_date(value: str | None) -> datetime | None:
    """WARC-Date as an aware UTC datetime; None when invalid (ClueWeb09: `2009-03-65T08:43:19-0800`)."""
    if not value:
        return None
    value = value.strip()
    try:
        if len(value) == 14 and value.isdigit():  # ARC-style 14-digit dates
            parsed = datetime.strptime(value, "%Y%m%d%H%M%S")
        else:
            parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return (parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)).astimezone(UTC)


def _hash_id(url: str | None, date: str | None) -> str:
    return hashlib.sha1(f"{url or ''}\t{date or ''}".encode()).hexdigest()

