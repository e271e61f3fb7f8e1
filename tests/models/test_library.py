"""`pagesieve.extract`: one page in, one Document out, the same as the clean job's row, without Spark."""

from __future__ import annotations

import json

import pytest

import pagesieve
from pagesieve.data import data_root
from pagesieve.models import library
from pagesieve.models.blocknet import BlockNet
from pagesieve.models.page import parse_page
from pagesieve.models.page.language import LanguageID, language_of
from pagesieve.settings import load_defaults

SCRAPINGHUB = data_root() / "scrapinghub"
NAV = "".join(f'<li><a href="/s{i}">Section number {i} of the site</a></li>' for i in range(30))
ARTICLE = "".join(f"<p>Paragraph {i} of the article says something long enough to count as text.</p>" for i in range(8))
NAV_PAGE = f"<html><head><title>T</title></head><body><nav><ul>{NAV}</ul></nav><article>{ARTICLE}</article></body>"


@pytest.fixture(scope="module")
def real_page() -> tuple[bytes, str]:
    first = json.loads((SCRAPINGHUB / "meta.jsonl").read_text("utf-8").splitlines()[0])
    return (SCRAPINGHUB / "input" / f"{first['id']}.html").read_bytes(), first["url"]


def test_the_default_method_is_the_clean_jobs_default() -> None:
    assert library.default_method() == load_defaults("jobs")["clean"]["method"] == "blocknet"


def test_extract_gives_the_default_cleaners_text_with_title_language_and_xpaths(real_page) -> None:
    body, url = real_page
    doc = pagesieve.extract(body, url=url)
    expected = BlockNet().process(parse_page(body, url=url))
    assert isinstance(doc, pagesieve.Document)
    assert (doc.status, doc.text, doc.title, doc.url) == ("ok", expected.text, expected.title, url)
    assert doc.method.startswith("blocknet/") and doc.content_xpaths == expected.content_xpaths
    assert (doc.n_chars, doc.n_words) == (len(expected.text), len(expected.text.split()))
    assert (doc.language, doc.language_score) == language_of(expected.text, LanguageID()) and doc.language == "en"


def test_text_and_its_utf8_bytes_give_the_same_document() -> None:
    page = NAV_PAGE.replace("Paragraph", "Überschrift ärger")
    as_text, as_bytes = pagesieve.extract(page, method="cnr"), pagesieve.extract(page.encode("utf-8"), method="cnr")
    assert as_text.text == as_bytes.text and "Überschrift ärger 3" in as_text.text


def test_settings_reach_the_method_and_a_bad_one_names_its_key() -> None:
    assert "Section number" not in pagesieve.extract(NAV_PAGE, method="cnr").text
    kept_nav = pagesieve.extract(NAV_PAGE, method="cnr", non_content_tags=["script", "style"], top_fraction=1.0)
    assert "Section number" in kept_nav.text
    with pytest.raises(ValueError, match=r"unknown setting cnr\.nope"):
        pagesieve.extract(NAV_PAGE, method="cnr", nope=1)
    with pytest.raises(ValueError, match=r"cnr\.top_fraction"):
        pagesieve.extract(NAV_PAGE, method="cnr", top_fraction=2.0)


@pytest.mark.parametrize("method", ["amber", "freedom"])
def test_a_method_that_is_not_a_cleaner_is_refused_with_one_line(method: str) -> None:
    with pytest.raises(ValueError, match=f"method '{method}' is an extractor, not a cleaner"):
        pagesieve.extract(NAV_PAGE, method=method)


def test_an_unknown_method_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown method 'nope'"):
        pagesieve.extract(NAV_PAGE, method="nope")


def test_a_page_that_cannot_be_cleaned_gives_a_status_not_an_exception() -> None:
    doc = pagesieve.extract(b"\x00\x01\x02\x89PNG", method="cnr")
    assert (doc.status, doc.text, doc.language) == ("not_html", "", None) and doc.error


def test_the_method_is_built_once_per_method_and_settings() -> None:
    pagesieve.extract(NAV_PAGE, method="cnr", adjust=1)
    before = library._cleaner.cache_info()
    for _ in range(3):
        pagesieve.extract(NAV_PAGE, method="cnr", adjust=1)
    after = library._cleaner.cache_info()
    assert (after.misses, after.hits) == (before.misses, before.hits + 3)
    pagesieve.extract(NAV_PAGE, method="cnr", adjust=2)
    assert library._cleaner.cache_info().misses == after.misses + 1
