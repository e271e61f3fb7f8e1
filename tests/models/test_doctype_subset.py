"""The text of a DOCTYPE's internal subset never reaches documents.text (issue 22, item 6)."""

from __future__ import annotations

import pytest

from pagesieve.models.cnr import CNR
from pagesieve.models.page import parse_html, parse_page
from pagesieve.models.page.parse import strip_internal_subsets
from pagesieve.models.web2text import Web2Text, Web2TextSettings

ARTICLE = "".join(f"<p>Paragraph {i} of the article tells a long story about rivers, towns and the people who "
                  f"live along the water, season after season, year after year.</p>" for i in range(12))
PAGES = {
    "parameter entities": '<!DOCTYPE html [ <!ENTITY % p "x"> <!ENTITY % d "y"> %p; %d;]>',
    "billion laughs": '<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;"><!ENTITY lol9 "&lol2;">]>',
    "empty subset": "<!DOCTYPE html [ ]>",
}
LEAKS = ("]>", "%p;", "%d;", "&lol9;", "&lol2;", "ENTITY")


def page(doctype: str) -> bytes:
    ref = "&lol9;" if "lol9" in doctype else ""   # a reference to an entity the subset declared
    body = f"<html><head><title>Rivers</title></head><body><div>{ARTICLE}<p>{ref} &amp; more</p></div></body></html>"
    return (doctype + "\n" + body).encode()


@pytest.mark.parametrize("name", sorted(PAGES))
def test_the_parsed_tree_holds_no_internal_subset_text(name):
    root, _ = parse_html(page(PAGES[name]).decode())
    text = "".join(root.itertext())
    assert not any(leak in text for leak in LEAKS) and "Paragraph 11" in text and "& more" in text


def test_only_entities_declared_in_the_subset_are_dropped():
    assert strip_internal_subsets("<p>&lol9;</p>") == "<p>&lol9;</p>"  # no subset: left to the parser
    assert strip_internal_subsets('<!DOCTYPE x [<!ENTITY a "1">]><p>&a; &b;</p>') == "<!DOCTYPE x><p> &b;</p>"


@pytest.mark.parametrize("name", sorted(PAGES))
def test_cnr_and_web2text_text_has_no_internal_subset(name):
    parsed = parse_page(page(PAGES[name]), content_type="text/html")
    for method in (CNR(), Web2Text(Web2TextSettings.load({"device": "cpu"}))):
        result = method.process(parsed)
        assert result.status == "ok" and "Paragraph 5" in result.text, (method.name, result)
        assert not any(leak in result.text for leak in LEAKS), (method.name, result.text[:300])
