"""A gunzipping stream over concatenated gzip members that remembers where each member lies, and
steps over damage: bytes that are not gzip, or a member that does not decompress, are skipped up to
the next gzip member that decompresses to a record line (issue 22)."""

from __future__ import annotations

import collections
import io
import re
import zlib
from collections.abc import Iterator
from typing import IO, Any, NamedTuple

__all__ = ["GZIP_MAGIC", "PADDING", "GzipMembers", "Piece", "Skip", "find_member", "iter_members"]

GZIP_MAGIC = b"\x1f\x8b"
_MEMBER = GZIP_MAGIC + b"\x08"  # magic plus deflate, the only method gzip defines: fewer false starts
_PROBE = 1 << 16  # compressed bytes tried per candidate member
# What a member holding a record starts with: a WARC version line, or an ARC record line (`url ip date`).
_RECORD_START = re.compile(rb"[\r\n]*(WARC/\d+\.\d+\r?\n|[a-z][a-z0-9+.-]*:\S* \S+ \d{14} )")
PADDING = b"\0\r\n\t "
# [decompressed offset where the damage starts, file start, file end, message or None for mere padding,
#  decompressed offset where it ends]: output in between came from a broken member (suspect).
Skip = list


class GzipMembers(io.RawIOBase):
    """Gunzips concatenated gzip members for FastWARC and maps where each member starts and ends.

    Not left to FastWARC: on a whole-file gzip (ClueWeb09/12 excerpts) its `stream_pos` is where its
    read buffer was (20717 for records 1-7 of ClueWeb09), not a record offset; and at a cut or
    unparsable member it just stops, with no exception, so lost records would go uncounted. FastWARC
    reads this stream instead, reports decompressed offsets, and the map turns those back into
    member offsets (`manifest.jsonl`'s gzip_member_offset) and shows members no record came from.
    A cut member ends the stream quietly (`web-2016-single-record-truncated.warc.gz`).
    A member is [decompressed start, file start, file end, decompressed end, cut].

    Damage does not end the stream (issue 22): junk between members, or a member that zlib cannot
    decompress, is skipped up to the next gzip header whose member decompresses to a record line, and
    the skipped file range is listed in `skips` (`Skip`) with where the gap falls in the output. What
    a broken member gave out before its error stays in the output: the reader cuts its record there.
    Members, skips and a cut tile the file, which is how the reader accounts for every byte.
    """

    def __init__(self, raw: IO[bytes], *, file_offset: int = 0, produced: int = 0) -> None:
        """Read `raw` from where it stands: `file_offset` is that position in the file and `produced`
        the decompressed offset it stands for (a reader restarted at a record's gzip member)."""
        self._raw, self._in, self._in_off, self._dec = raw, b"", file_offset, None
        self._out, self._pos, self.produced, self.done = bytearray(), produced, produced, False
        self.members: collections.deque[list] = collections.deque()  # not yet matched to a record
        self._member: list = []  # the member being decompressed (may already be matched)
        self.problem: tuple[int, str] | None = None  # kept for callers: damage is now in `skips`
        self.skips: list[Skip] = []
        self.start, self._eof = file_offset, False
        self.member_bytes = self.skipped_bytes = 0  # file bytes in members read, and skipped

    def readable(self) -> bool:
        return True

    def tell(self) -> int:  # FastWARC asks once, at the start
        return self._pos

    def readinto(self, buf: Any) -> int:
        while not self._out and not self.done:
            self._fill()
        n = min(len(buf), len(self._out))
        buf[:n] = self._out[:n]
        del self._out[:n]
        self._pos += n
        return n

    def skip_to(self, target: int) -> None:
        """Decompress and drop data up to the decompressed offset `target` (or the end)."""
        while self._pos < target:
            if not self._out:
                if self.done:
                    return
                self._fill()
                continue
            n = min(len(self._out), target - self._pos)
            del self._out[:n]
            self._pos += n

    def drain(self) -> None:
        while not self.done:
            self._fill()
            self._out.clear()

    def member_at(self, u: int) -> list | None:
        while self.members and self.members[0][0] < u:
            self.members.popleft()
        return self.members[0] if self.members and self.members[0][0] == u else None

    def _read(self) -> bytes:
        chunk = self._raw.read(1 << 16)
        self._eof = not chunk
        return chunk

    def _fill(self) -> None:
        if len(self._in) < 2:
            self._in += self._read()
        if self._dec is None:
            if not self._in.startswith(GZIP_MAGIC):
                self._skip(self._in_off, "bytes that are not gzip")
                return
            self._dec, self._member = zlib.decompressobj(31), [self.produced, self._in_off, None, None, False]
            self.members.append(self._member)
        if not self._in:  # the file ends inside a member: a cut file
            self._member[2:] = [self._in_off, self.produced, True]
            self.member_bytes += self._in_off - self._member[1]
            self.done = True
            return
        try:
            out = self._dec.decompress(self._in)
        except zlib.error as exc:
            # its output so far stays given out; the member is re-scanned from its second byte
            self._member[2:] = [None, self.produced, False]
            if self.members and self.members[-1] is self._member and self._member[0] == self.produced:
                self.members.pop()  # it gave nothing: the next member starts at the same output offset
            self._dec = None
            self._rewind(self._member[1] + 1)
            # zlib often finds the damage only at the member's CRC: all it gave out is suspect
            self._skip(self._member[1], f"corrupt gzip member ({exc})", lead=self._member[1] + 1,
                       suspect=self._member[0])
            return
        self._in_off += len(self._in) - len(self._dec.unused_data)
        self._in = self._dec.unused_data if self._dec.eof else b""
        self._out += out
        self.produced += len(out)
        if self._dec.eof:
            self._member[2:4], self._dec = [self._in_off, self.produced], None
            self.member_bytes += self._in_off - self._member[1]

    def _rewind(self, offset: int) -> None:
        """Go back to file offset `offset`: seek when the file can, else keep the bytes still buffered."""
        if self._in_off <= offset:
            self._in, self._in_off = self._in[offset - self._in_off:], offset
            return
        try:
            self._raw.seek(offset)
            self._in, self._in_off, self._eof = b"", offset, False
        except (OSError, ValueError):  # a stream that cannot seek: search on from what is buffered
            pass

    def _skip(self, start: int, why: str, lead: int | None = None, suspect: int | None = None) -> None:
        """Skip from file offset `start` to the next member that holds a record (or the end), searching
        from `lead` (default `start`); listed in `skips`, padding at the end without a message. `suspect`:
        where the output of the broken member began (default: it gave none)."""
        at = suspect if suspect is not None else self.produced
        pos = lead if lead is not None else start
        only_padding = not why.startswith("corrupt")
        while True:
            i = self._in.find(_MEMBER, max(pos - self._in_off, 0))
            if i < 0:
                # searched: drop all but the last 2 bytes (a header may straddle the next chunk)
                gone = max(len(self._in) - 2, 0)
                only_padding = only_padding and not self._in[max(start - self._in_off, 0):gone].strip(PADDING)
                self._in, self._in_off = self._in[gone:], self._in_off + gone
                if self._eof or not self._more():
                    end = self._in_off + len(self._in)
                    only_padding = only_padding and not self._in.strip(PADDING)
                    message = None if only_padding else (
                        f"{why}: skipped {end - start} bytes at {start}-{end}; no gzip member holding a record "
                        "follows")
                    if end > start or message:
                        self.skips.append([at, start, end, message, self.produced])
                        self.skipped_bytes += end - start
                    self._in, self._in_off, self.done = b"", end, True
                    return
                continue
            while len(self._in) - i < _PROBE and not self._eof and self._more():
                pass
            if _holds_record(self._in[i:i + _PROBE]):
                nxt = self._in_off + i
                self.skips.append([at, start, nxt, f"{why}: skipped {nxt - start} bytes at {start}-{nxt}; "
                                                   f"reading goes on at the gzip member at {nxt}", self.produced])
                self.skipped_bytes += nxt - start
                self._in, self._in_off = self._in[i:], nxt
                return
            pos = self._in_off + i + 1

    def _more(self) -> bool:
        """Read one more chunk onto the input; False at the end of the file."""
        chunk = self._read()
        self._in += chunk
        return bool(chunk)


