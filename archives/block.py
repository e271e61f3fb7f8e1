"""Lenient parsing of header lines and of the HTTP header at the start of a WARC block."""

from __future__ import annotations

import re

from pagesieve.archives.rows import text

__all__ = ["parse_header_lines", "split_http"]

_HTTP_END = re.compile(rb"\r?\n\r?\n")
# WHATWG URL parsing removes ASCII tab and newline from a URL, so a URL broken over raw lines is
# joined without a space; any other value broken over lines is folded with one space.
_NO_SPACE = frozenset({"warc-target-uri", "location", "content-location"})


def parse_header_lines(raw: bytes) -> list[tuple[str, str]]:
    """`Name: value` lines (CRLF or LF) as (name, value) pairs, names and values stripped.

    ClueWeb09 (`clueweb09-en0000-00-excerpt.warc.gz` and the rest of the crawl) breaks header values
    over raw line breaks and has non-UTF-8 header bytes: a line without `:` (or one starting with a
    blank, RFC 822 folding) continues the previous value, and bytes that are not UTF-8 are read as
    Latin-1. A continuation line before any header is dropped.
    """
    pairs: list[list[str]] = []
    for line in raw.split(b"\n"):
        line = line.removesuffix(b"\r")
        if not line.strip():
            continue
        if b":" in line and line[:1] not in (b" ", b"\t"):
            name, _, value = line.partition(b":")
            pairs.append([text(name.strip()), text(value.strip())])
        elif pairs:
            joiner = "" if pairs[-1][0].lower() in _NO_SPACE else " "
            pairs[-1][1] = f"{pairs[-1][1]}{joiner}{text(line.strip())}" if pairs[-1][1] else text(line.strip())
    return [(name, value) for name, value in pairs]


def split_http(block: bytes) -> tuple[int | None, list[tuple[str, str]], int] | None:
    """(status, header pairs, payload start) of the HTTP response header opening `block`, or None.

    None when the block does not start with `HTTP/`: ClueWeb22 stores the bare HTML under
    `Content-Type: application/http; msgtype=response`. The header ends at the first blank line,
    CRLF or LF (ClueWeb09's HTTP headers are LF-only); a header without one takes the whole block.
    """
    if block[:5].upper() != b"HTTP/":
        return None
    match = _HTTP_END.search(block)
    head_end, payload = (match.start(), match.end()) if match else (len(block), len(block))
    status_line, _, rest = block[:head_end].partition(b"\n")
    parts = status_line.split(None, 2)
    status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() and len(parts[1]) == 3 else None
    return status, parse_header_lines(rest), payload
