"""Web2Text preprocessing and features on hand-checked pages: Collapsed DOM, blocks, Appendix A values."""

import math

import numpy as np
import pytest
from lxml import etree

from pagesieve.data import data_root
from pagesieve.models.page import parse_page
from pagesieve.models.web2text import (
    BINARY_FEATURES,
    EDGE_FEATURE_NAMES,
    FEATURE_NAMES,
    FeatureStats,
    block_features,
    collapse_dom,
    edge_features,
    fit_stats,
    page_blocks,
    segment_blocks,
    standardise,
    stopwords,
)
from pagesieve.models.web2text.features import _leaf_count_matrix, _leaf_counts

SCRAPINGHUB = data_root() / "scrapinghub" / "input"

SMALL = (b'<html><head><title>x</title><script>var a</script></head><body>'
         b'<div><div><p>Hello <a href="/x">world</a>. This is it!</p></div></div>'
         b'<ul><li>One</li><li>Two <b>2020</b></li></ul><!-- c --><br><span> </span></body></html>')


def col(name: str) -> int:
    """Column of a feature by the part of its name after the appendix id."""
    hits = [i for i, n in enumerate(FEATURE_NAMES) if n.split(".", 1)[1] == name]
    assert len(hits) == 1, name
    return hits[0]


def ecol(name: str) -> int:
    return [n.split(".", 1)[1] for n in EDGE_FEATURE_NAMES].index(name)


def small():
    page = parse_page(SMALL)
    blocks = page_blocks(page)
    return page, blocks, block_features(blocks), edge_features(blocks)


def test_feature_names_follow_appendix():
    assert len(FEATURE_NAMES) == 128 and len(EDGE_FEATURE_NAMES) == 25
    assert len(set(FEATURE_NAMES)) == 128
    assert [n.split(".")[0] for n in FEATURE_NAMES] == [f"b{i}" for i in range(1, 129)]
    assert FEATURE_NAMES[4] == "b5.node.log_n_words" and FEATURE_NAMES[27] == "b28.parent.exists"
    assert FEATURE_NAMES[28] == "b29.parent.body_percentage" and FEATURE_NAMES[47] == "b48.parent.contains_form_element"
    assert FEATURE_NAMES[48] == "b49.parent.tag_td" and FEATURE_NAMES[67] == "b68.parent.tag_pre"
    assert FEATURE_NAMES[68] == "b69.grandparent.exists" and FEATURE_NAMES[89] == "b90.root.body_percentage"
    assert FEATURE_NAMES[109] == "b110.node.tag_a" and FEATURE_NAMES[127] == "b128.node.tag_blockquote"
    assert EDGE_FEATURE_NAMES[4] == "e5.line_break" and EDGE_FEATURE_NAMES[5] == "e6.ancestor.body_percentage"
    assert 150 <= len(stopwords()) <= 200 and {"the", "is", "of"} <= stopwords()


def test_collapsed_dom_structure():
    page, blocks, _, _ = small()
    c = blocks.cdom
    # body has 2 content children (div chain, ul); div>div>p merge into one node; <br>, blank <span>,
    # the comment, <head> and <script> are gone
    assert c.tags == [("body",), ("div", "div", "p"), ("#text",), ("a", "#text"), ("#text",), ("ul",),
                      ("li", "#text"), ("li",), ("#text",), ("b", "#text")]
    assert c.parent == [-1, 0, 1, 1, 1, 0, 5, 5, 7, 7]
    assert c.depth == [0, 1, 2, 2, 2, 1, 2, 2, 3, 3]
    assert c.end == [9, 4, 2, 3, 4, 9, 6, 9, 8, 9]
    assert c.leaves == [2, 3, 4, 6, 8, 9]
    assert blocks.text == ["Hello", "world", ". This is it!", "One", "Two", "2020"]
    assert blocks.xpath == ["/html/body/div/div/p", "/html/body/div/div/p/a", "/html/body/div/div/p",
                            "/html/body/ul/li[1]", "/html/body/ul/li[2]", "/html/body/ul/li[2]/b"]
    assert blocks.tag == ["p", "a", "p", "li", "li", "b"]


def test_page_tree_not_mutated():
    page = parse_page(SMALL)
    before = etree.tostring(page.root)
    page_blocks(page)
    assert etree.tostring(page.root) == before