def find_member(raw: IO[bytes], start: int) -> int | None:
    """The file offset of the first gzip member at or after `start` whose data opens with a record line
    (WARC or ARC), or None; `raw` is left positioned anywhere."""
    raw.seek(start)
    buf, base = b"", start
    while True:
        chunk = raw.read(1 << 16)
        buf += chunk
        i = buf.find(_MEMBER)
        while i >= 0:
            while len(buf) - i < _PROBE and chunk:
                chunk = raw.read(1 << 16)
                buf += chunk
            if _holds_record(buf[i:i + _PROBE]):
                return base + i
            i = buf.find(_MEMBER, i + 1)
        if not chunk:
            return None
        base += len(buf) - 2
        buf = buf[-2:]


def _holds_record(data: bytes) -> bool:
    """Whether `data` opens a gzip member whose first bytes are a WARC or ARC record line."""
    try:
        out = zlib.decompressobj(31).decompress(data, 256)
    except zlib.error:
        return False
    return _RECORD_START.match(out) is not None



class Piece(NamedTuple):
    """A stretch of a gzip file: a whole `member`, a member the file ends inside (`cut`), or bytes
    skipped to the next member holding a record (`skip`; `note` says why, None for mere padding)."""

    kind: str
    start: int
    end: int
    data: bytes = b""
    note: str | None = None


