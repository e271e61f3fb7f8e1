"""A lenient, streaming WARC parser in pure Python that resynchronises instead of giving up.

Used for the ClueWeb09 and ClueWeb22 profiles, and where FastWARC stops early or raises. It reads
the (decompressed) stream in 1 MiB chunks and keeps at most `keep` bytes of a block, never the file.
What it tolerates, and the file that forced it:

- any `WARC/x.y` version line, LF-only line ends, header values broken over raw lines, non-UTF-8
  header bytes (`clueweb09-en0000-00-excerpt.warc.gz`; see `parse_header_lines`);
- a record separator missing or counted inside Content-Length (the same file);
- no Content-Length: the block runs to the next version line (ClueWeb22's first warcinfo record);
- a wrong Content-Length. After the declared block the next version line is expected (after blank
  lines). If it is not there, a version line at a line start inside the block means the length was
  too long: the block is cut there. Otherwise it was too short: the block runs on to the next
  version line found after it. Either way the record gets a `resynced: ...` note and only that one
  boundary is lost, never the records after it.

A version line only counts when the next line looks like a header (`Name:`), so a page that merely
mentions "WARC/1.0" on a line of its own does not split a record.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO

from pagesieve.archives.block import parse_header_lines
from pagesieve.archives.buffer import OVERLAP, StreamBuffer

__all__ = ["Damage", "RawRecord", "iter_lenient"]

_LOOK = 256  # bytes read past a declared block end to see what follows it
_MAX_HEADER = 1 << 20  # a header block longer than this is damage, not a header
_MAX_AHEAD = 64 << 20  # a version line this far before the declared end: the length is wrong
_HEADER_END = re.compile(rb"\n\r?\n")
_VERSION_IN = re.compile(rb"\nWARC/\d+\.\d+\r?\n")
_Ending = tuple[int, int | None, str | None, bool, int | None]


@dataclass
class RawRecord:
    """One WARC record as found in the stream (offsets are positions in the decompressed stream)."""

    offset: int  # where its version line starts
    end: int  # where the next record (or unreadable data) starts; the end of the data for the last one
    version: str
    headers: list[tuple[str, str]]
    block: bytes  # at most `keep` bytes of the block
    declared: int | None  # its Content-Length, None when missing or not a number
    note: str | None = None  # why the declared length was not used
    truncated: bool = False  # the data ends before the declared block does
    block_size: int = 0  # bytes of block found (may exceed len(block))

    def get(self, name: str) -> str | None:
        """The first value of a WARC header (any case), or None."""
        name = name.lower()
        return next((v for k, v in self.headers if k.lower() == name), None)


@dataclass
class Damage:
    """Bytes in [offset, end) that hold no readable record."""

    offset: int
    end: int
    message: str


def iter_lenient(raw: IO[bytes], base: int = 0, *, keep: int = 32 << 20) -> Iterator[RawRecord | Damage]:
    """Parse WARC records from a decompressed byte stream, resynchronising on damaged framing.

    Args:
        raw: the stream, read with `read(n)` from where it stands.
        base: the stream offset that position stands for (offsets in the results count from it).
        keep: the most block bytes kept per record (the body cap plus room for an HTTP header).

    Returns:
        Records and damaged spans in stream order; they tile the stream from the first record (or
        damage) on: each item's `end` is the next one's `offset`.
    """
    buf = StreamBuffer(raw, base)
    u: int | None = buf.skip_blank(base)
    if not buf.version_at(u):
        found = buf.find(u)
        if found is None:
            if buf.end > u:
                yield Damage(base, buf.end, f"no WARC record found in {buf.end - base} bytes")
            return
        yield Damage(base, found, f"no WARC record in the {found - base} bytes at {base}-{found}; "
                                  f"next record at {found}")
        u = found
    while u is not None:
        items, u = _parse_record(buf, u, keep)
        yield from items


def _parse_record(buf: StreamBuffer, u: int, keep: int) -> tuple[list[RawRecord | Damage], int | None]:
    """The record at `u` (and trailing damage, if any) and where the next record starts."""
    buf.hold = u
    buf.unpin()
    version_end = buf.version_at(u)
    assert version_end is not None  # the caller found a version line here
    version = buf.at(u, version_end).decode("ascii").strip()
    header = _header_end(buf, u, version_end)
    if isinstance(header, Damage):
        return [header], (header.end if header.end < buf.end else None)
    lines_end, bs = header
    headers = parse_header_lines(buf.at(version_end, lines_end))
    length = next((v.strip() for k, v in headers if k.lower() == "content-length"), None)
    declared = int(length) if length is not None and length.isdigit() else None
    buf.hold, buf.pin = None, (bs, bs + keep)
    be, nxt, note, truncated, trailing = _block_end(buf, bs, declared)
    end = trailing if trailing is not None else nxt if nxt is not None else buf.end
    record = RawRecord(offset=u, end=end, version=version, headers=headers, block=buf.block(bs, be, keep),
                       declared=declared, note=note, truncated=truncated, block_size=be - bs)
    buf.unpin()
    if trailing is None:
        return [record], nxt
    if nxt is not None:
        return [record, Damage(trailing, nxt, f"{nxt - trailing} bytes at {trailing}-{nxt} between two records "
                                              "hold no WARC record")], nxt
    return [record, Damage(trailing, buf.end, f"{buf.end - trailing} bytes after the last record hold no "
                                              "WARC record")], None


def _block_end(buf: StreamBuffer, bs: int, declared: int | None) -> _Ending:
    """(block end, next record, resync note, truncated, trailing junk) of the block starting at `bs`;
    next record and trailing junk (where unreadable bytes after the record start) may be None."""
    if declared is None:
        # ClueWeb22's first warcinfo has no Content-Length: the block runs to the next version line.
        nxt = buf.find(bs)
        return buf.strip_separator(bs, nxt if nxt is not None else buf.end), nxt, None, False, None
    de = bs + declared
    inside = buf.find(bs, to=de)  # a version line inside the declared block?
    if inside is not None:
        buf.hold = inside - OVERLAP  # keep it: the next record may start there
        if de - inside > _MAX_AHEAD or not buf.have(de):
            return _resynced(buf, bs, declared, inside)
    elif not buf.have(de):
        return buf.end, None, None, True, None  # the data ends inside the block: a cut file
    buf.have(de + _LOOK)
    after = buf.skip_blank(de)
    if after >= buf.end:
        return de, None, None, False, None  # the declared length was right: the last record
    if buf.version_at(after) is not None:
        return de, after, None, False, None  # the declared length was right (the usual case)
    if inside is not None:
        return _resynced(buf, bs, declared, inside)  # too long: it ran into the next record
    separated = buf.at(de, de + 4) == b"\r\n\r\n"  # read before `find` lets these bytes go
    nxt = buf.find(de)
    if nxt is None:
        return de, None, None, False, after
    if separated:
        # The separator is where the length says: the length was right and junk follows (a partial
        # upload; issue 22: 50 bytes without a newline before a response). Junk, not part of the block.
        return de, nxt, None, False, after
    return _resynced(buf, bs, declared, nxt)  # too short: the block runs on to the next version line


def _resynced(buf: StreamBuffer, bs: int, declared: int, nxt: int) -> _Ending:
    end = max(bs, buf.strip_separator(bs, nxt))
    if nxt > bs + declared:
        end = max(end, bs + declared)
    return end, nxt, f"resynced: content-length {declared} but next record at {nxt - bs}", False, None


def _header_end(buf: StreamBuffer, u: int, start: int) -> tuple[int, int] | Damage:
    """(end of the header lines, block start) of the record at `u` whose header lines start at
    `start`; a Damage from `u` when the header has no end or another version line interrupts it."""
    pos = start - 1  # the version line's own LF: "WARC/1.0\n\n" has no header lines
    while True:
        buf.floor = u
        match = _HEADER_END.search(buf.data, pos - buf.base)
        limit = buf.base + match.start() if match else buf.end
        broken = _VERSION_IN.search(buf.data, start - 1 - buf.base, limit - buf.base + 1)
        if broken:
            at = buf.base + broken.start() + 1
            if buf.version_at(at) is not None:
                return Damage(u, at, f"record header without an end; next record at {at}")
        if match:
            return buf.base + match.start() + 1, buf.base + match.end()
        if buf.eof:
            return Damage(u, buf.end, "record header cut at the end of the data")
        if buf.end - start > _MAX_HEADER:
            at = buf.find(start)
            return Damage(u, at if at is not None else buf.end, f"record header longer than {_MAX_HEADER} bytes")
        pos = max(start - 1, buf.end - 2)
        buf.have(buf.end + 1)
