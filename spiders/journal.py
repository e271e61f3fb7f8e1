"""CrawlJournal: what a crawl with `--jobdir` has landed and still has to fetch, safe against a kill at any point.

Scrapy's own JOBDIR state does not survive SIGKILL: its disk queue's index is written at a clean close only,
and `requests.seen` is appended through a buffer, so it holds some of the requests made, not those that landed.
After a kill at 120 of 604 pages the same command fetched nothing (the seeds were "seen") and wrote a report of
zeros; on the tests' 108-page site the seen file was still empty and every landed page was fetched and landed
again. Requests in flight and pages in the shard still open are "seen" but never landed.

So the journal, not Scrapy's queue, is the crawl's state. `<jobdir>/pagesieve-journal.jsonl` gets one line per
run start and one per checkpoint, written and fsynced by the shard writer just before it renames a shard into
place, and at close. A checkpoint line holds the page requests scheduled since the last one (URL and depth), the
URLs whose outcome is final (the pages of that shard, the non-page outcomes counted), and the run's counters at
that point. The spider yields a page's links before its item, so a page is never committed before its links
are in the journal. On start, a line whose shard is still `_tmp-` (killed between the line and the rename)
is void and its file deleted; then

    done     = URLs of valid lines (landed pages and the requests that led to them, final non-page outcomes)
    pending  = scheduled URLs not done: requested again at start, at their depth
    seen     = done: the dupe filter starts from it (`JournalDupeFilter`); Scrapy's queue is emptied

Every page is landed exactly once: one in a committed shard is in `done` and never requested again; any other
was scheduled by a page that is committed (so it is pending) or by one that is not (which is requested again
and yields it again). The earlier runs' counters come from each run's last valid line, in which the `page`
outcome is the rows committed: what was counted after it is counted again when it is fetched again.
"""

from __future__ import annotations

import glob
import json
import logging
import os
import shutil
from collections.abc import Iterable
from typing import Any

from scrapy.dupefilters import RFPDupeFilter
from scrapy.http import Request
from scrapy.utils.job import job_dir

from .middlewares import PAGE_META

__all__ = ["CrawlJournal", "JournalDupeFilter", "journal_for", "add_stats"]

log = logging.getLogger(__name__)

JOURNAL = "pagesieve-journal.jsonl"
# the counters a run report is made of (extensions.crawl_report); carried over from run to run
KEPT = ("robotstxt/forbidden", "dupefilter/filtered", "offsite/filtered", "response_received_count")
MAX_KEPT = ("request_depth_max",)


def add_stats(*stats: dict[str, Any]) -> dict[str, Any]:
    """The counters of several runs added up (`request_depth_max`: the largest)."""
    total: dict[str, Any] = {}
    for one in stats:
        for key, value in one.items():
            if not isinstance(value, int | float) or isinstance(value, bool):
                continue
            total[key] = max(total.get(key, 0), value) if key in MAX_KEPT else total.get(key, 0) + value
    return total


def kept(stats: dict[str, Any]) -> dict[str, Any]:
    """The counters of `stats` that the journal keeps (ours, plus Scrapy's that the report shows)."""
    return {k: v for k, v in stats.items() if k.startswith("pagesieve/") or k in KEPT or k in MAX_KEPT}


