"""PoolSafeDownloadHandler: Scrapy's HTTP/1.1 handler whose pool never keeps a connection it was told to close.

Scrapy stops a download at its headers (our HtmlOnlyMiddleware's StopDownload; also a body over the size
cap) by calling `loseConnection()` on the connection. When the rest of that response (a small body) came in
the same read as the headers, Twisted still finishes the response and hands the connection back to the pool
as idle. The next request to that site can take it before it closes: the request is written, the
connection closes, and Twisted's pool resends the GET on a new connection (it retries an idempotent request
that got no response, below Scrapy's retry middleware and its stats). The site saw that URL twice; Scrapy
counted one request. On the tests' local site: `/fake` or `/photo` twice, right after `/report` or `/photo`
(tests/spiders/test_crawl_handlers.py).
"""

from __future__ import annotations

from typing import Any

from scrapy.core.downloader.handlers.http11 import HTTP11DownloadHandler
from twisted.web.client import HTTPConnectionPool

__all__ = ["PoolSafeDownloadHandler"]


class _PoolSafeConnectionPool(HTTPConnectionPool):
    def _putConnection(self, key: Any, connection: Any) -> None:   # noqa: N802 (Twisted's name)
        transport = connection.transport
        if transport is None or getattr(transport, "disconnecting", False) or not getattr(transport, "connected", 1):
            return      # closing: not idle. Left out of the pool, it closes on its own and takes no request along
        super()._putConnection(key, connection)


class PoolSafeDownloadHandler(HTTP11DownloadHandler):
    """`http` and `https` downloads as Scrapy's default handler, with `_PoolSafeConnectionPool` as the pool."""

    def __init__(self, crawler: Any) -> None:
        super().__init__(crawler)
        # the reactor Scrapy installed: importing it at module level would install the default one
        # (docs/stack.md#scrapy)
        from twisted.internet import reactor

        stock = self._pool
        pool = _PoolSafeConnectionPool(reactor, persistent=stock.persistent)
        pool.maxPersistentPerHost = stock.maxPersistentPerHost
        pool._factory = stock._factory            # Scrapy's lenient HTTP/1.1 client protocol
        self._pool = pool
