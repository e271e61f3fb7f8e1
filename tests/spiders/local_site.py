"""A generated site of ~100 linked pages on 127.0.0.1, logging every request path, for the crawl tests.

    python tests/spiders/local_site.py LOGFILE        # prints the port on its first line, serves until killed

What is on it (`expected_pages` is what a crawl must land; `NOT_LANDED` what it must not):
  /                      index, links to /page-0 .. /page-9, /search?b=2&a=1 and the traps below
  /page-<i>              i < 100; /page-<i> links to /page-<10i .. 10i+9> (a tree: depth 2 reaches all)
  /orphan-<i>            i < 5; linked from nowhere, listed in /sitemap.xml (named in robots.txt)
  /private/secret-<i>    disallowed by robots.txt (must never be requested)
  /report, /photo        application/pdf and image/png by header (no extension: link extractors keep them)
  /fake                  served as text/html, but a PDF body (skipped by sniffing)
  /moved                 301 -> /page-42
  /missing               404
  /slow                  an HTML page after 1.5 s
  /big                   an HTML page of 2 MB (over the tests' 1 MB download cap)
  /search?a=1&b=2        one page, linked with its arguments in two orders and with a fragment
  /links?to=URL&to=...   a page linking to the URLs given (linked from nowhere: a test seeds it, e.g. with a
                         file:// or ftp:// link on this host)
"""

from __future__ import annotations

import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

N_PAGES = int(os.environ.get("PAGESIEVE_SITE_PAGES", "100"))   # the benchmark serves a bigger site
N_ORPHANS = 5
SLOW_S = 1.5
BIG_BYTES = 2_000_000
TRAPS = ["/private/secret-0", "/private/secret-1", "/report", "/photo", "/fake", "/moved", "/missing", "/slow",
         "/big", "/search?b=2&a=1", "/search?a=1&b=2#results"]
NOT_LANDED = ["/private/secret-0", "/private/secret-1", "/report", "/photo", "/fake", "/moved", "/missing", "/big"]
ROBOTS = "User-agent: *\nDisallow: /private/\n\nSitemap: {base}/sitemap.xml\n"
PDF = b"%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"
PNG = b"\x89PNG\r\n\x1a\n" + bytes(64)


def expected_pages(base: str) -> set[str]:
    """The canonical URLs a full crawl from `base + "/"` (sitemap on) must land, each exactly once."""
    paths = ["/", *(f"/page-{i}" for i in range(N_PAGES)), *(f"/orphan-{i}" for i in range(N_ORPHANS)),
             "/slow", "/search?a=1&b=2"]
    return {base + p for p in paths}


def html(title: str, links: list[str], filler: int = 3) -> bytes:
    """A page with a title, a navigation list (boilerplate) and a few paragraphs of main text."""
    nav = "".join(f'<li><a href="{href}">{href}</a></li>' for href in links)
    text = "".join(f"<p>{title} paragraph {k}: the quick brown fox jumps over the lazy dog while the crawler "
                   f"counts pages, and every sentence here is long enough to be main content.</p>"
                   for k in range(filler))
    return (f"<!doctype html><html><head><title>{title}</title></head><body><nav><ul>{nav}</ul></nav>"
            f"<main><h1>{title}</h1>{text}</main><footer>footer of {title}</footer></body></html>").encode()


def page(path: str) -> tuple[int, str, bytes, dict[str, str]]:
    """(status, content type, body, extra headers) of one path."""
    if path == "/":
        return 200, "text/html; charset=utf-8", html("index", [f"/page-{i}" for i in range(10)] + TRAPS), {}
    if path.startswith("/page-") and path[6:].isdigit() and int(path[6:]) < N_PAGES:
        i = int(path[6:])
        children = [f"/page-{j}" for j in range(10 * i, min(10 * i + 10, N_PAGES))]
        return 200, "text/html", html(f"page {i}", children + ["/", "/private/secret-0", "/moved", "/report"]), {}
    if path.startswith("/orphan-") and path[8:].isdigit() and int(path[8:]) < N_ORPHANS:
        return 200, "text/html", html(f"orphan {path[8:]}", ["/"]), {}
    if path.startswith("/private/"):
        return 200, "text/html", html("secret", []), {}
    if path.startswith("/links?"):
        return 200, "text/html", html("links", parse_qs(urlsplit(path).query).get("to", [])), {}
    if path == "/search?a=1&b=2":
        return 200, "text/html", html("search results", ["/page-3"]), {}
    if path == "/report":
        return 200, "application/pdf", PDF, {}
    if path == "/photo":
        return 200, "image/png", PNG, {}
    if path == "/fake":
        return 200, "text/html", PDF, {}
    if path == "/moved":
        return 301, "text/html", b"<html><body>moved</body></html>", {"Location": "/page-42"}
    if path == "/slow":
        time.sleep(SLOW_S)
        return 200, "text/html", html("slow", ["/"]), {}
    if path == "/big":
        return 200, "text/html", html("big", [], filler=BIG_BYTES // 150), {}
    return 404, "text/html", b"<html><body>not found</body></html>", {}


class Handler(BaseHTTPRequestHandler):
    log_lock = threading.Lock()
    log_file = None
    protocol_version = "HTTP/1.1"
    # buffered: a small response leaves in one write (headers and body together), as from most real servers,
    # so the crawler often reads both at once. That is what made a connection stopped at its headers (/report)
    # go back to Scrapy's pool and take the next request down with it (sent twice: pagesieve.spiders.handlers)
    wbufsize = 1 << 16

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        with self.log_lock:
            self.log_file.write(self.path + "\n")
            self.log_file.flush()
        base = f"http://{self.headers.get('Host')}"
        if self.path == "/robots.txt":
            status, ctype, body, extra = 200, "text/plain", ROBOTS.format(base=base).encode(), {}
        elif self.path == "/sitemap.xml":
            urls = "".join(f"<url><loc>{base}/orphan-{i}</loc></url>" for i in range(N_ORPHANS))
            body = (f'<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/'
                    f'sitemap/0.9"><url><loc>{base}/</loc></url>{urls}</urlset>').encode()
            status, ctype, extra = 200, "application/xml", {}
        else:
            status, ctype, body, extra = page(self.path)
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for key, value in extra.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:   # the request log above is the one that counts
        pass


class QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        # the crawler hangs up on /big at its size cap: a reset connection is expected, not worth a traceback
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def serve(log_path: str) -> None:
    Handler.log_file = open(log_path, "a", encoding="utf-8")  # noqa: SIM115 (open while serving)
    server = QuietServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


def path_of(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


if __name__ == "__main__":
    serve(sys.argv[1])
