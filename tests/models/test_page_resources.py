"""Which stylesheets a page loads (`models/page/resources.py`), on the Internet Archive's 2008 crawl of its own
site (pages and stylesheets in one WARC) checked against an lxml parse, and on the cases the scan must get right."""

from __future__ import annotations

from urllib.parse import urljoin

import lxml.html
import pytest

from pagesieve.archives import read_input
from pagesieve.models.page import css_imports, resource_key, stylesheet_urls

IA_WARC = "warc/ia-2008-archive-org-heritrix-warc017.warc.gz"


@pytest.fixture(scope="module")
def ia_records(shared_data):
    return list(read_input(str(shared_data / IA_WARC), max_body_bytes=5_000_000))


def _by_lxml(body: bytes, url: str) -> list[str]:
    if not body.strip():
        return []
    root = lxml.html.fromstring(body, base_url=url)
    base = root.xpath("//base/@href")
    base = urljoin(url, base[0]) if base else url
    hrefs = root.xpath("//link[contains(concat(' ', normalize-space(translate(@rel, 'STYLEHS', 'stylehs')), ' '),"
                       " ' stylesheet ')]/@href")
    return list(dict.fromkeys(resource_key(urljoin(base, h.strip())) for h in hrefs))


def test_the_stylesheets_of_real_pages_are_those_an_html_parser_finds(ia_records):
    pages = [r for r in ia_records if r["skip_reason"] is None]
    archived = {resource_key(r["url"]) for r in ia_records if r["content_type"] == "text/css"}
    assert len(pages) == 140 and len(archived) == 4
    loading = 0
    for page in pages:
        found = stylesheet_urls(page["body"], page["url"])
        assert found == _by_lxml(page["body"], page["url"]), page["url"]
        loading += bool(set(found) & archived)
    assert loading == 122   # the other 18 load none of the archived four


def test_the_reader_keeps_stylesheet_bodies_but_still_counts_them_as_non_html(ia_records):
    css = [r for r in ia_records if r["content_type"] == "text/css"]
    assert {r["skip_reason"] for r in css} == {"non_html"}
    assert all(r["body"] and r["ingest_status"] == "ok" for r in css)
    assert b"font-family" in next(r["body"] for r in css if r["url"].endswith("/archive.css"))
    assert all(r["body"] is None for r in ia_records if r["skip_reason"] == "non_html" and r not in css)


def test_base_href_imports_and_what_is_not_a_stylesheet():
    body = b"""<html><head><link href="a.css" REL="Stylesheet"><base href="/static/">
    <link rel="icon" href="favicon.ico"><link rel='alternate stylesheet' href='alt.css'>
    <style>/* @import "commented.css"; */ @import url("b.css"); @import 'c.css' screen;</style>
    <link rel=stylesheet href="https://CDN.example.com:443/x.css#top"><link rel=stylesheet href="a.css">
    <link rel="stylesheet" href="data:text/css,p{}"></head><body><p>x</p></body></html>"""
    assert stylesheet_urls(body, "http://example.com/dir/page.html") == [
        "http://example.com/static/a.css", "http://example.com/static/alt.css", "https://cdn.example.com/x.css",
        "http://example.com/static/b.css", "http://example.com/static/c.css"]
    assert stylesheet_urls(b"", "http://example.com/") == [] and stylesheet_urls(body, None) == []


def test_css_imports_resolve_against_the_stylesheet():
    css = b'@import "base.css";\n@import url(../print.css) print;\n/* @import "no.css"; */ p { color: red }'
    assert css_imports(css, "http://example.com/css/site.css") == [
        "http://example.com/css/base.css", "http://example.com/print.css"]


@pytest.mark.parametrize(("url", "key"), [
    ("HTTP://Example.COM:80/a.css", "http://example.com/a.css"),
    ("https://example.com:8443/a.css?v=2#x", "https://example.com:8443/a.css?v=2"),
    ("http://example.com", "http://example.com/"),
    ("ftp://example.com/a.css", None),
    ("http://[::1/a.css", None),
])
def test_resource_key(url, key):
    assert resource_key(url) == key
