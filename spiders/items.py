"""One crawled page: the `pages` row (docs/schemas.md#pages) built from a Scrapy response."""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from pagesieve.archives.rows import header_dict, media_type, text
from pagesieve.schemas import PAGES

__all__ = ["PageItem", "page_id", "page_item", "requested_urls"]


def page_id(url: str) -> str:
    """A page id stable from the (canonical) URL alone: the dupe filter fetches a URL once per crawl, and a
    URL re-fetched after a resume (JOBDIR) keeps its id, so a consumer can tell the two copies apart."""
    return "crawl-" + hashlib.sha1(url.encode("utf-8")).hexdigest()


@dataclass
class PageItem:
    """Fields named and typed as the `pages` columns, plus what the WARC writer needs and pages has not."""

    page_id: str
    url: str
    fetch_time: datetime
    http_status: int
    content_type: str | None
    charset_hint: str | None
    http_headers: dict[str, str]
    body: bytes
    source: str
    source_offset: int | None = None
    source_length: int | None = None
    source_profile: str = "crawl"
    ingest_status: str = "ok"
    source_languages: str | None = None
    request_headers: dict[str, str] = field(default_factory=dict)   # WARC request record only
    # the URLs requested to fetch it (a redirect's first hops, then `url`): the crawl journal's record
    fetched_as: tuple[str, ...] = ()

    def row(self) -> dict[str, Any]:
        """The `pages` row (PAGES columns only)."""
        values = asdict(self)
        return {name: values[name] for name in PAGES.names}


def _headers(headers: Any) -> dict[str, str]:
    # Scrapy's Headers: bytes names -> list of bytes values; a repeated header is joined like ingest does
    return header_dict((text(k), text(v)) for k, values in headers.items() for v in values)


def page_item(response: Any, spider_name: str, fetch_time: datetime | None = None) -> PageItem:
    """The item of an HTML response (the body as Scrapy hands it: transfer- and content-decoded)."""
    headers = _headers(response.headers)
    media, charset = media_type(next((v for k, v in headers.items() if k.lower() == "content-type"), None))
    return PageItem(page_id=page_id(response.url), url=response.url, fetch_time=fetch_time or datetime.now(UTC),
                    http_status=response.status, content_type=media, charset_hint=charset, http_headers=headers,
                    body=response.body, source=f"crawl:{spider_name}",
                    request_headers=_headers(response.request.headers) if response.request is not None else {},
                    fetched_as=requested_urls(response))


def requested_urls(response: Any) -> tuple[str, ...]:
    """The URLs requested on the way to `response`: the hops of its redirects, then its own."""
    hops = response.meta.get("redirect_urls", ()) if response.request is not None else ()
    return (*hops, response.url)
