"""A forward-only window over a byte stream, addressed by absolute stream offsets.

The lenient WARC parser (`lenient.py`) looks ahead for version lines without ever holding more than
a block prefix and a few chunks: bytes behind the scan are dropped, except those still held.
"""

from __future__ import annotations

import re
from typing import IO

__all__ = ["OVERLAP", "StreamBuffer"]

CHUNK = 1 << 20
OVERLAP = 64  # bytes kept behind a scan position (a separator, a split version line)
_VERSION = re.compile(rb"WARC/\d+\.\d+\r?\n")
# Anywhere, not only at a line start: junk without a final newline before a record (a partial upload,
# the tail of a broken gzip member) must not hide it (issue 22). A header line must still follow.
_VERSION_ANY = re.compile(rb"WARC/\d+\.\d+\r?\n")
_NAME = re.compile(rb"[!-9;-~]+:")  # a header field name and its colon (RFC 9110 token characters)
_NAME_PREFIX = re.compile(rb"[!-9;-~]*\Z")
_BLANKS = re.compile(rb"[\r\n]*")


class StreamBuffer:
    """Bytes [base, end) of a stream. Reading more may drop bytes before min(floor, hold), except a
    pinned block prefix, which is copied aside first (`block` returns it either way)."""

    def __init__(self, raw: IO[bytes], base: int) -> None:
        self.raw, self.data, self.base, self.eof = raw, bytearray(), base, False
        self.floor = base  # set by scans: what they no longer need
        self.hold: int | None = None  # set by the parser: keep everything from here on
        self.pin: tuple[int, int] | None = None  # [start, stop) to keep for `block`
        self._saved: tuple[int, bytes] | None = None

    @property
    def end(self) -> int:
        return self.base + len(self.data)

    def have(self, upto: int) -> bool:
        """Read until the buffer reaches `upto` or the stream ends; True if it reached it."""
        while self.end < upto and not self.eof:
            self._more()
        return self.end >= upto

    def at(self, start: int, stop: int) -> bytes:
        """Bytes [start, stop), which must still be buffered."""
        if start < self.base:  # a bug, not bad input: the caller let these bytes go
            raise RuntimeError(f"bytes from {start} were dropped (the buffer starts at {self.base})")
        return bytes(self.data[start - self.base:stop - self.base])

    def unpin(self) -> None:
        """Forget the pinned block prefix (and its copy)."""
        self.pin = self._saved = None

    def block(self, start: int, stop: int, keep: int) -> bytes:
        """The first `keep` bytes of [start, stop), from the pinned copy if they were dropped."""
        stop = min(stop, start + keep)
        if self._saved is not None and self._saved[0] == start:
            return self._saved[1][:stop - start]
        return self.at(start, stop)

    def skip_blank(self, pos: int) -> int:
        """The first offset from `pos` on that is not CR or LF (the end of the data if none)."""
        while True:
            self.floor = pos - OVERLAP  # a separator before `pos` may still be looked at
            self.have(pos + 1)
            pos = self.base + _BLANKS.match(self.data, pos - self.base).end()
            if pos < self.end or self.eof:
                return pos

    def version_at(self, pos: int) -> int | None:
        """The end of the version line at `pos` if one starts there and a header line follows it."""
        self.have(pos + 48)
        match = _VERSION.match(self.data, pos - self.base)
        if match is None:
            return None
        return self.base + match.end() if self._header_follows(self.base + match.end()) else None

    def find(self, start: int, to: int | None = None) -> int | None:
        """The first version line (followed by a header line) in [start, to), `to` None meaning the end of
        data; it need not start a line."""
        pos = start
        while True:
            self.floor = pos - 1 - OVERLAP
            stop = self.end if to is None else min(self.end, to + 32)
            match = _VERSION_ANY.search(self.data, max(pos - self.base, 0), stop - self.base)
            if match is not None:
                found = self.base + match.start()
                if to is not None and found >= to:
                    return None
                if self._header_follows(self.base + match.end()):
                    return found
                pos = found + 1
                continue
            if self.eof or (to is not None and self.end >= to + 32):
                return None
            pos = max(pos, self.end - 32)
            self._more()

    def strip_separator(self, start: int, stop: int) -> int:
        """`stop` less the record separator before it (CRLF CRLF, CRLF or ClueWeb09's single LF)."""
        tail = self.at(max(start, stop - 4, self.base), stop)
        for sep in (b"\r\n\r\n", b"\r\n", b"\n"):
            if tail.endswith(sep):
                return stop - len(sep)
        return stop

    def _header_follows(self, pos: int) -> bool:
        self.have(pos + 256)
        if _NAME.match(self.data, pos - self.base, pos - self.base + 256):
            return True
        # A file cut inside the first header line still has a record there (whose header is cut).
        return self.eof and _NAME_PREFIX.match(self.data, pos - self.base) is not None

    def _more(self) -> None:
        if len(self.data) > 2 * CHUNK:
            self._compact()
        chunk = self.raw.read(CHUNK)
        if chunk:
            self.data += chunk
        else:
            self.eof = True

    def _compact(self) -> None:
        upto = min(self.floor, self.end - OVERLAP, self.hold if self.hold is not None else self.end)
        if self.pin is not None and upto > self.pin[0] and (self._saved is None or self._saved[0] != self.pin[0]):
            if self.pin[1] > self.end:
                upto = self.pin[0]  # its prefix is not all read yet: keep it in the buffer for now
            else:
                self._saved = (self.pin[0], self.at(*self.pin))
        if upto > self.base:
            del self.data[:upto - self.base]
            self.base = upto
