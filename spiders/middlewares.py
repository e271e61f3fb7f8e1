"""HtmlOnlyMiddleware: stop downloading a page's body as soon as its headers say it is not HTML."""

from __future__ import annotations

from typing import Any

from scrapy import signals
from scrapy.exceptions import StopDownload

from pagesieve.archives.rows import media_type, text

from .sniff import html_by_header

__all__ = ["HtmlOnlyMiddleware", "PAGE_META", "SKIP_META"]

PAGE_META = "pagesieve_page"       # set by the spider on page requests (robots.txt and sitemaps are not pages)
SKIP_META = "pagesieve_skip"       # the reason the spider must not land the response


class HtmlOnlyMiddleware:
    """On `headers_received`: a page request whose Content-Type is not an HTML type is stopped there (the
    body is not downloaded), and marked so the spider counts it as `non_html_header`. Sniffing the body of
    what is left happens in the spider, which sees every response once."""

    def __init__(self, html_types: list[str]) -> None:
        self.html_types = tuple(html_types)

    @classmethod
    def from_crawler(cls, crawler: Any) -> HtmlOnlyMiddleware:
        mw = cls(crawler.settings.getlist("PAGESIEVE_HTML_TYPES") or ["text/html", "application/xhtml+xml"])
        crawler.signals.connect(mw.headers_received, signal=signals.headers_received)
        return mw

    def headers_received(self, headers: Any, body_length: int | None, request: Any, **_: Any) -> None:
        # a redirect copies the meta of the hop before it: the mark is about this response only
        request.meta.pop(SKIP_META, None)
        if not request.meta.get(PAGE_META):
            return
        raw = headers.get(b"Content-Type")
        media, _ = media_type(text(raw) if raw else None)
        if html_by_header(media, self.html_types) is False:
            request.meta[SKIP_META] = "non_html_header"
            raise StopDownload(fail=False)      # the response goes on with an empty body; the spider skips it
