"""Read WARC/ARC archives into reader rows (`pagesieve.schemas.READER_ROWS`).

Every record becomes exactly one row, so the ingest report can account for all input: HTML
responses are pages (`skip_reason` None); everything else carries a skip reason (its WARC type,
`non_html`, or `read_error`). A damaged file never raises: the rows read before the damage come
out, then a `read_error` row (and the records after it when the lenient reader finds them).

The profile (`profiles.py`) picks the reader. WARC goes through FastWARC; where FastWARC raises or
stops early, the lenient pure-Python reader (`lenient.py`) re-reads from the last record FastWARC
read whole and goes on to the end. ClueWeb09 and ClueWeb22 use the lenient reader from the start;
ARC goes through warcio (`arc.py`). Payloads are decoded by `decode_payload` in every case.

Offsets: a record alone in its gzip member gets the member's file offset and length (seekable);
otherwise (plain files, whole-file gzip) the offset is in the decompressed stream and the length
runs to the next record's offset.
"""

from __future__ import annotations

import collections
import functools
import logging
import os
from collections.abc import Generator, Iterator
from typing import IO, Any

from pagesieve.archives.arc import read_arc
from pagesieve.archives.block import split_http
from pagesieve.archives.fast_path import fast_gzip_rows
from pagesieve.archives.gzip_members import GzipMembers
from pagesieve.archives.lenient import Damage, RawRecord, iter_lenient
from pagesieve.archives.profiles import LENIENT_PROFILES, check_profile, detect_profile, sniff
from pagesieve.archives.rows import HTML_MEDIA_TYPES, add_body, keeps_body, one_line, reader_row, text, warc_row
from pagesieve.archives.source_languages import METADATA_BYTES, attach_verdicts, metadata_verdict

__all__ = ["HTML_MEDIA_TYPES", "Start", "iter_records", "open_archive", "read_warc", "reader_row", "one_line"]

logger = logging.getLogger(__name__)

_HTTP_ROOM = 1 << 20  # block bytes kept beyond the body cap, for the HTTP header
Start = tuple[int, int | None]  # (decompressed offset, file offset of its gzip member or None)


def iter_records(path: str, *, max_body_bytes: int = 20_000_000, profile: str = "auto",
                 tally: dict[str, Any] | None = None) -> Iterator[dict[str, Any]]:
    """Yield one READER_ROWS dict per record of a WARC or ARC file (plain, gzip per record or whole).

    Args:
        path: local path or fsspec URI; kept as given in the `source` column.
        max_body_bytes: bodies longer than this are cut to it and get ingest_status `too_large`.
        profile: one of `PROFILES`: `auto` detects it from the first record; any other forces it.
            Rows carry the profile used in `source_profile`.
        tally: when given, filled once the iterator is exhausted with where the file's bytes went
            (`_tally`: size, records, skipped, unaccounted; all in file bytes); left empty for a
            whole-file gzip ARC and for a file that could not be opened.

    Returns:
        An iterator of rows. Never raises for bad input: a missing, unreadable or damaged file
        gives the rows read before the damage plus a `read_error` row, whose source_offset is
        where the unreadable data starts when known (a gzip member, the end of the last ARC record,
        the damaged span in the decompressed stream), else 0. A record whose headers were read but
        whose block is cut short is a row with ingest_status `truncated`, not a read_error (this is
        how a file cut inside a body ends). A record whose Content-Length was wrong is read
        anyway, with an `error` note `resynced: ...`. An empty file gives no row. Damaged gzip data
        is skipped to the next member holding a record: a `read_error` row with the file range, and
        reading goes on (a record that lost data to it gets an `error` note `damaged: ...`).

    Raises:
        ValueError: `profile` is not one of PROFILES (before anything is read).
    """
    check_profile(profile)
    return _counted(path, max_body_bytes, profile, tally)