def test_block_feature_values_by_hand():
    _, _, f, _ = small()
    assert f.shape == (6, 128)
    # block 2 ". This is it!": 3 words (This is it), all stopwords, 13 chars, punctuation ". !"
    b = f[2]
    assert b[col("node.has_word")] == 1 and b[col("node.log_n_words")] == pytest.approx(math.log(3))
    assert b[col("node.avg_word_length")] == pytest.approx(8 / 3)
    assert b[col("node.stopword_ratio")] == 1.0 and b[col("node.has_stopword")] == 1
    assert b[col("node.log_n_characters")] == pytest.approx(math.log(13))
    assert b[col("node.n_punctuation")] == 2 and b[col("node.contains_punctuation")] == 1
    assert b[col("node.log_punctuation_ratio")] == pytest.approx(math.log(2 / 13))
    assert b[col("node.ends_with_punctuation")] == 1 and b[col("node.ends_with_question_mark")] == 0
    assert b[col("node.ratio_words_with_capital")] == pytest.approx(1 / 3)
    assert b[col("node.ratio_words_with_capital^3")] == pytest.approx(1 / 27)
    assert b[col("node.has_multiple_sentences")] == 0          # ". This" does not end a sentence
    assert b[col("node.ratio_same_class_path")] == pytest.approx(2 / 6)   # "Hello" has body>div>div>p too
    # block 0 "Hello": no punctuation -> log ratio is the appendix's lower clip bound
    assert f[0, col("node.log_punctuation_ratio")] == -4.0 and f[0, col("node.log_n_words")] == 0.0
    # block 1 "world" inside <a>; its parent (div>div>p) has 5 of 23 characters in links
    assert f[1, col("node.tag_a")] == 1 and f[1, col("node.tag_p")] == 0
    assert f[1, col("parent.link_density")] == pytest.approx(5 / 23)
    assert f[1, col("parent.tag_div")] == 1 and f[1, col("parent.tag_p")] == 1 and f[1, col("parent.tag_ul")] == 0
    # block 5 "2020" in <b> in the second <li>: year, all digits; parent li, grandparent ul
    b = f[5]
    assert b[col("node.contains_year")] == 1 and b[col("node.numeric_ratio")] == 1.0
    assert b[col("node.tag_b")] == 1 and b[col("parent.tag_li")] == 1
    assert b[col("parent.tag_ul")] == 0 and b[col("grandparent.exists")] == 1
    # block 3 "One" (li>#text merged): its parent is the <ul>, seen by both `ul` columns of b49-b68
    assert f[3, col("parent.tag_ul")] == 1 and f[3, col("parent.tag_ul_2")] == 1 and f[3, col("node.tag_li")] == 1
    assert b[col("parent.exists")] == 1 and b[col("grandparent.exists")] == 1
    assert b[col("grandparent.contains_year")] == 1
    # root statistics: 6 leaves, "Hello world . This is it! One Two 2020" = 8 words, 33 chars
    assert f[:, col("root.numeric_ratio")] == pytest.approx(np.full(6, 4 / 33))
    assert f[0, col("root.avg_word_length")] == pytest.approx(28 / 8)
    assert f[0, col("root.body_percentage")] < 1 and (f[:, col("node.has_duplicate")] == 0).all()
    assert ((f[:, col("node.relative_position")] > 0) & (f[:, col("node.relative_position")] < 1)).all()
    assert np.all(np.diff(f[:, col("node.relative_position")]) > 0)


# Leaves that exercise every count of `_leaf_counts`: sentence ends (and what is not one: after a space or a dash,
# before a letter), four-digit words (and what is not: 5 digits, "1999x", Arabic-Indic digits), e-mails, URLs (one
# at a leaf's very end, where `\\S` finds nothing), ©, capitals of other scripts, astral characters (emoji, a
# mathematical capital), stopwords with one letter more ("smiles"), stopwords behind the Kelvin sign (lower-cases
# to "k") and the long s (does not), underscores, a NUL (the joined text's separator), and leaves of punctuation.
LEAF_TEXTS = ["Hello world. This is it!", "Ends here.", "A) b. \"Quoted.\" 'x'? Yes!! No?!. done", "(c) 2020 © Acme",
              "12345 1999x x2020", "\u0661\u0662\u0663\u0664", "mail me: a.b+c@ex-ample.co.uk or @nobody",
              "see http://", "go to https://a.io now", "www.example.com and", "Émile ÖSTER ΣΟΦΊΑ straße ǅemal",
              "\U0001F600 smile smiles themselvesx \U0001D400bc 🙂!", "\u212aeep the \u017fame ſo",
              "snake_case __init__ a_b", ".,?;:!", "x", "Mr. Smith went. To Washington.  Really?",
              "wait ... what -! no .x", "a\x00NUL. Hello", "!. a"]


