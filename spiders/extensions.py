"""ProgressLog: pages fetched and landed per second in the log while the crawl runs, and its run report.

The report (`<landing>/_report.json`, the run report of docs/design.md#data-contracts, for the crawl) is
computed from the crawl's stats at close: every response the spider saw is in exactly one outcome
(`pagesieve/outcome/<reason>`), and the pages outcome must equal the rows the shard writer landed, or the
report says `ok: false`. A run resumed from `--jobdir` adds its counts to the earlier runs' (kept in the
crawl journal) and shows both.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import time
from typing import Any

from scrapy import signals

from pagesieve import __version__
from pagesieve.schemas import SCHEMA_VERSION

from .journal import add_stats, journal_for

__all__ = ["ProgressLog", "crawl_report"]

log = logging.getLogger(__name__)

FILTERED = {"robots_forbidden": "robotstxt/forbidden", "duplicate": "dupefilter/filtered",
            "offsite": "offsite/filtered"}


class ProgressLog:
    """One INFO line every `PAGESIEVE_PROGRESS_SECONDS`: fetched and landed pages, totals and rates."""

    def __init__(self, crawler: Any, interval: float) -> None:
        self.crawler = crawler
        self.interval = interval
        self.started = time.time()
        self.last = (self.started, 0, 0)
        self._timer: Any = None

    @classmethod
    def from_crawler(cls, crawler: Any) -> ProgressLog:
        ext = cls(crawler, crawler.settings.getfloat("PAGESIEVE_PROGRESS_SECONDS", 10.0))
        crawler.signals.connect(ext.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(ext.spider_closed, signal=signals.spider_closed)
        return ext

    def spider_opened(self, spider: Any = None) -> None:
        from twisted.internet import task

        self.started = time.time()
        self.last = (self.started, 0, 0)
        self._timer = task.LoopingCall(self.log_progress)
        self._timer.start(self.interval, now=False)

    def counts(self) -> tuple[int, int]:
        stats = self.crawler.stats
        return stats.get_value("response_received_count", 0), stats.get_value("pagesieve/landed/rows", 0)

    def log_progress(self) -> None:
        now, (fetched, landed) = time.time(), self.counts()
        then, fetched0, landed0 = self.last
        span = max(now - then, 1e-9)
        log.info("crawl progress: %d fetched (%.1f pages/s), %d landed (%.1f pages/s) in %.0f s",
                 fetched, (fetched - fetched0) / span, landed, (landed - landed0) / span, now - self.started)
        self.last = (now, fetched, landed)

    def spider_closed(self, spider: Any = None, reason: str = "") -> None:
        if self._timer is not None and self._timer.running:
            self._timer.stop()
        journal = journal_for(self.crawler)
        report = crawl_report(self.crawler.stats.get_stats(), self.started, time.time() - self.started, reason,
                              self.crawler.settings.getdict("PAGESIEVE_CONFIG"),
                              journal.earlier if journal else None, journal.earlier_runs if journal else 0)
        landing = self.crawler.settings.get("PAGESIEVE_LANDING")
        if landing and self.crawler.settings.getbool("PAGESIEVE_PARQUET_ENABLED", True):
            os.makedirs(landing, exist_ok=True)
            tmp = os.path.join(landing, "_report.json.tmp")
            with open(tmp, "w", encoding="utf-8") as fh:
                json.dump(report, fh, indent=2, default=str)
                fh.write("\n")
            os.replace(tmp, os.path.join(landing, "_report.json"))
        log.info("crawl done (%s): %d responses -> %d pages landed in %d shards in %.1f s (%.1f pages/s)",
                 reason, report["responses"], report["rows"], report["shards"], report["wall_s"],
                 report["pages_per_s"] or 0)


def crawl_report(stats: dict[str, Any], started: float, wall_s: float, reason: str, config: dict[str, Any],
                 earlier: dict[str, Any] | None = None, earlier_runs: int = 0) -> dict[str, Any]:
    """The crawl's run report from its stats: outcomes by reason, requests filtered, rows and shards landed.

    A resumed crawl (`--jobdir`) passes the earlier runs' counters (`CrawlJournal.earlier`): the counts at the
    top are then the whole crawl's, `this_run` and `earlier_runs` the two parts they add up from.
    """
    this = _counts(stats)
    rate = round(this["rows"] / wall_s, 2) if wall_s else None
    return {
        "job": "crawl", "pagesieve_version": __version__, "schema_version": SCHEMA_VERSION,
        "started_at": dt.datetime.fromtimestamp(started, dt.UTC).isoformat(timespec="seconds"),
        "finish_reason": reason, "config": config, "runs": earlier_runs + 1,
        **_counts(add_stats(earlier or {}, stats)),
        "this_run": {**{k: this[k] for k in PARTS}, "wall_s": round(wall_s, 3), "pages_per_s": rate},
        "earlier_runs": {"runs": earlier_runs, **{k: v for k, v in _counts(earlier or {}).items() if k in PARTS}},
        "wall_s": round(wall_s, 3), "pages_per_s": rate,
    }


PARTS = ("responses", "rows", "shards", "by_outcome")      # what `this_run` and `earlier_runs` show of each


def _counts(stats: dict[str, Any]) -> dict[str, Any]:
    outcomes = _by_reason(stats, "pagesieve/outcome/")
    landed = stats.get("pagesieve/landed/rows", 0)
    pages = outcomes.get("page", 0)
    return {
        "responses": sum(v for k, v in outcomes.items() if k not in ("robots_forbidden", "ignored", "too_large")
                         and not k.startswith("download_error")),
        "by_outcome": outcomes,
        "filtered": {name: stats.get(key, 0) for name, key in FILTERED.items()},
        "skipped_links": _by_reason(stats, "pagesieve/skipped_link/"),
        "max_depth": stats.get("request_depth_max", 0),
        "accounting": {"pages": {"input": pages, "accounted": landed, "ok": pages == landed}},
        "rows": landed, "shards": stats.get("pagesieve/landed/shards", 0),
        "warc_records": stats.get("pagesieve/warc/records", 0),
    }


def _by_reason(stats: dict[str, Any], prefix: str) -> dict[str, int]:
    return {k[len(prefix):]: v for k, v in sorted(stats.items()) if k.startswith(prefix)}
