"""Two downloads through one Scrapy download handler, the second right after the first was stopped at its headers.

    python tests/spiders/pool_reuse.py HANDLER BASE_URL     # exit 0: both answered; the site's log says what was sent

HANDLER is the import path of an HTTP download handler; BASE_URL the local site (tests/spiders/local_site.py,
whose responses leave in one write). `/report` (a PDF by header) is stopped at its headers by pagesieve's
HtmlOnlyMiddleware, as in a crawl; `/page-1` is requested in the loop turn right after, before the stopped
connection has closed: the turn in which a crawl's next request to the site can take that connection from the
pool. One process per run: a Twisted reactor is installed once (docs/stack.md#scrapy).
"""

from __future__ import annotations

import sys

from scrapy.utils.reactor import install_reactor

install_reactor("twisted.internet.asyncioreactor.AsyncioSelectorReactor")

from scrapy import Request  # noqa: E402 (after the reactor)
from scrapy.utils.defer import deferred_from_coro  # noqa: E402
from scrapy.utils.misc import build_from_crawler, load_object  # noqa: E402
from scrapy.utils.test import get_crawler  # noqa: E402
from twisted.internet import reactor  # noqa: E402

from pagesieve.spiders.middlewares import PAGE_META, SKIP_META, HtmlOnlyMiddleware  # noqa: E402


async def two_downloads(handler_path: str, base: str) -> None:
    crawler = get_crawler(settings_dict={"DOWNLOAD_TIMEOUT": 20, "CONCURRENT_REQUESTS_PER_DOMAIN": 2})
    # connects its headers_received handler to this crawler (a weak reference: the name keeps it alive)
    html_only = HtmlOnlyMiddleware.from_crawler(crawler)
    handler = build_from_crawler(load_object(handler_path), crawler)
    try:
        stopped = Request(f"{base}/report", meta={PAGE_META: True})
        response = await handler.download_request(stopped)
        assert stopped.meta.get(SKIP_META) == "non_html_header" and response.body == b"", response
        # this coroutine resumes in the next loop turn, ahead of that turn's I/O events, so before the stopped
        # connection is written to and closed; no await in between
        response = await handler.download_request(Request(f"{base}/page-1"))
        assert response.status == 200, response
    finally:
        await handler.close()
        del html_only


def main(handler_path: str, base: str) -> None:
    failures: list[object] = []
    done = deferred_from_coro(two_downloads(handler_path, base))
    done.addErrback(failures.append)
    done.addBoth(lambda _: reactor.stop())
    reactor.run()
    if failures:
        raise SystemExit(f"pool_reuse: {failures[0]}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
