"""Only http and https are ever fetched: a `file://` or `ftp://` link on the seed host is counted and skipped.

A hostile pass found both: a page linking `file://127.0.0.1/<path>` landed that local file as a page (and
`stream` + `export` put it in the JSONL), and an `ftp://` link hung the crawl for good (robots.txt asked over
FTP from a server that never greets; `download_timeout_s` did not apply). Real crawls of the local site,
seeded with its `/links?to=...` page.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from urllib.parse import quote

import pytest
from crawl_cli import crawl, landed

pytestmark = pytest.mark.slow  # Scrapy and the CLI in subprocesses

CANARY = "pagesieve-canary-5d1f"


def links_page(site, *hrefs: str) -> str:
    return f"{site.base}/links?" + "&".join(f"to={quote(h, safe='')}" for h in hrefs)


@pytest.fixture
def silent_listener() -> Iterator[tuple[int, list[socket.socket]]]:
    """A TCP port on 127.0.0.1 that accepts connections and never sends a byte (no FTP greeting)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    accepted: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                accepted.append(server.accept()[0])
            except OSError:         # closed at teardown
                return

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield server.getsockname()[1], accepted
    finally:
        server.close()
        for conn in accepted:
            conn.close()


def test_a_file_link_on_the_seed_host_is_skipped_and_the_file_never_lands(site, tmp_path):
    canary = tmp_path / "canary.html"
    canary.write_text(f"<!doctype html><html><body><p>{CANARY}</p></body></html>")
    seed = links_page(site, f"file://127.0.0.1{canary}", f"file://{canary}", "/links?end=0")
    crawl(site, tmp_path / "landing", url=seed)
    rows = landed(tmp_path / "landing")
    # the seed page and /links?end=0, nothing else, all over http
    assert len(rows) == 2 and f"{site.base}/links?end=0" in {r["url"] for r in rows}
    assert {r["url"].split(":", 1)[0] for r in rows} == {"http"}
    assert not [r["url"] for r in rows if CANARY.encode() in r["body"]]
    report = json.loads((tmp_path / "landing" / "_report.json").read_text())
    assert report["skipped_links"] == {"file": 2} and report["by_outcome"] == {"page": 2}


def test_an_ftp_link_to_a_silent_server_is_never_fetched_and_the_crawl_ends(site, tmp_path, silent_listener):
    port, accepted = silent_listener
    seed = links_page(site, f"ftp://127.0.0.1:{port}/pub/notes.txt", "/links?end=1")
    started = time.monotonic()
    crawl(site, tmp_path / "landing", url=seed, timeout=60)   # today: robots.txt over FTP waits forever
    took = time.monotonic() - started
    assert accepted == [], "the crawler connected to the ftp:// host"
    rows = landed(tmp_path / "landing")
    assert len(rows) == 2 and f"{site.base}/links?end=1" in {r["url"] for r in rows}
    report = json.loads((tmp_path / "landing" / "_report.json").read_text())
    assert report["skipped_links"] == {"ftp": 1} and report["by_outcome"] == {"page": 2}
    assert took < 30, took
