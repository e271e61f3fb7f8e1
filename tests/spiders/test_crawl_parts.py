"""The crawl's parts without a crawl: settings, seeds, canonical URLs, sniffing, the shard writer."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime

import pyarrow.parquet as pq
import pytest

from pagesieve.schemas import PAGES, PAGES_ROW_GROUP_BYTES
from pagesieve.settings import ConfigError
from pagesieve.spiders.config import CrawlSettings, scrapy_settings
from pagesieve.spiders.crawl import load_crawl_settings
from pagesieve.spiders.items import PageItem, page_id
from pagesieve.spiders.pipelines import ParquetShardPipeline
from pagesieve.spiders.sniff import html_by_header, sniff_html
from pagesieve.spiders.spiders.site import canonical_url, read_seeds


def test_packaged_crawl_settings_are_polite():
    values = scrapy_settings(CrawlSettings.load())
    assert values["ROBOTSTXT_OBEY"] is True and values["AUTOTHROTTLE_ENABLED"] is True
    assert values["REMOTE_CONTROL_ENABLED"] is False and values["TELNETCONSOLE_ENABLED"] is False
    assert values["CONCURRENT_REQUESTS_PER_DOMAIN"] == 2 and values["DOWNLOAD_MAXSIZE"] == 10_000_000
    assert values["USER_AGENT"].startswith("pagesieve-crawler/0.1.0 (")


def test_contact_goes_into_the_user_agent():
    assert CrawlSettings.load({"contact": "ops@example.org"}).agent.endswith(" +ops@example.org")


@pytest.mark.parametrize("conf, message", [
    (["crawl.depth=3"], "unknown setting crawl.depth; known: "),
    (["crawl.rows_per_shard=0"], "crawl.rows_per_shard must be > 0, got 0"),
    (["crawl.obey_robots=maybe"], "crawl.obey_robots: expected bool, got 'maybe'"),
    (["cnr.adjust=1"], "setting 'cnr.adjust': the crawl takes crawl.KEY=VALUE"),
])
def test_a_bad_crawl_setting_is_one_config_error(conf, message):
    with pytest.raises(ConfigError) as err:
        load_crawl_settings(None, conf)
    assert str(err.value).startswith(message) and "\n" not in str(err.value)


def test_flags_go_over_the_config_file(tmp_path):
    path = tmp_path / "crawl.toml"
    path.write_text("[crawl]\ndepth_limit = 7\nmax_pages = 5\n")
    settings = load_crawl_settings(str(path), ["crawl.max_pages=9"], {"depth_limit": 1, "sitemap": None})
    assert (settings.depth_limit, settings.max_pages, settings.sitemap) == (1, 9, False)


def test_seeds_are_canonical_and_deduplicated(tmp_path):
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("# my sites\nhttp://a.example/x?b=2&a=1#top\n\nhttp://a.example/x?a=1&b=2  # again\n")
    assert read_seeds(str(seeds), "https://b.example/") == ["http://a.example/x?a=1&b=2", "https://b.example/"]
    with pytest.raises(ValueError, match="seed 'ftp://c.example/' is not an http"):
        read_seeds(None, ["ftp://c.example/"])
    with pytest.raises(ValueError, match="no seed URL"):
        read_seeds(None, [])


def test_canonical_url_drops_the_fragment_and_sorts_the_query():
    assert canonical_url("http://h.example/p?z=1&a=2#frag") == "http://h.example/p?a=2&z=1"
    assert page_id(canonical_url("http://h.example/p?z=1&a=2")) == page_id("http://h.example/p?a=2&z=1")


@pytest.mark.parametrize("body, is_html", [
    (b"<!doctype html><html><body>x</body></html>", True),
    (b"\xef\xbb\xbf\n  <html>", True),
    (b"%PDF-1.4 <html>", False),
    (b"\x89PNG\r\n\x1a\n<", False),
    (b"plain text without markup", False),
    (b"<html>\x00\x00", False),
    (b"", False),
])
def test_sniffing_tells_markup_from_binary(body, is_html):
    assert sniff_html(body) is is_html


def test_the_header_decides_when_there_is_one():
    types = ("text/html", "application/xhtml+xml")
    assert html_by_header("application/pdf", types) is False
    assert html_by_header("text/html", types) is True
    assert html_by_header(None, types) is None


def item(i: int) -> PageItem:
    url = f"http://h.example/p{i}"
    return PageItem(page_id=page_id(url), url=url, fetch_time=datetime(2026, 1, 1, tzinfo=UTC), http_status=200,
                    content_type="text/html", charset_hint="utf-8", http_headers={"Content-Type": "text/html"},
                    body=b"<html>%d</html>" % i, source="crawl:site")


def test_shards_roll_by_rows_and_are_renamed_into_place(tmp_path):
    pipeline = ParquetShardPipeline(str(tmp_path), rows_per_shard=3, shard_seconds=3600)
    pipeline.open_spider()
    for i in range(7):
        pipeline.process_item(item(i))
    assert len(pipeline.shards) == 2 and sorted(os.listdir(tmp_path)) == sorted(os.path.basename(s)
                                                                                 for s in pipeline.shards)
    pipeline.close_spider()
    names = sorted(os.listdir(tmp_path))
    assert len(names) == 3 and all(n.startswith("part-site-") and n.endswith(".parquet") for n in names)
    table = pq.read_table([str(tmp_path / n) for n in names], schema=PAGES)
    assert table.schema == PAGES and table.column("url").to_pylist() == [f"http://h.example/p{i}" for i in range(7)]
    assert set(table.column("source").to_pylist()) == {"crawl:site"}


def test_shards_roll_by_body_bytes_so_a_row_group_stays_bounded(tmp_path):
    pipeline = ParquetShardPipeline(str(tmp_path), rows_per_shard=500, shard_seconds=3600)
    pipeline.open_spider()
    big = b"<html>" + b"x" * (PAGES_ROW_GROUP_BYTES // 3 - 100) + b"</html>"     # 3 bodies fit a row group
    for i in range(7):
        pipeline.process_item(_with_body(item(i), big))
    assert len(pipeline.shards) == 2 and len(pipeline.rows) == 1
    pipeline.close_spider()
    assert [pq.ParquetFile(s).metadata.num_rows for s in pipeline.shards] == [3, 3, 1]


def _with_body(page: PageItem, body: bytes) -> PageItem:
    page.body = body
    return page


def test_a_shard_also_rolls_on_time(tmp_path):
    pipeline = ParquetShardPipeline(str(tmp_path), rows_per_shard=100, shard_seconds=0.01)
    pipeline.open_spider()
    pipeline.process_item(item(0))
    pipeline.opened -= 1.0           # as if it had been open for a second
    pipeline._roll_if_old()
    assert len(pipeline.shards) == 1 and pipeline.rows == []
    pipeline.close_spider()
    assert len(os.listdir(tmp_path)) == 1


@pytest.mark.slow  # a CLI subprocess each
@pytest.mark.parametrize("argv, message", [
    (["--url", "ftp://h.example/"], "seed 'ftp://h.example/' is not an http(s) URL"),
    (["--url", "http://h.example/", "--conf", "crawl.nosuch=1"], "unknown setting crawl.nosuch; known: "),
    (["--url", "http://h.example/", "--depth", "-1"], "crawl.depth_limit must be >= 0, got -1"),
])
def test_the_crawl_cli_refuses_bad_input_in_one_line_before_any_request(argv, message, tmp_path):
    proc = subprocess.run([sys.executable, "-m", "pagesieve.jobs.cli", "crawl", *argv, "--out", str(tmp_path / "L")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1
    assert proc.stderr.startswith(f"pagesieve crawl: error: {message}")
    assert not (tmp_path / "L").exists()