def iter_members(raw: IO[bytes], start: int, size: int, keep: int) -> Iterator[Piece]:
    """The members of a gzip file from file offset `start` on, each decompressed on its own, and the
    damage between them, as `Piece`s that tile the file from `start` to `size`.

    A member's data is its first `keep` decompressed bytes; the rest is decompressed and dropped, so
    that zlib reaches the trailer and checks the member's CRC (warcio does not, and reads on past a
    corrupt member into the next one). A member zlib rejects, or bytes that are not gzip, are
    skipped to the next member whose data opens with a record line (`find_member`).
    """
    pos = start
    raw.seek(pos)
    buf = raw.read(1 << 16)
    while pos < size:
        if len(buf) < len(_MEMBER):
            buf += raw.read(1 << 16)
        piece = _member(raw, pos, buf, keep) if buf.startswith(_MEMBER) else None
        if piece is None or isinstance(piece, str):
            piece = _skipped(raw, pos, size, piece or "bytes that are not gzip")
            raw.seek(piece.end)
            buf = raw.read(1 << 16)
        else:
            piece, buf = piece
        yield piece
        pos = piece.end


def _member(raw: IO[bytes], pos: int, buf: bytes, keep: int) -> tuple[Piece, bytes] | str:
    """The member at file offset `pos` (its first bytes in `buf`) and the bytes read after it, or why
    zlib rejected it."""
    dec, out, used = zlib.decompressobj(31), bytearray(), 0
    try:
        while buf:
            data = dec.decompress(buf)
            out += data[:max(keep - len(out), 0)]
            used += len(buf) - len(dec.unused_data)
            if dec.eof:
                return Piece("member", pos, pos + used, bytes(out)), dec.unused_data
            buf = raw.read(1 << 16)
    except zlib.error as exc:
        return f"corrupt gzip member ({exc})"
    return Piece("cut", pos, pos + used, bytes(out)), b""


def _skipped(raw: IO[bytes], pos: int, size: int, why: str) -> Piece:
    """The skip from `pos` to the next member holding a record (searched from `pos + 1`), or to the end."""
    nxt = find_member(raw, pos + 1)
    end = size if nxt is None else nxt
    if end - pos <= 1 << 20 and not why.startswith("corrupt"):
        raw.seek(pos)
        if not raw.read(end - pos).strip(PADDING):
            return Piece("skip", pos, end)  # padding between or after members: no damage
    goes_on = f"reading goes on at the gzip member at {nxt}" if nxt is not None else (
        "no gzip member holding a record follows")
    return Piece("skip", pos, end, note=f"{why}: skipped {end - pos} bytes at {pos}-{end}; {goes_on}")