def _counted(path: str, cap: int, profile: str, tally: dict[str, Any] | None) -> Iterator[dict[str, Any]]:
    counts: collections.Counter[str] = collections.Counter()
    used, resynced = profile, 0
    for row in attach_verdicts(_read_archive(path, cap, profile, tally)):
        counts[row["skip_reason"] or "page"] += 1
        used = row["source_profile"] or used
        resynced += (row["error"] or "").startswith("resynced")
        yield row
    total = sum(counts.values())
    logger.info("read %s (%s): %d records, %d pages, %d skipped %s, %d resynced", path, used, total,
                counts["page"], total - counts["page"],
                dict(sorted((k, v) for k, v in counts.items() if k != "page")), resynced)


def open_archive(path: str) -> IO[bytes]:
    """Open a local path, `file://` URI or fsspec URI for binary reading."""
    if "://" in path and not path.startswith("file://"):
        import fsspec

        return fsspec.open(path, "rb").open()
    return open(path.removeprefix("file://"), "rb")  # noqa: SIM115 - closed by the caller's `with`


def _read_archive(path: str, cap: int, profile: str, tally: dict[str, Any] | None) -> Iterator[dict[str, Any]]:
    try:
        fh = open_archive(path)
        size = fh.seek(0, os.SEEK_END)
        fh.seek(0)
        gz, head = sniff(fh)
    except Exception as exc:
        yield reader_row(path, skip_reason="read_error", source_offset=0, error=one_line(exc),
                         source_profile=None if profile == "auto" else profile)
        return
    with fh:
        if not size:
            if tally is not None:
                tally.update(size=0, records=0, skipped=0, unaccounted=0)
            return  # an empty file holds no record, so there is nothing to account for
        used = detect_profile(head, path) if profile == "auto" else profile
        if used == "arc":
            yield from read_arc(path, fh, size, cap, tally=tally)
        else:
            yield from read_warc(path, fh, gz, size, cap, used, tally=tally)


def read_warc(path: str, fh: IO[bytes], gz: bool, size: int, cap: int, profile: str, *,
              start: Start = (0, 0), tally: dict[str, Any] | None = None) -> Iterator[dict[str, Any]]:
    """Rows of the WARC records of `fh` from `start` on: the fast path for a local, well-formed file with a
    gzip member per record (`fast_path.py`), else (or from where it stopped) `read_warc_carefully`.

    Args and returns: as `read_warc_carefully`.
    """
    local = "://" not in path or path.startswith("file://")
    if not (gz and local and start == (0, 0) and profile not in LENIENT_PROFILES):
        yield from read_warc_carefully(path, fh, gz, size, cap, profile, start=start, tally=tally)
        return
    resume = yield from fast_gzip_rows(path.removeprefix("file://"), fh, size,
                                       lambda rec: _fastwarc_row(rec, path, cap, profile))
    if resume is None:
        if tally is not None:
            tally.update(size=size, records=size, skipped=0, skipped_decompressed=0, unaccounted=0)
        return
    # Read again from the start (the byte accounting needs the whole file): rows before `resume` were given.
    logger.debug("%s: not one well-formed gzip member per record from offset %d on; read carefully", path, resume)
    fh.seek(0)
    prefix = resume > 0
    for row in read_warc_carefully(path, fh, gz, size, cap, profile, tally=tally):
        if prefix and row["skip_reason"] != "read_error":
            prefix = (row["source_offset"] or 0) < resume
            if prefix:
                continue
        yield row


