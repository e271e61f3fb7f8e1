"""The crawl's settings as data: `conf/crawl.toml` typed like the jobs' sections, and its Scrapy translation.

A wrong key or type fails with one line naming `crawl.key` (ConfigError) before any request is made.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scrapy.settings.default_settings import DOWNLOAD_HANDLERS_BASE

from pagesieve import __version__
from pagesieve.settings import Settings, check_at_least, check_positive

__all__ = ["CrawlSettings", "scrapy_settings"]


@dataclass(frozen=True, slots=True)
class CrawlSettings(Settings):
    """See conf/crawl.toml for the meaning of each key."""

    conf_name = "crawl"
    conf_section = "crawl"

    user_agent: str = "pagesieve-crawler/{version}"
    contact: str = ""
    obey_robots: bool = True
    depth_limit: int = 3
    max_pages: int = 0
    follow_links: bool = True
    sitemap: bool = False
    allowed_domains: tuple[str, ...] = ()
    concurrent_requests: int = 16
    concurrent_per_domain: int = 2
    download_delay: float = 0.0
    autothrottle: bool = True
    autothrottle_start_delay: float = 1.0
    autothrottle_max_delay: float = 30.0
    autothrottle_target_concurrency: float = 1.0
    download_timeout_s: float = 30.0
    retry_times: int = 2
    max_download_bytes: int = 10_000_000
    html_types: tuple[str, ...] = ("text/html", "application/xhtml+xml")
    sniff_bytes: int = 1024
    rows_per_shard: int = 500
    shard_seconds: float = 30.0
    progress_seconds: float = 10.0

    def __post_init__(self) -> None:
        check_positive(**{name: getattr(self, name) for name in (
            "concurrent_requests", "concurrent_per_domain", "max_download_bytes", "sniff_bytes", "rows_per_shard",
            "shard_seconds", "progress_seconds", "download_timeout_s", "autothrottle_start_delay",
            "autothrottle_max_delay", "autothrottle_target_concurrency")})
        check_at_least(0, **{name: getattr(self, name) for name in
                             ("depth_limit", "max_pages", "retry_times", "download_delay")})
        if not self.html_types:
            raise ValueError("html_types must not be empty")

    @property
    def agent(self) -> str:
        """The User-Agent: names the project and its version, and the operator when `contact` is set."""
        agent = self.user_agent.replace("{version}", __version__)
        return f"{agent} +{self.contact}" if self.contact else agent


# http and https only: the stock pool could reuse a connection stopped at its headers (the next URL was sent
# twice), and every other scheme Scrapy knows (file, ftp, s3, data) gets no handler at all, so a request that
# got past the spider's scheme check fails at once (NotSupported) instead of reading a local file or waiting
# on an FTP server forever (docs/reliability.md, Crawl)
DOWNLOAD_HANDLERS: dict[str, str | None] = {
    **dict.fromkeys(DOWNLOAD_HANDLERS_BASE),
    "http": "pagesieve.spiders.handlers.PoolSafeDownloadHandler",
    "https": "pagesieve.spiders.handlers.PoolSafeDownloadHandler"}


def scrapy_settings(settings: CrawlSettings) -> dict[str, Any]:
    """The Scrapy settings for `settings` (priority "project"; `-s` and CLI flags go over them)."""
    return {
        "BOT_NAME": "pagesieve",
        "SPIDER_MODULES": ["pagesieve.spiders.spiders"],
        "NEWSPIDER_MODULE": "pagesieve.spiders.spiders",
        "USER_AGENT": settings.agent,
        "ROBOTSTXT_OBEY": settings.obey_robots,
        "DEPTH_LIMIT": settings.depth_limit,
        "CLOSESPIDER_ITEMCOUNT": settings.max_pages,
        "CONCURRENT_REQUESTS": settings.concurrent_requests,
        "CONCURRENT_REQUESTS_PER_DOMAIN": settings.concurrent_per_domain,
        "DOWNLOAD_DELAY": settings.download_delay,
        "AUTOTHROTTLE_ENABLED": settings.autothrottle,
        "AUTOTHROTTLE_START_DELAY": settings.autothrottle_start_delay,
        "AUTOTHROTTLE_MAX_DELAY": settings.autothrottle_max_delay,
        "AUTOTHROTTLE_TARGET_CONCURRENCY": settings.autothrottle_target_concurrency,
        "DOWNLOAD_TIMEOUT": settings.download_timeout_s,
        "RETRY_TIMES": settings.retry_times,
        "DOWNLOAD_MAXSIZE": settings.max_download_bytes,
        "DOWNLOAD_WARNSIZE": 0,
        # breadth-first: a depth or page limit then keeps the pages nearest the seeds
        "DEPTH_PRIORITY": 1,
        "SCHEDULER_DISK_QUEUE": "scrapy.squeues.PickleFifoDiskQueue",
        "SCHEDULER_MEMORY_QUEUE": "scrapy.squeues.FifoMemoryQueue",
        # with --jobdir the crawl journal, not requests.seen, says what was fetched (spiders/journal.py)
        "DUPEFILTER_CLASS": "pagesieve.spiders.journal.JournalDupeFilter",
        # docs/stack.md#scrapy: 2.19 starts a code-running HTTP server (RemoteControl) by default; no telnet either
        "REMOTE_CONTROL_ENABLED": False,
        "TELNETCONSOLE_ENABLED": False,
        "LOG_LEVEL": "INFO",               # DEBUG logs every item with its whole body
        "LOGSTATS_INTERVAL": 0,            # our ProgressLog prints pages/s instead of pages/min
        "COOKIES_ENABLED": False,          # no sessions needed; also keeps tldextract (PSL download) out
        "DOWNLOADER_MIDDLEWARES": {"pagesieve.spiders.middlewares.HtmlOnlyMiddleware": 950},
        "DOWNLOAD_HANDLERS": DOWNLOAD_HANDLERS,
        "EXTENSIONS": {"pagesieve.spiders.extensions.ProgressLog": 500},
        "ITEM_PIPELINES": {"pagesieve.spiders.pipelines.ParquetShardPipeline": 300,
                           "pagesieve.spiders.pipelines.WarcRecordPipeline": 400},
        "PAGESIEVE_HTML_TYPES": list(settings.html_types),
        "PAGESIEVE_SNIFF_BYTES": settings.sniff_bytes,
        "PAGESIEVE_FOLLOW_LINKS": settings.follow_links,
        "PAGESIEVE_SITEMAP": settings.sitemap,
        "PAGESIEVE_ALLOWED_DOMAINS": list(settings.allowed_domains),
        "PAGESIEVE_SHARD_ROWS": settings.rows_per_shard,
        "PAGESIEVE_SHARD_SECONDS": settings.shard_seconds,
        "PAGESIEVE_PROGRESS_SECONDS": settings.progress_seconds,
    }
