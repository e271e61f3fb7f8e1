"""Item pipelines: `pages` Parquet shards for the stream job (always), WARC files for the archive (optional).

Landing folder layout (names starting with `_` or `.` are ignored by Spark's file source and Parquet readers):

    part-<spider>-<run>-00000.parquet ...   complete shards, PAGES schema, zstd
    _tmp-part-...parquet                    the shard being written; renamed into place when complete
    _report.json                            the last crawl's run report
"""

from __future__ import annotations

import logging
import os
import sys
import time
from datetime import UTC, datetime
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from scrapy.exceptions import NotConfigured

from pagesieve.schemas import PAGES, PAGES_ROW_GROUP_BYTES

from .items import PageItem
from .journal import journal_for

__all__ = ["ParquetShardPipeline", "WarcRecordPipeline", "run_id"]

log = logging.getLogger(__name__)


def run_id() -> str:
    """A per-process name part: shards of two runs (a resumed crawl) never collide, and sort by start time."""
    return f"{datetime.now(UTC):%Y%m%dT%H%M%S}-{os.getpid()}"


class ParquetShardPipeline:
    """Buffers page rows and writes them as one shard per `rows_per_shard` rows, `shard_seconds` seconds or
    PAGES_ROW_GROUP_BYTES of bodies (a shard is one row group, which Spark's reader loads whole), whichever
    comes first.

    A shard is written whole under `_tmp-<name>`, then renamed with `os.replace` (atomic on a POSIX file
    system): a reader lists either no file or a complete one, never half a shard.
    """

    def __init__(self, landing: str, rows_per_shard: int = 500, shard_seconds: float = 30.0,
                 stats: Any = None) -> None:
        if rows_per_shard <= 0 or shard_seconds <= 0:
            raise ValueError("PAGESIEVE_SHARD_ROWS and PAGESIEVE_SHARD_SECONDS must be > 0")
        self.landing = landing
        self.rows_per_shard = rows_per_shard
        self.shard_seconds = shard_seconds
        self.stats = stats
        self.rows: list[dict[str, Any]] = []
        self.urls: list[str] = []        # the requests that fetched the buffered rows (the journal's `done`)
        self.journal: Any = None         # a CrawlJournal with --jobdir (spiders/journal.py)
        self.body_bytes = 0
        self.opened = time.monotonic()
        self.shards: list[str] = []
        self.prefix = ""
        self._timer: Any = None

    @classmethod
    def from_crawler(cls, crawler: Any) -> ParquetShardPipeline:
        settings = crawler.settings
        if not settings.getbool("PAGESIEVE_PARQUET_ENABLED", True):
            raise NotConfigured("PAGESIEVE_PARQUET_ENABLED is off")
        pipeline = cls(settings.get("PAGESIEVE_LANDING") or "landing", settings.getint("PAGESIEVE_SHARD_ROWS", 500),
                       settings.getfloat("PAGESIEVE_SHARD_SECONDS", 30.0), crawler.stats)
        pipeline.crawler = crawler
        pipeline.journal = journal_for(crawler)
        return pipeline

    def open_spider(self, spider: Any = None) -> None:
        os.makedirs(self.landing, exist_ok=True)
        self.prefix = f"part-{_spider_name(self, spider)}-{run_id()}"
        if self.journal is not None:
            self.journal.opened(self.prefix)
        self.opened = time.monotonic()
        # a shard also closes on time, so a slow crawl still feeds the stream; without an installed reactor (a
        # test driving the pipeline by hand) importing one would install the wrong kind (docs/stack.md#scrapy)
        if "twisted.internet.reactor" in sys.modules:
            from twisted.internet import task

            self._timer = task.LoopingCall(self._roll_if_old)
            self._timer.start(min(1.0, self.shard_seconds / 4), now=False)

    def process_item(self, item: PageItem, spider: Any = None) -> PageItem:
        row = item.row()
        size = len(row.get("body") or b"")
        if self.rows and self.body_bytes + size > PAGES_ROW_GROUP_BYTES:     # <= 64 MiB of bodies, or one page
            self.roll()
        self.rows.append(row)
        self.urls.extend(item.fetched_as or (item.url,))
        self.body_bytes += size
        if len(self.rows) >= self.rows_per_shard:
            self.roll()
        return item

    def _roll_if_old(self) -> None:
        if self.rows and time.monotonic() - self.opened >= self.shard_seconds:
            self.roll()

    def roll(self) -> str | None:
        """Write the buffered rows as one complete shard; returns its path (None when nothing is buffered)."""
        self.opened = time.monotonic()
        if not self.rows:
            return None
        name = f"{self.prefix}-{len(self.shards):05d}.parquet"
        final = os.path.join(self.landing, name)
        tmp = os.path.join(self.landing, f"_tmp-{name}")
        with open(tmp, "wb") as fh:
            pq.write_table(pa.Table.from_pylist(self.rows, schema=PAGES), fh, compression="zstd")
            fh.flush()
            os.fsync(fh.fileno())     # on disk before the journal says it landed
        if self.journal is not None:  # a kill from here to the rename voids the line: `_tmp-` is still there
            self.journal.checkpoint(name, self.urls, len(self.rows))
        os.replace(tmp, final)    # the commit: the stream lists it only now
        if self.stats is not None:
            self.stats.inc_value("pagesieve/landed/rows", len(self.rows))
            self.stats.inc_value("pagesieve/landed/shards")
        log.info("landed %s: %d pages", name, len(self.rows))
        self.shards.append(final)
        self.rows, self.urls = [], []
        self.body_bytes = 0
        return final

    def close_spider(self, spider: Any = None) -> None:
        if self._timer is not None and self._timer.running:
            self._timer.stop()
        self.roll()
        if self.journal is not None:
            self.journal.checkpoint()     # what was scheduled and counted since the last shard