def read_warc_carefully(path: str, fh: IO[bytes], gz: bool, size: int, cap: int, profile: str, *,
                        start: Start = (0, 0), tally: dict[str, Any] | None = None) -> Iterator[dict[str, Any]]:
    """Rows of the WARC records of `fh` from `start` on, FastWARC first unless the profile is lenient.

    Args:
        path: the archive, kept in `source`.
        fh: the open file.
        gz: whether it is gzip-compressed.
        size: its size in bytes.
        cap: the body cap.
        profile: the profile used (not `auto`).
        start: (decompressed offset, file offset of a gzip member starting there, or None).
        tally: filled with `_tally` at the end when reading from the start of the file.

    Returns:
        Rows in file order; see `iter_records`.
    """
    chain = _Chain(start, path, profile)
    failure, end = None, size
    try:
        stream = chain.open(fh, gz, start)
        resume: Start | None = start
        if profile not in LENIENT_PROFILES:
            resume = yield from _fastwarc_rows(path, stream, chain, cap, profile)
            if resume is not None:
                logger.warning("%s: FastWARC stopped at offset %d; the lenient reader goes on", path, resume[0])
                stream = chain.open(fh, gz, resume)
        if resume is not None:
            for item in iter_lenient(stream, resume[0], keep=cap + 1 + _HTTP_ROOM):
                yield from chain.push(_lenient_row(item, path, cap, profile), item.offset)
        if chain.members is not None:
            chain.members.drain()
            end = chain.members.produced
    except Exception as exc:  # the raw stream itself failed (a remote read, a disk error)
        failure, end = one_line(exc), None
    yield from chain.flush(end)
    problem = chain.members.problem if chain.members is not None else None
    if chain.members is not None and not (problem or failure):
        # `test_gzip_warc_cut_in_the_header_of_its_third_record`: a member cut before it gave a byte.
        cut = next((m for m in chain.members.members if m[0] > chain.last_u and m[4]), None)
        problem = (cut[1], "the file ends inside a gzip member that holds no whole WARC record") if cut else None
    if problem or failure:
        at, message = problem or (chain.last_offset, failure or "")
        yield reader_row(path, skip_reason="read_error", source_offset=at, source_profile=profile, error=message)
    elif not chain.count and not chain.reported:
        at = start[1] or start[0]
        chain.lost = (end if end is not None else size) - at - chain.covered
        yield reader_row(path, skip_reason="read_error", source_offset=at, source_length=chain.lost,
                         source_profile=profile, error="no WARC record found")
    if tally is not None and start == (0, 0):
        tally.update(_tally(chain, size, end, failure is not None))


def _fastwarc_rows(path: str, stream: IO[bytes], chain: _Chain, cap: int,
                   profile: str) -> Generator[dict, None, Start | None]:
    """Rows from FastWARC; returns where the lenient reader must take over, or None when done.

    quirks_mode stays off: with it, FastWARC silently skips unparsable bytes, folds a too-short
    Content-Length's leftovers away and lets a too-long one swallow the records after it. Without
    it, it raises instead (or yields a record without Content-Length: LF-only headers, a header
    cut by the end of the file), and the lenient reader re-reads from there with resync notes.
    """
    from fastwarc.warc import ArchiveIterator

    try:
        for rec in ArchiveIterator(stream, parse_http=True, auto_decode="none", quirks_mode=False,
                                   stream_detect=chain.members is None):
            u = rec.stream_pos
            if chain.damaged_before(u):
                return chain.take_back()  # the record before crossed skipped gzip data: the lenient reader cuts it
            length = rec.headers.get("Content-Length")
            if length is None or not length.strip().isdigit():
                return chain.start_at(u)  # a header FastWARC misread (LF-only, cut, no length)
            row, complete = _fastwarc_row(rec, path, cap, profile)
            if not complete:
                return chain.start_at(u)  # the data ends inside its block: too long a length, or a cut
            yield from chain.push(row, u)
    except Exception as exc:
        # A wrong Content-Length shows at the next header, so the last record is read again.
        logger.warning("%s: FastWARC failed (%s)", path, one_line(exc))
        return chain.take_back()
    members = chain.members
    if members is not None:
        members.drain()
        # A member after the last record that holds data: FastWARC stopped early without a word.
        if any(m[0] > chain.last_u and (m[4] or m[3] is None or m[3] > m[0]) for m in members.members):
            return chain.take_back()
    return None


def _fastwarc_row(rec: Any, path: str, cap: int, profile: str) -> tuple[dict, bool]:
    """(row, whether the record's block is all there)."""
    http = rec.http_headers
    pairs = _decoded_pairs(http.items_bytes()) if http is not None else []
    # One dict per record: a lookup into FastWARC per header name cost three times as much (about 6 of the
    # reader's 22 microseconds per record). Names are case-insensitive and the first of a repeated one wins,
    # as FastWARC's own lookup.
    headers = {name.lower(): value for name, value in reversed(rec.headers.items_bytes())}

    def get(name: str) -> str | None:  # decoded as the lenient reader does (FastWARC would put U+FFFD)
        value = headers.get(_header_key(name))
        return None if value is None else text(value)

    row = warc_row(path, get, (http.status_code, pairs) if http is not None else None, profile)
    with_body, metadata = keeps_body(row), row["skip_reason"] == "metadata"
    raw = rec.reader.read(cap + 1 if with_body else METADATA_BYTES) if with_body or metadata else b""
    # FastWARC returns what exists without complaint (web-2016: 74970 of 88038 payload bytes).
    complete = len(raw) + rec.consume() >= rec.content_length
    if with_body:
        add_body(row, raw, not complete, cap, pairs)
    elif metadata:
        row["source_languages"] = metadata_verdict(raw, get)
    return row, complete


