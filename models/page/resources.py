"""Sub-resources of a page: which stylesheets it loads, and the archived copies a renderer may serve it.

A renderer (VIPS) lays a page out as archived only if it gets the page's stylesheets from the archive
rather than the network. Ingest keeps them beside the pages (`_resources/`); a job finds, for each page,
the URLs of the stylesheets it loads (`stylesheet_urls`, then `css_imports` inside those) and attaches the
archived copies (`SubResource`) to the page. Matching is by `resource_key`: archives record URLs as
crawled, browsers request them normalised, so both sides are normalised the same way.

The page is scanned with regular expressions over its bytes read as Latin-1 (every byte maps to one
character, so nothing fails), not parsed: this runs over every page of a table before any rendering, and
the tags looked for (`<base>`, `<link rel=stylesheet>`, `@import` in `<style>`) are simple. A stylesheet
URL with non-ASCII characters in an encoding other than Latin-1 is missed.
"""

from __future__ import annotations

import html
import re
from typing import NamedTuple
from urllib.parse import urljoin, urlsplit, urlunsplit

__all__ = ["SubResource", "css_imports", "page_stylesheets", "resource_key", "stylesheet_urls"]


class SubResource(NamedTuple):
    """An archived file a page loads (a stylesheet): its URL as archived, its bytes and media type."""

    url: str
    body: bytes
    content_type: str


_TAG = re.compile(r"<(base|link)\b([^>]*)>", re.I)
_ATTR = re.compile(r"""([a-z-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""", re.I)
_STYLE = re.compile(r"<style\b[^>]*>(.*?)</style", re.I | re.S)
_IMPORT = re.compile(r"""@import\s+(?:url\(\s*)?["']?([^"')\s;]+)""", re.I)
_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_DEFAULT_PORTS = {"http": 80, "https": 443}
# A page that loads more than this many stylesheets is a page built to do something else.
MAX_STYLESHEETS = 64


def resource_key(url: str) -> str | None:
    """The URL as a browser requests it, for matching: scheme and host lower-cased, default port and
    fragment dropped, an empty path made `/`. None for anything that is not an http(s) URL."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    host = parts.hostname.lower()
    netloc = host if port in (None, _DEFAULT_PORTS[scheme]) else f"{host}:{port}"
    return urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))


def _attrs(text: str) -> dict[str, str]:
    return {m.group(1).lower(): html.unescape(next(g for g in m.groups()[1:] if g is not None))
            for m in _ATTR.finditer(text)}


def stylesheet_urls(body: bytes, page_url: str | None) -> list[str]:
    """Keys (`resource_key`) of the stylesheets a page loads, in document order, without repeats: `<link
    rel=stylesheet href>` and `@import` in `<style>`, resolved against `<base href>` or the page's URL."""
    if not body or not page_url:
        return []
    text = body.decode("latin-1")
    tags = [(m.group(1).lower(), _attrs(m.group(2))) for m in _TAG.finditer(text)]
    # the first <base href> is the base of every relative URL of the document, wherever it stands
    base = next((urljoin(page_url, a["href"]) for tag, a in tags if tag == "base" and a.get("href")), page_url)
    hrefs = [a["href"] for tag, a in tags
             if tag == "link" and "stylesheet" in a.get("rel", "").lower().split() and a.get("href")]
    for style in _STYLE.finditer(text):
        hrefs += _IMPORT.findall(_CSS_COMMENT.sub("", style.group(1)))
    return _keys(base, hrefs)


def css_imports(css: bytes, css_url: str) -> list[str]:
    """Keys of the stylesheets a stylesheet imports (`@import`), resolved against its own URL."""
    return _keys(css_url, _IMPORT.findall(_CSS_COMMENT.sub("", css.decode("latin-1")))) if css else []


def _keys(base: str, hrefs: list[str]) -> list[str]:
    keys: dict[str, None] = {}
    for href in hrefs:
        key = resource_key(urljoin(base, href.strip()))
        if key is not None:
            keys[key] = None
        if len(keys) >= MAX_STYLESHEETS:
            break
    return list(keys)


def page_stylesheets(body: bytes, page_url: str | None, archived: dict[str, SubResource]) -> tuple[SubResource, ...]:
    """The archived stylesheets a page loads, and those they import one level down: what the Spark jobs attach
    (`udfs/resources.py`), for one page in plain Python. `archived` is keyed by `resource_key`."""
    found = {key: archived[key] for key in stylesheet_urls(body, page_url) if key in archived}
    for sheet in list(found.values()):
        found.update((key, archived[key]) for key in css_imports(sheet.body, sheet.url) if key in archived)
    return tuple(found.values())
