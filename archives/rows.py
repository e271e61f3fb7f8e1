"""Building reader rows (`pagesieve.schemas.READER_ROWS`) from parsed record headers and payloads.

Shared by the FastWARC path, the lenient WARC reader and the ARC reader, so that every reader fills
the columns the same way whatever library parsed the record.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import Any

from pagesieve.archives.payload import decode_payload
from pagesieve.models.page.errors import one_line
from pagesieve.schemas import READER_ROWS

__all__ = ["HTML_MEDIA_TYPES", "RESOURCE_MEDIA_TYPES", "add_body", "keeps_body", "header_dict",
           "get_header", "hash_id", "media_type", "one_line",
           "parse_date", "reader_row", "skip_reason", "strip_brackets", "text", "warc_row"]

HTML_MEDIA_TYPES = frozenset({"text/html", "application/xhtml+xml"})
# Sub-resources whose bodies are kept beside the pages (`_resources/`), for a renderer to lay pages out as
# archived (VIPS): stylesheets only. Images and fonts would multiply the output for little change to boxes.
RESOURCE_MEDIA_TYPES = frozenset({"text/css"})
_COLUMNS = tuple(READER_ROWS.names)


def reader_row(source: str, **values: Any) -> dict[str, Any]:
    """A READER_ROWS dict: every column None except `source` and the given values."""
    row = dict.fromkeys(_COLUMNS)
    row["source"] = source
    row.update(values)
    return row


def warc_row(path: str, get: Callable[[str], str | None], http: tuple[int | None, list[tuple[str, str]]] | None,
             profile: str) -> dict[str, Any]:
    """The row of one WARC record, without its body (see `add_body`).

    Args:
        path: the archive, kept in `source`.
        get: the WARC header lookup (name -> value or None).
        http: (status, header pairs) of the HTTP header at the start of the block, or None if none.
        profile: the source profile used to read the file.

    Returns:
        The row; `skip_reason` None means a page whose body is still to be added.
    """
    wtype = (get("WARC-Type") or "unknown").strip().lower()
    url, date = strip_brackets(get("WARC-Target-URI")), get("WARC-Date")
    trec, cw22 = get("WARC-TREC-ID"), get("ClueWeb22-ID")
    if http is not None:
        media, charset = media_type(get_header(http[1], "content-type"))
    elif profile == "clueweb22" and wtype == "response":
        # ClueWeb22 (docs/archives.md, "Profiles"): typed application/http, yet the block is bare HTML.
        media, charset = "text/html", None
    else:
        # A response without an HTTP header takes the WARC Content-Type: `dns:` records (text/dns) and
        # `wayback-snapshots-nonconforming.warc.gz`, whose blocks are bare HTML typed text/html.
        media, charset = media_type(get("Content-Type"))
        if media == "application/http":
            media = charset = None
    return reader_row(path, page_id=trec or cw22 or get("WARC-Record-ID") or hash_id(url, date), url=url,
                      fetch_time=parse_date(date), http_status=http[0] if http is not None else None,
                      content_type=media, charset_hint=charset, source_profile=profile,
                      skip_reason=skip_reason(wtype, media))


def add_body(row: dict, raw: bytes, truncated: bool, cap: int, pairs: list[tuple[str, str]], *,
             cut: bool = False) -> None:
    """Decode and cap the payload and set body, http_headers, error and ingest_status.

    Args:
        row: the row to fill.
        raw: up to `cap + 1` payload bytes as stored (a longer payload means `too_large`).
        truncated: the record announced more payload than the archive holds (a cut file).
        cap: the body cap (max_body_bytes).
        pairs: the HTTP header pairs (encodings are taken from them).
        cut: the reader kept only part of a longer payload (also `too_large`).
    """
    too_large = len(raw) > cap or cut
    truncated = truncated and not too_large
    body, note = decode_payload(raw[:cap], get_header(pairs, "transfer-encoding"),
                                get_header(pairs, "content-encoding"), max_output=cap + 1,
                                complete=not (too_large or truncated))
    too_large = too_large or len(body) > cap
    notes = ";".join(n for n in (row.get("error"), note) if n) or None  # keeps a resync note
    row.update(body=body[:cap], http_headers=header_dict(pairs), error=notes,
               ingest_status="too_large" if too_large else "truncated" if truncated else "ok")


def keeps_body(row: dict) -> bool:
    """Whether a reader decodes this record's payload: a page, or a stylesheet (still skipped as non_html)."""
    reason = row["skip_reason"]
    return reason is None or (reason == "non_html" and row["content_type"] in RESOURCE_MEDIA_TYPES)


def skip_reason(wtype: str, media: str | None) -> str | None:
    """None for an HTML response (a page), else the WARC type or `non_html`."""
    if wtype != "response":
        return wtype
    return None if media in HTML_MEDIA_TYPES else "non_html"


def text(value: bytes | str) -> str:
    """Header bytes as text: UTF-8 when valid, else Latin-1 (ClueWeb09 has raw non-UTF-8 header bytes)."""
    if isinstance(value, str):
        return value
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        return value.decode("latin-1")  # never fails: every byte maps to a code point


def get_header(pairs: Iterable[tuple[str, str]], name: str) -> str | None:
    """The first value of a header (name in lower case) among pairs, or None."""
    return next((v for k, v in pairs if k.lower() == name), None)


def header_dict(pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Headers as recorded; a repeated name (any case) is joined with ", " under its first spelling."""
    out: dict[str, str] = {}
    first: dict[str, str] = {}
    for name, value in pairs:
        key = first.setdefault(name.lower(), name)
        out[key] = f"{out[key]}, {value}" if key in out else value
    return out


def media_type(value: str | None) -> tuple[str | None, str | None]:
    """(media type lower-cased without parameters, charset parameter lower-cased) of a Content-Type."""
    if not value:
        return None, None
    media, *params = value.split(";")
    charset = next((p.split("=", 1)[1].strip().strip("\"'").lower() or None for p in params
                    if p.strip().lower().startswith("charset=")), None)
    return media.strip().lower() or None, charset


def strip_brackets(url: str | None) -> str | None:
    """A URL without the `<...>` that Wget 1.21 writes (`wget-2024-sample-0000.warc.gz`), and without
    tabs and line breaks (dropped by WHATWG URL parsing; ClueWeb09 has URLs broken over raw lines)."""
    url = url.strip().replace("\r", "").replace("\n", "").replace("\t", "") if url else url
    return url[1:-1] if url and url.startswith("<") and url.endswith(">") else url


def parse_date(value: str | None) -> datetime | None:
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


def hash_id(url: str | None, date: str | None) -> str:
    """A stable page id for records without one: sha1 of url and date."""
    return hashlib.sha1(f"{url or ''}\t{date or ''}".encode()).hexdigest()