@functools.cache
def _header_key(name: str) -> bytes:
    return name.lower().encode()


def _tally(chain: _Chain, size: int, end: int | None, failed: bool) -> dict[str, Any]:
    """Where the bytes of the file went: {size, records, skipped, unaccounted} in file bytes, plus
    `skipped_decompressed` for a gzip file (damage found inside its decompressed data).

    Plain: rows tile the file from the first record on (leading blank lines count with records).
    Gzip: members read and skipped ranges must tile the file, and rows the decompressed stream.
    `unaccounted` is None when the raw read failed (the read_error row says why).
    """
    stream_lost = (end or 0) - chain.first_u - chain.covered - chain.lost
    members = chain.members
    if members is None:
        skipped = chain.damaged + chain.lost
        unaccounted = None if failed else size - chain.first_u - chain.covered - chain.lost
        extra = {}
    else:
        skipped = sum(stop - start for start, stop in chain.skipped_ranges().items())
        gzip_lost = size - members.start - members.member_bytes - members.skipped_bytes
        unaccounted = None if failed else gzip_lost + stream_lost
        extra = {"skipped_decompressed": chain.damaged + chain.lost}
    return {"size": size, "records": size - skipped - (unaccounted or 0), "skipped": skipped, **extra,
            "unaccounted": unaccounted}


def _decoded_pairs(items: list[tuple[bytes, bytes]]) -> list[tuple[str, str]]:
    """Header pairs as `text` decodes them; one decode per byte string while all are UTF-8 (the usual case:
    calling `text` on each cost a tenth of the fast path's Python time, `scripts/bench/bench_ingest.py`)."""
    try:
        return [(k.decode(), v.decode()) for k, v in items]
    except UnicodeDecodeError:
        return [(text(k), text(v)) for k, v in items]


def _lenient_row(item: RawRecord | Damage, path: str, cap: int, profile: str) -> dict:
    if isinstance(item, Damage):
        return reader_row(path, skip_reason="read_error", source_profile=profile, error=one_line(item.message))
    content_type = (item.get("Content-Type") or "application/http").lower()
    http = split_http(item.block) if "application/http" in content_type else None
    row = warc_row(path, item.get, http[:2] if http else None, profile)
    row["error"] = item.note
    if row["skip_reason"] == "metadata":
        row["source_languages"] = metadata_verdict(item.block[:METADATA_BYTES], item.get)
    if keeps_body(row):
        payload = item.block[http[2]:] if http else item.block
        add_body(row, payload[:cap + 1], item.truncated, cap, http[1] if http else [],
                 cut=item.block_size > len(item.block))
    return row