class WarcRecordPipeline:
    """Writes each landed page as a WARC request + response record pair (warcio, gzip per record).

    On when `PAGESIEVE_WARC_DIR` is set (and `PAGESIEVE_WARC_ENABLED` not off). The response record holds the
    body as landed, which Scrapy has already content-decoded: Content-Encoding and Transfer-Encoding are
    dropped from its HTTP header and Content-Length set to the body, so `pagesieve ingest` reads back the
    very same bytes. Files roll at `PAGESIEVE_WARC_MAX_BYTES` (1 GB, the usual WARC size).
    """

    DROPPED = frozenset({"content-encoding", "transfer-encoding", "content-length"})

    def __init__(self, warc_dir: str, max_bytes: int = 1_000_000_000, stats: Any = None) -> None:
        self.warc_dir = warc_dir
        self.max_bytes = max_bytes
        self.stats = stats
        self.prefix = ""
        self.files: list[str] = []
        self._fh: Any = None
        self._writer: Any = None

    @classmethod
    def from_crawler(cls, crawler: Any) -> WarcRecordPipeline:
        settings = crawler.settings
        if not settings.get("PAGESIEVE_WARC_DIR") or not settings.getbool("PAGESIEVE_WARC_ENABLED", True):
            raise NotConfigured("no PAGESIEVE_WARC_DIR")
        pipeline = cls(settings.get("PAGESIEVE_WARC_DIR"),
                       settings.getint("PAGESIEVE_WARC_MAX_BYTES", 1_000_000_000), crawler.stats)
        pipeline.crawler = crawler
        return pipeline

    def open_spider(self, spider: Any = None) -> None:
        os.makedirs(self.warc_dir, exist_ok=True)
        self.prefix = f"crawl-{_spider_name(self, spider)}-{run_id()}"

    def _open(self) -> None:
        from warcio.warcwriter import WARCWriter

        path = os.path.join(self.warc_dir, f"{self.prefix}-{len(self.files):05d}.warc.gz")
        self.files.append(path)
        self._fh = open(path, "wb")  # noqa: SIM115  (open across items, closed in close_spider)
        self._writer = WARCWriter(self._fh, gzip=True)
        info = self._writer.create_warcinfo_record(os.path.basename(path), {"software": "pagesieve crawl",
                                                                            "format": "WARC File Format 1.0"})
        self._writer.write_record(info)

    def process_item(self, item: PageItem, spider: Any = None) -> PageItem:
        from io import BytesIO

        from warcio.statusandheaders import StatusAndHeaders

        if self._writer is None or self._fh.tell() >= self.max_bytes:
            self.close_spider()
            self._open()
        date = item.fetch_time.strftime("%Y-%m-%dT%H:%M:%SZ")
        path = item.url.split("://", 1)[-1].partition("/")[2]
        request = self._writer.create_warc_record(
            item.url, "request", payload=BytesIO(b""),
            http_headers=StatusAndHeaders(f"GET /{path} HTTP/1.1", list(item.request_headers.items()),
                                          is_http_request=True),
            warc_headers_dict={"WARC-Date": date})
        headers = [(k, v) for k, v in item.http_headers.items() if k.lower() not in self.DROPPED]
        headers.append(("Content-Length", str(len(item.body))))
        response = self._writer.create_warc_record(
            item.url, "response", payload=BytesIO(item.body),
            http_headers=StatusAndHeaders(f"{item.http_status} {_reason(item.http_status)}", headers,
                                          protocol="HTTP/1.1"),
            warc_headers_dict={"WARC-Date": date})
        request.rec_headers.add_header("WARC-Concurrent-To", response.rec_headers.get_header("WARC-Record-ID"))
        self._writer.write_record(response)
        self._writer.write_record(request)
        if self.stats is not None:
            self.stats.inc_value("pagesieve/warc/records", 2)
        return item

    def close_spider(self, spider: Any = None) -> None:
        if self._fh is not None:
            self._fh.close()
        self._fh = self._writer = None


def _spider_name(pipeline: Any, spider: Any) -> str:
    # Scrapy 2.13+ deprecates the spider argument of pipeline methods: the crawler knows the spider
    spider = spider or getattr(getattr(pipeline, "crawler", None), "spider", None)
    return getattr(spider, "name", None) or "site"


def _reason(status: int) -> str:
    from http import HTTPStatus

    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Unknown"
