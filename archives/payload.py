"""Undo HTTP transfer and content encodings of an archived payload, without ever corrupting it.

Archives do not agree on whether a payload is stored as sent on the wire or already decoded. Wget
(`wget-2024-sample-0000.warc.gz`) and warcio's fixture (`warcio-example-iana-chunked.warc`) keep the
chunk framing in the payload, while the 2008 Common Crawl ARC (`commoncrawl-2008-arc-sample.arc`)
stores decoded bodies yet keeps `Content-Encoding: gzip` and `Transfer-Encoding: chunked` headers.
So a header is only a hint: each step is applied only when the bytes prove it applies (valid chunk
framing, a gzip magic number, a stream the decompressor accepts), and otherwise the bytes are kept.
"""

from __future__ import annotations

import re
import zlib

import brotli

__all__ = ["decode_payload"]

# `1a2f`, `1a2f;ext=1`, with optional blanks before the line end; chunk sizes are hex (RFC 9112 7.1).
_CHUNK_SIZE = re.compile(rb"[0-9A-Fa-f]{1,16}[ \t]*(?:;[^\r\n]*)?\r?\n")
# What may follow the last chunk: trailer fields and the closing blank line (or a cut thereof).
_TRAILER = re.compile(rb"(?:[!-9;-~]+:[^\r\n]*\r?\n)*(?:\r?\n)?")
_GZIP_MAGIC = b"\x1f\x8b"
_NOT_APPLIED = "content_encoding_not_applied"
_INCOMPLETE = "content_encoding_incomplete"


def decode_payload(body: bytes, transfer_encoding: str | None, content_encoding: str | None, *,
                   max_output: int | None = None, complete: bool = True) -> tuple[bytes, str | None]:
    """Undo chunked transfer encoding and gzip/x-gzip/deflate/br content encodings.

    Never raises. A step whose header is present but whose bytes do not match it (not valid chunk
    framing, not a gzip or zlib or brotli stream) is skipped and the bytes are kept as they are.

    Args:
        body: the HTTP payload as stored in the archive.
        transfer_encoding: the `Transfer-Encoding` header value, or None.
        content_encoding: the `Content-Encoding` header value, or None.
        max_output: stop decompressing once this many bytes were produced (guards against
            decompression bombs); the caller detects an over-long body by its length.
        complete: False when the caller knows `body` was cut short (truncated record, size cap):
            chunk framing may then end inside a chunk and a compressed stream may lack its end.

    Returns:
        The decoded bytes and a short note (several joined by ";"), or None when every declared
        encoding was undone or none was declared. Notes: `transfer_encoding_not_applied`,
        `content_encoding_not_applied`, `content_encoding_incomplete`,
        `unknown_content_encoding:<name>`.
    """
    notes: list[str] = []
    try:
        data = body
        codings = _codings(transfer_encoding)
        if codings and codings[-1] == "chunked":
            codings.pop()
            dechunked = _dechunk(data, complete)
            if dechunked is None:
                notes.append("transfer_encoding_not_applied")
            else:
                data = dechunked
        # Codings are listed in the order they were applied, so they are undone from the last one.
        # A transfer coding other than chunked (rare) is a compression and is undone the same way.
        for coding in reversed(_codings(content_encoding) + codings):
            decoded, note = _decompress(data, coding, max_output, complete)
            if note:
                notes.append(note)
            if decoded is None:
                break  # an outer layer failed: the inner ones cannot apply either
            data = decoded
        return data, ";".join(notes) or None
    except Exception as exc:  # never raise: a reader must keep going whatever the payload holds
        return body, f"decode_failed:{type(exc).__name__}"


def _codings(header: str | None) -> list[str]:
    """The codings of an encoding header, lower-cased, without `identity`."""
    if not header:
        return []
    return [c.strip().lower() for c in header.split(",") if c.strip() and c.strip().lower() != "identity"]