class _Chain:
    """Rows in file order: a row's length is known once the next record's offset is. Gzip data skipped
    as damaged (`GzipMembers.skips`) becomes a `read_error` row with its file range, after the record
    before it; a record whose data runs across such a gap is marked damaged."""

    def __init__(self, start: Start, path: str, profile: str) -> None:
        self.start, self.members, self.path, self.profile = start, None, path, profile
        self.reported: set[int] = set()  # file starts of the skips given a row
        self.ranges: dict[int, int] = {}  # every skipped file range seen, {start: stop}, across reopenings
        # Byte accounting (`_tally`): stream bytes of the rows given out, of those that are damage,
        # lost to a final "no record" row, and before the first row (blank lines).
        self.covered = self.damaged = self.lost = 0
        self.first_u, self.finished = start[0], False
        self.pending: tuple[dict, int, list | None] | None = None
        self.count, self.last_u, self.last_offset = 0, -1, start[1] or start[0]

    def open(self, fh: IO[bytes], gz: bool, at: Start) -> IO[bytes]:
        """The decompressed stream positioned at `at` (slow for whole-file gzip: it decompresses
        from the start of the file to get there)."""
        u, member_offset = at
        if not gz:
            fh.seek(u)
            self.members = None
            return fh
        fh.seek(member_offset if member_offset is not None else 0)
        if member_offset is not None:
            self.members = GzipMembers(fh, file_offset=member_offset, produced=u)
        else:
            self.members = GzipMembers(fh)
            self.members.skip_to(u)
        return self.members

    def push(self, row: dict, u: int) -> Iterator[dict]:
        """Hold the row of the record at decompressed offset `u`; give out the one held before."""
        member = self.members.member_at(u) if self.members is not None else None
        if self.pending:
            yield self._done(*self.pending, end=u)
        yield from self._skipped(u)
        self.pending, self.last_u = (row, u, member), u
        self.last_offset = member[1] if member else u
        self.count += 1

    def flush(self, end: int | None) -> Iterator[dict]:
        """Give out the row held, its record ending at `end` (the end of the stream)."""
        if self.pending:
            row = self._done(*self.pending, end=end)
            self.last_offset, self.pending = row["source_offset"], None
            yield row
        yield from self._skipped(None)

    def damaged_before(self, u: int) -> bool:
        """Whether skipped gzip data falls inside the record held (which runs up to `u`)."""
        return self.pending is not None and any(_hits(s, self.last_u, u) for s in self._skips())

    def _skips(self) -> list:
        return self.members.skips if self.members is not None else []

    def skipped_ranges(self) -> dict[int, int]:
        """{file start: stop} of every gzip range skipped (padding included)."""
        return {**self.ranges, **{s[1]: s[2] for s in self._skips()}}

    def _done(self, row: dict, u: int, member: list | None, end: int | None) -> dict:
        """The held row finished; marked damaged (and a page truncated) when a skip falls inside it."""
        if not self.finished:
            self.first_u, self.finished = u, True
        if end is not None:
            self.covered += end - u
            self.damaged += end - u if row["skip_reason"] == "read_error" else 0
        lost = [s for s in self._skips() if _hits(s, u, end)]
        if lost:
            note = "damaged: gzip data lost at file bytes " + ", ".join(f"{s[1]}-{s[2]}" for s in lost)
            row["error"] = ";".join(n for n in (row["error"], note) if n)
            if row["skip_reason"] is None:
                row["ingest_status"] = "truncated"
        return _finish(row, u, member, end)

    def _skipped(self, upto: int | None) -> Iterator[dict]:
        """read_error rows of the skips not yet given one whose gap falls at or before `upto` (None: all)."""
        for at, start, stop, message, _ in self._skips():
            if message and start not in self.reported and (upto is None or at <= upto):
                self.reported.add(start)
                self.ranges[start] = stop
                yield reader_row(self.path, skip_reason="read_error", source_offset=start, source_length=stop - start,
                                 source_profile=self.profile, error=message)

    def start_at(self, u: int) -> Start:
        """Where to reopen the stream to read the record at `u` again."""
        member = self.members.member_at(u) if self.members is not None else None
        return u, member[1] if member else None

    def take_back(self) -> Start:
        """Drop the pending row and return where it starts, to read it again (else the start)."""
        if not self.pending:
            return self.start
        _, u, member = self.pending
        self.pending, self.count = None, self.count - 1
        return u, member[1] if member else None


def _hits(skip: list, u: int, end: int | None) -> bool:
    """Whether the record at [u, end) lost data to a skip or holds output of a broken member."""
    at, message, suspect_end = skip[0], skip[3], skip[4]
    return bool(message) and ((u < at and (end is None or at < end)) or at <= u < suspect_end)


def _finish(row: dict, u: int, member: list | None, end: int | None) -> dict:
    """Set offset and length: the record's gzip member when it holds just this record, else the
    decompressed range up to `end` (the next record or the end of the stream; None if unknown)."""
    if member is not None and member[2] is not None and (end is None or member[3] == end):
        row["source_offset"], row["source_length"] = member[1], member[2] - member[1]
    else:
        row["source_offset"], row["source_length"] = u, (end - u if end is not None else None)
    return row
