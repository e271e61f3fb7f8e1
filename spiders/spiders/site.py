"""SiteSpider: a general-purpose crawler from seeds, within allowed domains, depth and page limits.

    scrapy crawl site -a seeds=seeds.txt [-a urls=https://a.example/,https://b.example/] [-a sitemap=true]
                      [-a allowed_domains=a.example,b.example] -s PAGESIEVE_LANDING=landing/

It only yields items and requests: the HTML pages it lands become `pages` rows (`spiders/items.py`);
every response it sees lands in exactly one outcome, counted as `pagesieve/outcome/<reason>` in the stats.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

import scrapy
from scrapy.linkextractors import LinkExtractor
from scrapy.utils.sitemap import Sitemap, sitemap_urls_from_robots
from w3lib.url import canonicalize_url

from pagesieve.archives.rows import media_type, text
from pagesieve.models.page.errors import one_line

from ..items import page_item, requested_urls
from ..journal import journal_for
from ..middlewares import PAGE_META, SKIP_META
from ..sniff import html_by_header, sniff_html

__all__ = ["SiteSpider", "read_seeds", "canonical_url", "FETCHED_SCHEMES"]

ERROR_STATUSES = list(range(400, 600))
# Only these are ever requested. A `file://` link on the seed host passed the offsite check (its host is the
# seed's) and landed a local file as a page; an `ftp://` one hung the crawl (robots.txt asked over FTP, no
# greeting, no timeout). Scrapy's handlers for the other schemes are switched off too (spiders/config.py).
FETCHED_SCHEMES = ("http", "https")


def canonical_url(url: str) -> str:
    """The URL requested and recorded: fragment dropped, query arguments sorted, escapes normalised, so
    `/a?y=2&x=1#top` and `/a?x=1&y=2` are one page for the dupe filter and for `page_id`."""
    return canonicalize_url(url, keep_fragments=False)


def read_seeds(path: str | None = None, urls: str | list[str] | None = None) -> list[str]:
    """Seed URLs from a file (one per line, `#` comments) and/or a comma-separated list, canonical, deduplicated.

    Raises:
        ValueError: no seed at all, or a seed that is not an http(s) URL (one line naming it).
    """
    found: list[str] = []
    if path:
        with open(path, encoding="utf-8") as fh:
            found += [line.split("#", 1)[0].strip() for line in fh]
    if urls:
        found += urls.split(",") if isinstance(urls, str) else list(urls)
    seeds: list[str] = []
    for url in (u.strip() for u in found):
        if not url:
            continue
        if urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).hostname:
            raise ValueError(f"seed {url!r} is not an http(s) URL")
        url = canonical_url(url)
        if url not in seeds:
            seeds.append(url)
    if not seeds:
        raise ValueError("no seed URL: give --seeds FILE and/or --url URL")
    return seeds


def _flag(value: Any) -> bool:
    return value if isinstance(value, bool) else str(value).strip().lower() in ("1", "true", "yes", "on")


class SiteSpider(scrapy.Spider):
    """Follows links from the seeds (and, with `sitemap`, the sites' sitemaps), landing every HTML page."""

    name = "site"

    def __init__(self, seeds: str | None = None, urls: str | list[str] | None = None,
                 allowed_domains: str | list[str] | None = None, sitemap: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.seeds = read_seeds(seeds, urls)
        if isinstance(allowed_domains, str):
            allowed_domains = [d.strip() for d in allowed_domains.split(",") if d.strip()]
        # the offsite middleware reads this attribute; default: the seeds' hosts (subdomains included)
        self.allowed_domains = list(allowed_domains or []) or sorted({urlsplit(u).hostname for u in self.seeds})
        self.sitemap_arg = sitemap

    @classmethod
    def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> SiteSpider:
        settings = crawler.settings
        kwargs.setdefault("allowed_domains", settings.getlist("PAGESIEVE_ALLOWED_DOMAINS") or None)
        spider = super().from_crawler(crawler, *args, **kwargs)
        spider.follow_links = settings.getbool("PAGESIEVE_FOLLOW_LINKS", True)
        spider.use_sitemap = _flag(spider.sitemap_arg) if spider.sitemap_arg is not None \
            else settings.getbool("PAGESIEVE_SITEMAP")
        spider.html_types = tuple(settings.getlist("PAGESIEVE_HTML_TYPES") or ["text/html"])
        spider.sniff_bytes = settings.getint("PAGESIEVE_SNIFF_BYTES", 1024)
        # no allow_domains here: it compares host:port with the domains (an IP seed with a port matched nothing);
        # the offsite middleware applies `allowed_domains` to every request instead, sitemap URLs included
        spider.links = LinkExtractor(canonicalize=False, unique=True)
        spider.depth_priority = settings.getint("DEPTH_PRIORITY")
        spider.journal = None
        return spider

    async def start(self) -> AsyncIterator[Any]:
        self.journal = journal_for(self.crawler)       # with --jobdir: what earlier runs left to fetch
        for url in self.seeds:
            yield self.page_request(url)
        # a resumed crawl: requests scheduled before a stop or a kill whose outcome never became final; the
        # dupe filter already knows every URL that did, so what is landed is not fetched again
        for url, depth in self.journal.pending() if self.journal is not None else ():
            yield self.page_request(url, depth)
        if self.use_sitemap:
            for root in sorted({f"{urlsplit(u).scheme}://{urlsplit(u).netloc}" for u in self.seeds}):
                yield scrapy.Request(f"{root}/robots.txt", callback=self.parse_robots, errback=self.on_meta_error)
                yield scrapy.Request(f"{root}/sitemap.xml", callback=self.parse_sitemap, errback=self.on_meta_error)

    def fetchable(self, url: str) -> bool:
        """True for an http(s) URL; any other is counted as `pagesieve/skipped_link/<scheme>` and never requested."""
        scheme = urlsplit(url).scheme.lower()
        if scheme in FETCHED_SCHEMES:
            return True
        name = "".join(c for c in scheme if c.isalnum() or c in "+-.") or "none"
        self.crawler.stats.inc_value(f"pagesieve/skipped_link/{name}")
        return False

    def page_request(self, url: str, depth: int | None = None) -> scrapy.Request:
        # 4xx/5xx reach `parse` (after retries), so every response is counted in one outcome; not
        # handle_httpstatus_all, which would also switch the redirect middleware off
        meta: dict[str, Any] = {PAGE_META: True, "handle_httpstatus_list": ERROR_STATUSES}
        if depth:       # a resumed request keeps its depth (the depth middleware sets it on links only)
            meta["depth"] = depth
        return scrapy.Request(canonical_url(url), callback=self.parse, errback=self.on_error, meta=meta,
                              priority=-(depth or 0) * self.depth_priority)

    def sitemap_request(self, url: str) -> scrapy.Request:
        return scrapy.Request(url, callback=self.parse_sitemap, errback=self.on_meta_error)

    def outcome(self, reason: str, urls: tuple[str, ...] = ()) -> None:
        """Count one response (or failed request) in `reason`; a non-page outcome is final for `urls`."""
        self.crawler.stats.inc_value(f"pagesieve/outcome/{reason}")
        if self.journal is not None and reason != "page":
            self.journal.finish(urls)

    def parse(self, response: Any) -> Iterator[Any]:
        """Land an HTML 2xx response and follow its links; count anything else by reason."""
        fetched, urls = datetime.now(UTC), requested_urls(response)
        if response.meta.get(SKIP_META) and "download_stopped" in response.flags:
            self.outcome(response.meta[SKIP_META], urls)
            return
        if not 200 <= response.status < 300:
            self.outcome(f"http_{response.status}", urls)
            return
        raw = response.headers.get(b"Content-Type")
        by_header = html_by_header(media_type(text(raw) if raw else None)[0], self.html_types)
        if by_header is False:        # a stopped download missed by the middleware (it only sees page requests)
            self.outcome("non_html_header", urls)
            return
        if not sniff_html(response.body, self.sniff_bytes):
            self.outcome("non_html_sniffed", urls)
            return
        self.outcome("page")
        # the links before the item: they are in the crawl journal before the shard with this page can land,
        # so a page that landed never takes its links down with it in a kill (spiders/journal.py)
        if self.follow_links:
            for link in self.links.extract_links(response):
                if self.fetchable(link.url):
                    yield self.page_request(link.url)
        yield page_item(response, self.name, fetched)

    def on_error(self, failure: Any) -> None:
        """A page request that got no response: too large (DOWNLOAD_MAXSIZE), a timeout, DNS, refused, ..."""
        name, request = type(failure.value).__name__, failure.request
        urls = (*request.meta.get("redirect_urls", ()), request.url)
        if name == "DownloadCancelledError" and "max size" in str(failure.value):
            self.outcome("too_large", urls)
        elif name == "IgnoreRequest":       # robots.txt, offsite: the request was never sent
            self.outcome("robots_forbidden" if "robots.txt" in str(failure.value) else "ignored", urls)
        else:
            self.outcome(f"download_error/{name}", urls)
        self.logger.info("no page for %s: %s", failure.request.url, one_line(failure.value))

    def on_meta_error(self, failure: Any) -> None:
        """robots.txt or sitemap.xml missing: no sitemap from that source (not a page, not counted)."""
        self.logger.debug("no sitemap from %s: %s", failure.request.url, one_line(failure.value))

    def parse_robots(self, response: Any) -> Iterator[Any]:
        if response.status == 200:
            for url in sitemap_urls_from_robots(response.text, base_url=response.url):
                if self.fetchable(url):
                    yield self.sitemap_request(url)

    def parse_sitemap(self, response: Any) -> Iterator[Any]:
        """A sitemap or sitemap index (gzip undone by Scrapy's compression middleware): its URLs are requested."""
        if response.status != 200:
            return
        try:
            sitemap = Sitemap(response.body)
        except Exception as exc:     # lxml refuses some non-XML bodies; a bad sitemap is logged, not fatal
            self.logger.warning("bad sitemap %s: %s", response.url, one_line(exc))
            return
        for entry in sitemap:
            loc = entry.get("loc")
            if not loc or not self.fetchable(loc):
                continue
            yield self.sitemap_request(loc) if sitemap.type == "sitemapindex" else self.page_request(loc)
