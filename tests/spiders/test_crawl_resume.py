"""A crawl killed with SIGKILL resumes from its `--jobdir`: the rest is fetched, nothing landed is lost or doubled.

A hostile pass killed a crawl at 120 of 604 pages; the same command then fetched nothing, exited 0 and wrote a
report of zeros, and the 8 pages of the shard that was open were gone. Here the crawl of the local site (108
pages, 10 per shard, one request per ~0.05 s) is killed after its second shard, with pages fetched past it,
then run again.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urljoin

import pytest
from crawl_cli import cli_path, crawl, crawl_args, landed
from local_site import expected_pages, path_of

from pagesieve.spiders.journal import JOURNAL
from pagesieve.spiders.spiders.site import canonical_url

pytestmark = pytest.mark.slow  # Scrapy and the CLI in subprocesses

# slow enough to be killed mid-way on purpose: no AutoThrottle, ~20 requests/s (108 pages in ~6 s)
PACED = ("--conf", "crawl.autothrottle=false", "--conf", "crawl.download_delay=0.05")


def kill_after_second_shard(args: list[str], site, landing: Path) -> None:
    """Run `pagesieve crawl`, SIGKILL it once two shards have landed and 5 more requests were served."""
    proc = subprocess.Popen([str(cli_path()), *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 120
        while len(list(landing.glob("part-*.parquet"))) < 2 and proc.poll() is None and time.time() < deadline:
            time.sleep(0.02)
        served = len(site.requested())
        while len(site.requested()) < served + 5 and proc.poll() is None and time.time() < deadline:
            time.sleep(0.02)
        assert proc.poll() is None, "the crawl ended before it could be killed: " + proc.stderr.read()[-2000:]
        os.kill(proc.pid, signal.SIGKILL)
        assert proc.wait(timeout=30) == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_crawl_killed_mid_way_resumes_and_every_page_lands_exactly_once(site, tmp_path):
    landing, jobdir = tmp_path / "landing", tmp_path / "state"
    args = crawl_args(site, landing, "--jobdir", str(jobdir), *PACED)
    expected = expected_pages(site.base)
    before = len(site.requested())
    kill_after_second_shard(args, site, landing)
    first = {r["url"] for r in landed(landing, tmp_ok=True)}
    fetched = {site.base + p for p in site.requested()[before:]} & expected
    # the case that lost pages: some were fetched and not yet in a committed shard when the crawl died
    assert 20 <= len(first) < len(fetched) < len(expected), (len(first), len(fetched))
    first_shards = set(landing.glob("part-*.parquet"))

    second = crawl(site, landing, "--jobdir", str(jobdir), *PACED)
    rows = landed(landing)
    urls = Counter(r["url"] for r in rows)
    assert set(urls) == expected and max(urls.values()) == 1, [u for u, n in urls.items() if n > 1]
    assert first_shards <= set(landing.glob("part-*.parquet"))           # what landed stays
    again = Counter(path_of(u) for u in (site.base + p for p in site.requested()[before:]) if u in first)
    assert max(again.values()) == 1, [p for p, n in again.items() if n > 1]  # a landed page is never refetched
    report = json.loads((landing / "_report.json").read_text())
    assert report["rows"] == 108 and report["by_outcome"]["page"] == 108, report
    assert report["accounting"]["pages"] == {"input": 108, "accounted": 108, "ok": True}
    assert report["runs"] == 2 and report["earlier_runs"]["rows"] == len(first), report
    assert report["this_run"]["rows"] == 108 - len(first) and "resumed" in second.stderr

    done = len(site.requested())
    crawl(site, landing, "--jobdir", str(jobdir), *PACED)      # a finished crawl: nothing to fetch, nothing lost
    report = json.loads((landing / "_report.json").read_text())
    assert [p for p in site.requested()[done:] if site.base + p in expected] == []
    assert (report["runs"], report["rows"], report["this_run"]["rows"], len(landed(landing))) == (3, 108, 0, 108)


def test_a_landed_page_s_links_are_in_the_journal_no_later_than_its_shard(site, tmp_path):
    """What exactly-once rests on: a kill right after any shard's line finds that shard's pages' links recorded
    (one page per shard here, so every page is a possible point of the kill)."""
    landing, jobdir = tmp_path / "landing", tmp_path / "state"
    crawl(site, landing, "--jobdir", str(jobdir), "--conf", "crawl.rows_per_shard=1")
    bodies = {r["url"]: r["body"].decode() for r in landed(landing)}
    scheduled: set[str] = set()
    late = []
    for line in map(json.loads, (jobdir / JOURNAL).read_text().splitlines()):
        scheduled.update(url for url, _ in line.get("scheduled", ()))
        for url in (u for u in line.get("done", ()) if u in bodies):
            links = {canonical_url(urljoin(url, href)) for href in re.findall(r'href="([^"]+)"', bodies[url])}
            late += [(url, link) for link in links - scheduled]
    assert len(bodies) == 108 and late == []