@pytest.mark.parametrize("texts", [LEAF_TEXTS, LEAF_TEXTS[:1], LEAF_TEXTS[::-1]])
def test_the_page_wide_leaf_counts_equal_the_leaf_by_leaf_ones(texts):
    stop = stopwords()
    in_link = [i % 3 == 0 for i in range(len(texts))]
    one_by_one = np.array([_leaf_counts(t, link, stop) for t, link in zip(texts, in_link, strict=True)],
                          dtype=float)
    at_once = _leaf_count_matrix(texts, in_link, stop)
    assert at_once.dtype == one_by_one.dtype and at_once.shape == (len(texts), 13)
    assert at_once.tobytes() == one_by_one.tobytes()
    if len(texts) > 1:                        # the cases occur: several sentences, years, e-mails, URLs, ©
        assert one_by_one[:, 6].max() > 2 and one_by_one[:, 9:].all(axis=0).tolist() == [False] * 4
        assert one_by_one[:, 9:].any(axis=0).all()


@pytest.mark.parametrize("stop", [frozenset({"keep", "same", "so", "smile", "the", "a"}),
                                  frozenset({"don't", "émile", "the"})])          # not all a-z: looked up word by word
def test_the_page_wide_stopword_counts_follow_lower_case_as_python_does(stop):
    # "\u212aeep" lower-cases to "keep" (Kelvin sign), "\u017fame" does not to "same" (long s)
    in_link = [False] * len(LEAF_TEXTS)
    one_by_one = np.array([_leaf_counts(t, False, stop) for t in LEAF_TEXTS], dtype=float)
    assert _leaf_count_matrix(LEAF_TEXTS, in_link, stop).tobytes() == one_by_one.tobytes()
    assert one_by_one[LEAF_TEXTS.index("\u212aeep the \u017fame ſo"), 3] == (2 if "keep" in stop else 1)


def test_only_ascii_letters_and_the_kelvin_sign_lower_case_to_an_ascii_letter():
    # what the page-wide stopword count assumes, over every code point (surrogates have no case)
    ascii_lower = set("abcdefghijklmnopqrstuvwxyz")
    found = [c for c in map(chr, range(0x110000)) if not 0xD800 <= ord(c) <= 0xDFFF and set(c.lower()) & ascii_lower]
    assert sorted(c for c in found if not c.isascii()) == ["\u0130", "\u212a"]
    assert "\u0130".lower() == "i\u0307" and "\u212a".lower() == "k"   # İ lower-cases to i + a combining dot


def test_edge_feature_values_by_hand():
    _, _, _, e = small()
    assert e.shape == (5, 25)
    # distances: Hello-world 2 (siblings), world-". This" 2, ". This"-One 4 (via body), One-Two 3, Two-2020 2
    dist = e[:, :4]
    assert dist.tolist() == [[1, 0, 0, 0], [1, 0, 0, 0], [0, 0, 1, 0], [0, 1, 0, 0], [1, 0, 0, 0]]
    assert e[:, ecol("line_break")].tolist() == [0, 0, 1, 1, 0]
    # common ancestor of One and Two is the <ul>: "One Two 2020", 10 chars, 4 digits
    assert e[3, ecol("ancestor.numeric_ratio")] == pytest.approx(4 / 10)
    assert e[0, ecol("ancestor.link_density")] == pytest.approx(5 / 23)


