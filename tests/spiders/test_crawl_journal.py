"""The crawl journal without a crawl: the windows of a kill that a real crawl seldom hits, set up on purpose."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from pagesieve.spiders.items import PageItem, page_id
from pagesieve.spiders.journal import JOURNAL, CrawlJournal
from pagesieve.spiders.pipelines import ParquetShardPipeline


def item(url: str) -> PageItem:
    return PageItem(page_id=page_id(url), url=url, fetch_time=datetime(2026, 1, 1, tzinfo=UTC), http_status=200,
                    content_type="text/html", charset_hint=None, http_headers={}, body=b"<html></html>",
                    source="crawl:site", fetched_as=(url,))


def run(tmp_path, urls: list[str], scheduled: list[str]) -> ParquetShardPipeline:
    """A run's shard writer with a journal: `scheduled` page requests, then `urls` landed (2 per shard)."""
    pipeline = ParquetShardPipeline(str(tmp_path / "landing"), rows_per_shard=2, shard_seconds=3600)
    pipeline.journal = CrawlJournal(str(tmp_path / "state"), str(tmp_path / "landing"))
    pipeline.open_spider()
    for url in scheduled:
        pipeline.journal.schedule(url, 1)
    for url in urls:
        pipeline.process_item(item(url))
    return pipeline


def test_landed_pages_are_done_and_the_rest_pending(tmp_path):
    run(tmp_path, ["http://h/a", "http://h/b", "http://h/c"], ["http://h/a", "http://h/b", "http://h/c", "http://h/d"])
    # killed: http://h/c sat in the open shard
    journal = CrawlJournal(str(tmp_path / "state"), str(tmp_path / "landing"))
    assert journal.done == {"http://h/a", "http://h/b"} and journal.earlier_runs == 1
    assert journal.pending() == [("http://h/c", 1), ("http://h/d", 1)]
    assert journal.earlier["pagesieve/landed/rows"] == journal.earlier["pagesieve/outcome/page"] == 2


def test_a_kill_between_the_journal_line_and_the_rename_voids_that_shard(tmp_path):
    pipeline = run(tmp_path, ["http://h/a"], ["http://h/a", "http://h/b"])
    pipeline.rows.append(item("http://h/b").row())
    pipeline.urls.append("http://h/b")
    name = f"{pipeline.prefix}-00000.parquet"
    (tmp_path / "landing" / f"_tmp-{name}").write_bytes(b"PAR1 half a shard")
    pipeline.journal.checkpoint(name, pipeline.urls, 2)      # ... and killed before os.replace
    journal = CrawlJournal(str(tmp_path / "state"), str(tmp_path / "landing"))
    # nothing is done; what was scheduled since the last valid line goes too: the pages that yielded those
    # requests did not land either (links go before their page's item), so they are fetched and yield them again
    assert journal.done == set() and journal.pending() == [] and journal.earlier_runs == 1
    assert list((tmp_path / "landing").iterdir()) == []        # the half-written shard is gone


def test_a_line_cut_by_a_kill_is_dropped_and_the_next_run_appends_clean_lines(tmp_path):
    run(tmp_path, ["http://h/a", "http://h/b"], ["http://h/a", "http://h/b"])
    path = tmp_path / "state" / JOURNAL
    path.write_bytes(path.read_bytes() + b'{"run":"x","shard":null,"sched')
    journal = CrawlJournal(str(tmp_path / "state"), str(tmp_path / "landing"))
    journal.opened("part-site-next")
    assert journal.done == {"http://h/a", "http://h/b"}
    assert [json.loads(line)["run"] for line in path.read_text().splitlines()][-1] == "part-site-next"