def _dechunk(data: bytes, complete: bool) -> bytes | None:
    """The de-chunked bytes, or None when `data` is not valid chunk framing."""
    out: list[bytes] = []
    pos, end = 0, len(data)
    while True:
        match = _CHUNK_SIZE.match(data, pos)
        if match is None:
            # A cut body may end inside a size line; anything else is not chunked.
            return b"".join(out) if (not complete and out and pos >= end - 18) else None
        size = int(match.group().split(b";")[0].strip(), 16)
        pos = match.end()
        if size == 0:  # the last chunk; only trailers may follow ("0\r\nfoo" is not chunked)
            return b"".join(out) if _TRAILER.fullmatch(data, pos) else None
        if pos + size > end:
            # The body stops inside a chunk: fine for a cut body once one chunk was complete,
            # which keeps a decoded body that merely starts with a hex word ("cafe\r\n") intact.
            return b"".join([*out, data[pos:]]) if (not complete and out) else None
        out.append(data[pos:pos + size])
        pos += size
        if data.startswith(b"\r\n", pos):
            pos += 2
        elif data.startswith(b"\n", pos):
            pos += 1
        elif not (not complete and pos == end):
            return None


def _decompress(data: bytes, coding: str, max_output: int | None,
                complete: bool) -> tuple[bytes | None, str | None]:
    """One decoding step: (bytes, or None when it does not apply; note or None)."""
    limit = max_output or 0
    if coding in ("gzip", "x-gzip"):
        if not data.startswith(_GZIP_MAGIC):
            return None, _NOT_APPLIED
        return _inflate(data, 31, limit, complete)
    if coding == "deflate":
        # RFC 9110 means zlib-wrapped, but many servers send raw deflate; try both.
        decoded, note = _inflate(data, 15, limit, complete)
        return (decoded, note) if decoded is not None else _inflate(data, -15, limit, complete)
    if coding == "br":
        return _unbrotli(data, limit, complete)
    return None, f"unknown_content_encoding:{coding[:40]}"


def _inflate(data: bytes, wbits: int, limit: int, complete: bool) -> tuple[bytes | None, str | None]:
    """Inflate gzip (31, members concatenated), zlib (15) or raw deflate (-15) data."""
    parts: list[bytes] = []
    total = 0
    while True:
        dec = zlib.decompressobj(wbits)
        try:
            out = dec.decompress(data, limit - total if limit else 0)
        except zlib.error:
            # zlib throws away the output of a failing call, so what came before is a clean prefix.
            return (b"".join(parts), _INCOMPLETE) if parts else (None, _NOT_APPLIED)
        parts.append(out)
        total += len(out)
        if not dec.eof:
            if wbits < 0 or not total:
                # Raw deflate has no header or checksum: plain text can inflate to garbage for a
                # while, so only a stream that ends cleanly proves the body really was deflated.
                return None, _NOT_APPLIED
            if limit and total >= limit:
                return b"".join(parts), None
            # No end of stream: a cut record. The output is a correct prefix, so keep it.
            return b"".join(parts), (_INCOMPLETE if complete else None)
        rest = dec.unused_data
        if wbits == 31 and rest.startswith(_GZIP_MAGIC) and not (limit and total >= limit):
            data = rest  # gzip allows several members; they decode to one concatenated body
            continue
        if wbits < 0 and rest.strip():
            return None, _NOT_APPLIED
        return b"".join(parts), None


def _unbrotli(data: bytes, limit: int, complete: bool) -> tuple[bytes | None, str | None]:
    """Brotli has no magic number or checksum, so only a stream that ends cleanly counts as brotli."""
    dec = brotli.Decompressor()
    try:
        out = dec.process(data, output_buffer_limit=limit) if limit else dec.process(data)
    except brotli.error:
        return None, _NOT_APPLIED
    if dec.is_finished() or (out and ((limit and len(out) >= limit) or not complete)):
        return out, None
    return None, _NOT_APPLIED