def test_duplicates_form_and_comment_merge():
    links = b"".join(b'<li><a class="nav" href="#">Home</a></li>' for _ in range(12))
    html = (b"<html><body><ul>" + links + b"</ul><form><input name=q><label>Search</label> <b>go</b></form>"
            b"<p>a <!-- x --> b</p><p>x@example.com and https://example.com \xc2\xa9 me?</p></body></html>")
    blocks = page_blocks(parse_page(html))
    f = block_features(blocks)
    assert blocks.text[:12] == ["Home"] * 12 and blocks.text[12:] == ["Search", "go", "a b", "x@example.com and "
                                                                       "https://example.com \u00a9 me?"]
    assert (f[:12, col("node.has_duplicate")] == 1).all() and (f[:12, col("node.has_10_duplicates")] == 1).all()
    assert f[12, col("node.has_duplicate")] == 0
    assert f[0, col("node.ratio_same_class_path")] == pytest.approx(12 / 16)
    assert f[12, col("parent.contains_form_element")] == 1 and f[12, col("parent.tag_form")] == 1
    assert f[0, col("parent.contains_form_element")] == 0 and f[0, col("parent.tag_ul")] == 1   # Home: li>a merged
    assert f[14, col("parent.contains_form_element")] == 1 and f[14, col("parent.tag_body")] == 1  # body holds it
    last = f[15]
    assert last[col("node.contains_email")] == 1 and last[col("node.contains_url")] == 1
    assert last[col("node.contains_copyright")] == 1 and last[col("node.ends_with_question_mark")] == 1


def test_tiny_pages():
    one = page_blocks(parse_page(b"<html><body>just text</body></html>"))
    assert one.text == ["just text"] and one.cdom.tags == [("body", "#text")]
    f = block_features(one)
    assert f.shape == (1, 128) and f[0, col("parent.exists")] == 0 and f[0, col("grandparent.exists")] == 0
    assert edge_features(one).shape == (0, 25)
    empty = page_blocks(parse_page(b"<html><body><br><img src=x><script>x</script></body></html>"))
    assert len(empty) == 0 and block_features(empty).shape == (0, 128) and edge_features(empty).shape == (0, 25)


def test_deep_page_no_recursion():
    html = b"<html><body>" + b"<div>" * 20000 + b"deep text" + b"</div>" * 20000 + b"<p>after</p></body></html>"
    blocks = page_blocks(parse_page(html))
    assert blocks.text == ["deep text", "after"]
    f, e = block_features(blocks), edge_features(blocks)
    assert f.shape == (2, 128) and e.shape == (1, 25) and np.isfinite(f).all() and np.isfinite(e).all()


def test_collapse_then_segment_is_page_blocks():
    page = parse_page(SMALL)
    assert segment_blocks(collapse_dom(page)).text == page_blocks(page).text


def _pages():
    files = sorted(SCRAPINGHUB.glob("*.html"))
    assert len(files) == 103, SCRAPINGHUB
    return [parse_page(p.read_bytes()) for p in files]


@pytest.mark.slow
def test_scrapinghub_shapes_finite_deterministic():
    for page in _pages():
        blocks = page_blocks(page)
        f, e = block_features(blocks), edge_features(blocks)
        assert len(blocks) > 0
        assert f.shape == (len(blocks), 128) and e.shape == (len(blocks) - 1, 25)
        assert np.isfinite(f).all() and np.isfinite(e).all()
        assert set(np.unique(f[:, BINARY_FEATURES])) <= {0.0, 1.0}
        again = page_blocks(page)
        assert again.text == blocks.text and again.xpath == blocks.xpath
        assert np.array_equal(block_features(again), f) and np.array_equal(edge_features(again), e)


def test_standardise_applies_given_stats():
    x = np.array([[1.0, 10.0, -5.0], [0.0, 2.0, 5.0]])
    stats = FeatureStats(mean=np.array([0.0, 4.0, 0.0]), std=np.array([1.0, 2.0, 2.0]),
                         lo=np.array([-np.inf, 0.0, -1.0]), hi=np.array([np.inf, 8.0, 1.0]),
                         binary=np.array([True, False, False]))
    assert standardise(x, stats).tolist() == [[1.0, 2.0, -0.5], [0.0, -1.0, 0.5]]


def test_fit_stats_clips_with_appendix_ranges():
    _, _, f, _ = small()
    stats = fit_stats(f)
    z = standardise(f, stats)
    assert z.shape == f.shape and np.isfinite(z).all()
    assert np.array_equal(z[:, BINARY_FEATURES], f[:, BINARY_FEATURES])
    i = col("node.avg_word_length")
    assert (stats.lo[i], stats.hi[i]) == (3.0, 15.0)
    assert (stats.lo[col("parent.log_n_characters")], stats.hi[col("parent.log_n_characters")]) == (2.5, 10.0)
    moving = ~BINARY_FEATURES & (np.clip(f, stats.lo, stats.hi).std(axis=0) > 0)
    assert np.allclose(z[:, moving].mean(axis=0), 0) and np.allclose(z[:, moving].std(axis=0), 1)