class CrawlJournal:
    """The crawl state in `jobdir`: loaded (and reconciled with the landing folder) when built."""

    def __init__(self, jobdir: str, landing: str, crawler: Any = None) -> None:
        self.path = os.path.join(jobdir, JOURNAL)
        self.landing = landing
        self.crawler = crawler        # its stats go into each checkpoint (Scrapy sets them once the crawl starts)
        self.run = ""                          # this run's shard prefix, once the shard writer has opened
        self.done: set[str] = set()
        self.scheduled: dict[str, int] = {}
        self.earlier: dict[str, Any] = {}      # the earlier runs' counters, added up
        self.earlier_runs = 0
        self._new_scheduled: list[tuple[str, int]] = []
        self._new_done: list[str] = []
        os.makedirs(jobdir, exist_ok=True)
        self._load()
        # Scrapy's queue is rebuilt from `pending()`: what it holds after a kill is unreadable or stale, and after
        # a clean stop the same requests again (they would be fetched twice)
        shutil.rmtree(os.path.join(jobdir, "requests.queue"), ignore_errors=True)

    def _lines(self) -> list[dict[str, Any]]:
        if not os.path.exists(self.path):
            return []
        with open(self.path, "rb+") as fh:
            data = fh.read()
            if data and not data.endswith(b"\n"):      # a line cut by a kill: dropped, so the next one starts clean
                fh.truncate(data.rfind(b"\n") + 1)
        lines = []
        for raw in data.splitlines():
            try:
                lines.append(json.loads(raw))
            except ValueError:
                continue
        return lines

    def _load(self) -> None:
        prefixes, last_stats = [], {}
        for line in self._lines():
            if "prefix" in line:
                prefixes.append(line["prefix"])
                continue
            shard = line.get("shard")
            if shard and os.path.exists(os.path.join(self.landing, f"_tmp-{shard}")):
                continue            # killed between the line and the rename: that shard never landed
            self.scheduled.update({url: depth for url, depth in line.get("scheduled", ())
                                   if url not in self.scheduled})
            self.done.update(line.get("done", ()))
            last_stats[line.get("run", "")] = line.get("stats", {})
        for prefix in prefixes:     # half-written shards of earlier runs
            for tmp in glob.glob(os.path.join(glob.escape(self.landing), f"_tmp-{glob.escape(prefix)}-*")):
                os.remove(tmp)
        self.earlier = add_stats(*last_stats.values())
        self.earlier_runs = len(prefixes)
        if self.earlier_runs:
            log.info("resuming the crawl in %s: %d earlier runs landed %d pages; %d requests pending",
                     os.path.dirname(self.path), self.earlier_runs,
                     self.earlier.get("pagesieve/landed/rows", 0), len(self.pending()))

    def pending(self) -> list[tuple[str, int]]:
        """The page requests scheduled by earlier runs whose outcome never became final, with their depth."""
        return [(url, depth) for url, depth in self.scheduled.items() if url not in self.done]

    def opened(self, prefix: str) -> None:
        """A run starts writing shards named `<prefix>-NNNNN.parquet` (unique per run: its name in the journal)."""
        self.run = prefix
        self._append({"run": self.run, "prefix": prefix})

    def schedule(self, url: str, depth: int) -> None:
        """A page request went into the scheduler (recorded at the next checkpoint)."""
        if url not in self.scheduled:
            self.scheduled[url] = depth
            self._new_scheduled.append((url, depth))

    def finish(self, urls: Iterable[str]) -> None:
        """Requests whose outcome (not a page) was counted: done at the next checkpoint."""
        self._new_done.extend(urls)

    def checkpoint(self, shard: str | None = None, pages: list[str] | None = None, rows: int = 0) -> None:
        """Record, durably, what is scheduled and done so far: call it before renaming `shard` (its `rows` pages
        fetched as `pages`) into place, or with no shard at close."""
        stats = kept(self.crawler.stats.get_stats()) if self.crawler is not None else {}
        # the run's counters as they will be once this shard is in place; a page counted but not landed yet
        # will be fetched, and counted, again
        landed = stats.get("pagesieve/landed/rows", 0) + rows
        stats.update({"pagesieve/landed/rows": landed, "pagesieve/outcome/page": landed,
                      "pagesieve/landed/shards": stats.get("pagesieve/landed/shards", 0) + (1 if shard else 0)})
        self._append({"run": self.run, "shard": shard, "scheduled": self._new_scheduled,
                      "done": self._new_done + list(pages or ()), "stats": stats})
        self.done.update(self._new_done)
        self.done.update(pages or ())
        self._new_scheduled, self._new_done = [], []

    def _append(self, line: dict[str, Any]) -> None:
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(line, separators=(",", ":")) + "\n")
            fh.flush()
            os.fsync(fh.fileno())


def journal_for(crawler: Any) -> CrawlJournal | None:
    """The crawl's journal (one per crawler, built on first use), or None without JOBDIR or a landing folder."""
    journal = getattr(crawler, "_pagesieve_journal", False)
    if journal is False:
        settings = crawler.settings
        jobdir, landing = settings.get("JOBDIR"), settings.get("PAGESIEVE_LANDING")
        journal = CrawlJournal(jobdir, landing, crawler) if jobdir and landing and \
            settings.getbool("PAGESIEVE_PARQUET_ENABLED", True) else None
        crawler._pagesieve_journal = journal
    return journal


class JournalDupeFilter(RFPDupeFilter):
    """Scrapy's fingerprint filter, started from the journal's final URLs instead of `requests.seen` (which a
    kill leaves holding requests that never landed), and recording each new page request in the journal."""

    def __init__(self, journal: CrawlJournal | None = None, debug: bool = False, *, fingerprinter: Any = None,
                 path: str | None = None) -> None:
        super().__init__(None if journal is not None else path, debug, fingerprinter=fingerprinter)
        self.journal = journal
        if journal is not None:
            self._fingerprints.update(self.fingerprinter.fingerprint(Request(url)) for url in journal.done)

    @classmethod
    def from_crawler(cls, crawler: Any) -> JournalDupeFilter:
        # no journal (no landing shards to reconcile with): Scrapy's own requests.seen, as before
        return cls(journal_for(crawler), crawler.settings.getbool("DUPEFILTER_DEBUG"),
                   fingerprinter=crawler.request_fingerprinter, path=job_dir(crawler.settings))

    def request_seen(self, request: Request) -> bool:
        if super().request_seen(request):
            return True
        if self.journal is not None and request.meta.get(PAGE_META):
            self.journal.schedule(request.url, request.meta.get("depth", 0))
        return False
