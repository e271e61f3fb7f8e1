"""trafilatura's rules as context bits (models/page/selectors.py) and BlockNet's selector features, on real pages."""

from __future__ import annotations

import numpy as np
import pytest
from trafilatura import xpaths as trafilatura_xpaths

from pagesieve.eval import iter_gold_pages
from pagesieve.models.blocknet import page_inputs
from pagesieve.models.blocknet.features import SELECTOR_FEATURE_NAMES, selector_features
from pagesieve.models.page import parse_page, selectors
from pagesieve.models.page.context import CONTEXT_BITS
from pagesieve.models.page.selectors import SELECTOR_NAMES, selector_bits
from pagesieve.models.web2text import page_blocks

BIT = {name: 1 << k for k, name in enumerate(SELECTOR_NAMES)}


@pytest.mark.parametrize(("attribute", "value", "names"), [
    ("class", "entry-content clearfix", {"article_body"}),
    ("class", "post", {"article_body"}),
    ("class", "posts", set()),                                   # "post" is the whole value or nothing
    ("itemprop", "articleBody", {"article_body"}),
    ("class", "article body", {"story"}),                        # `^article ` only
    ("id", "primary-column", {"story"}),
    ("class", "FullText", {"story"}),                            # the one case-blind word of its rule
    ("class", "page-content", {"article_body", "main_content"}),
    ("id", "main", {"main"}),
    ("id", "comments", {"comments"}),
    ("class", "commentary", {"comments"}),                       # trafilatura's `contains(@class, 'comment')`
    ("id", "commentary", set()),                                 # its id rules anchor or spell out the word
    ("class", "share-buttons", {"boilerplate"}),
    ("class", "FOOTER", set()),                                  # its discard words are case-sensitive
    ("data-lp-replacement-content", "", {"boilerplate"}),        # the attribute's presence
    ("style", "display: none", {"hidden_or_reply"}),
    ("aria-hidden", "true", {"hidden_or_reply"}),
    ("aria-hidden", "false", set()),
    ("class", "nav link", {"boilerplate", "teaser_or_bottom"}),
    ("class", "permalink", set()),                               # `link` as a whole token only
    ("class", "page\tbottom", {"teaser_or_bottom"}),
    ("class", "Teaser-Box", {"teaser_or_bottom"}),
    ("href", "/comments", set()),                                # no rule reads it
])
def test_each_rule_reads_its_attributes_as_trafilatura_does(attribute, value, names):
    assert selector_bits(attribute, value) == sum(BIT[n] for n in names)


def _attribute_values(pages) -> list[tuple[str, str]]:
    values = set()
    for page in pages:
        for element in page.root.iter():
            if isinstance(element.tag, str):
                values.update((a, v) for a, v in element.items() if a in selectors.SELECTOR_ATTRIBUTES)
    return sorted(values)


@pytest.fixture(scope="module")
def real_pages(shared_data):
    gold = list(iter_gold_pages(shared_data / "wcxb", "test"))[:15]
    gold += list(iter_gold_pages(shared_data / "dragnet", "test"))[:15]
    return [parse_page(g.html, url=g.url, page_id=g.page_id) for g in gold]


def test_the_c_tables_and_the_python_search_agree_on_real_values(real_pages, monkeypatch):
    assert selectors._C_TABLES, "_cwords is not built with its tables: pip install -e ."
    values = _attribute_values(real_pages)
    assert len(values) > 1000
    in_c = [selector_bits(a, v) for a, v in values]
    monkeypatch.setattr(selectors, "_C_TABLES", {})
    assert [selector_bits(a, v) for a, v in values] == in_c
    assert sum(map(bool, in_c)) > 100


# trafilatura's own XPath rules, each the superset our bit must hold: ours drop the tags and the first-match
_TRAFILATURA_RULES = {"article_body": [trafilatura_xpaths.BODY_XPATH[0]],
                      "story": [trafilatura_xpaths.BODY_XPATH[2]],
                      "main_content": [trafilatura_xpaths.BODY_XPATH[3]],
                      "comments": trafilatura_xpaths.COMMENTS_XPATH,
                      "boilerplate": trafilatura_xpaths.OVERALL_DISCARD_XPATH[:1]}


def test_every_block_under_an_element_trafilatura_selects_has_its_bit(real_pages):
    checked = 0
    for page in real_pages:
        blocks = page_blocks(page, context=True)
        holders = [blocks.cdom.holder[i] for i in blocks.node]
        bits = [blocks.cdom.context[i] for i in blocks.node]
        body = page.root.find("body")
        for name, rules in _TRAFILATURA_RULES.items():
            chosen = {e for rule in rules for e in rule(body) if hasattr(e, "tag")}
            bit = 1 << CONTEXT_BITS.index(f"selector_{name}")
            for k, holder in enumerate(holders):
                if chosen and holder is not None and any(a in chosen for a in (holder, *holder.iterancestors())):
                    checked += 1
                    assert bits[k] & bit, (page.page_id, name, blocks.text[k][:60])
    assert checked > 500


PAGE = """<html><body><div class="site"><nav class="menu"><a href="/">Home</a></nav>
<article><h1>A title</h1><div class="entry-content"><p>{body}</p></div>
<div id="comments"><p>{comment}</p></div></article></div></body></html>"""


def test_the_body_trafilatura_settles_on_and_its_rule():
    names = {n.split(".", 1)[1]: i for i, n in enumerate(SELECTOR_FEATURE_NAMES)}
    story, comment = "A paragraph of the story. " * 12, "A reader's comment. " * 12
    blocks = page_blocks(parse_page(PAGE.format(body=story, comment="Nice.").encode()), context=True)
    x = selector_features(blocks)
    assert [blocks.text[k] for k in np.flatnonzero(x[:, names["in_trafilatura_body"]])] == [story.strip()]
    assert set(x[:, names["trafilatura_body_rule"]]) == {np.float32(1 / 5)}     # the article-body class: rule 1
    assert x[blocks.text.index("Nice."), names["selector_comments"]] == 1
    # under 250 characters in the article-body element: the next rule whose blocks hold enough, the <article> tag
    page = parse_page(PAGE.format(body="A short story.", comment=comment).encode())
    blocks = page_blocks(page, context=True)
    x = selector_features(blocks)
    assert set(x[:, names["trafilatura_body_rule"]]) == {np.float32(2 / 5)}
    inside = [blocks.text[k] for k in np.flatnonzero(x[:, names["in_trafilatura_body"]])]
    assert inside == ["A title", "A short story.", comment.strip()]
    _, inputs = page_inputs(page)
    np.testing.assert_array_equal(inputs[:, -len(SELECTOR_FEATURE_NAMES):], x)
