"""A gunzipping stream over concatenated gzip members that remembers where each member lies."""

from __future__ import annotations

import collections
import io
import zlib
from typing import IO, Any

__all__ = ["GZIP_MAGIC", "GzipMembers"]

GZIP_MAGIC = b"\x1f\x8b"


class GzipMembers(io.RawIOBase):
    """Gunzips concatenated gzip members for FastWARC and maps where each member starts and ends.

    Not left to FastWARC: on a whole-file gzip (ClueWeb09/12 excerpts) its `stream_pos` is where its
    read buffer was (20717 for records 1-7 of ClueWeb09), not a record offset; and at a cut or
    unparsable member it just stops, with no exception, so lost records would go uncounted. FastWARC
    reads this stream instead, reports decompressed offsets, and the map turns those back into
    member offsets (`manifest.jsonl`'s gzip_member_offset) and shows members no record came from.
    A cut member ends the stream quietly (`web-2016-single-record-truncated.warc.gz`).
    A member is [decompressed start, file start, file end, decompressed end, cut].
    """

    def __init__(self, raw: IO[bytes], *, file_offset: int = 0, produced: int = 0) -> None:
        """Read `raw` from where it stands: `file_offset` is that position in the file and `produced`
        the decompressed offset it stands for (a reader restarted at a record's gzip member)."""
        self._raw, self._in, self._in_off, self._dec = raw, b"", file_offset, None
        self._out, self._pos, self.produced, self.done = bytearray(), produced, produced, False
        self.members: collections.deque[list] = collections.deque()  # not yet matched to a record
        self._member: list = []  # the member being decompressed (may already be matched)
        self.problem: tuple[int, str] | None = None  # (file offset, message) of undecodable bytes

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

    def _fill(self) -> None:
        if len(self._in) < 2:
            self._in += self._raw.read(1 << 16)
        if self._dec is None:
            if not self._in.startswith(GZIP_MAGIC):
                if self._in.strip(b"\0\r\n\t ") or self._raw.read(1):
                    self.problem = (self._in_off, "data after the last gzip member is not gzip")
                self.done = True
                return
            self._dec, self._member = zlib.decompressobj(31), [self.produced, self._in_off, None, None, False]
            self.members.append(self._member)
        if not self._in:  # the file ends inside a member: a cut file
            self._member[2:] = [self._in_off, self.produced, True]
            self.done = True
            return
        try:
            out = self._dec.decompress(self._in)
        except zlib.error as exc:
            self.problem, self.done = (self._member[1], f"corrupt gzip member: {exc}"), True
            return
        self._in_off += len(self._in) - len(self._dec.unused_data)
        self._in = self._dec.unused_data if self._dec.eof else b""
        self._out += out
        self.produced += len(out)
        if self._dec.eof:
            self._member[2:4], self._dec = [self._in_off, self.produced], None
