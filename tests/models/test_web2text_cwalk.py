"""The Collapsed DOM walk in C (`models/web2text/_cwalk.c`) against the Python walk it replaces.

Both walks feed the same `_collapse`, so every CollapsedDOM field is compared, value and type (an int where the
Python walk gives an int, the same lxml element object for `top` and `holder`), on hand-made edge cases, the
sample WARC's pages and (slow) 40 pages of each benchmark pool.
"""

from __future__ import annotations

import itertools
import os
import random
from pathlib import Path

import pytest
from lxml import etree

from pagesieve.archives.archive import iter_records
from pagesieve.eval import iter_gold_pages
from pagesieve.models.page import ParsedPage, TooLargeError, parse_page
from pagesieve.models.web2text import dom

SAMPLE_WARC = Path(__file__).resolve().parents[2] / "data" / "sample" / "sample.warc.gz"
FIELDS = dom.CollapsedDOM.__slots__
ELEMENT_FIELDS = ("top", "holder")
POOLS = ("cleaneval", "scrapinghub", "l3s-gn1", "dragnet", "readability", "google-trends-2017", "wcxb",
         "trafilatura-eval")


def _cdom(walk, page: ParsedPage, context: bool, max_blocks: int | None) -> dom.CollapsedDOM | str:
    try:
        return dom._collapse(*walk(page, context, max_blocks))
    except TooLargeError as exc:
        return f"TooLargeError: {exc}"


def _c_cdom(page: ParsedPage, context: bool, max_blocks: int | None) -> dom.CollapsedDOM | str:
    try:
        return dom._c_collapse(page, context, max_blocks)
    except TooLargeError as exc:
        return f"TooLargeError: {exc}"


def differences(page: ParsedPage, context: bool = True, max_blocks: int | None = None) -> list[str]:
    """Where the C walk differs from the Python walk (empty: identical): the CollapsedDOM fields of the C walk and
    collapse (what runs), then the raw trees of both walks, field by field."""
    py = _cdom(dom._walk_python, page, context, max_blocks)
    out = _fields_differ(_c_cdom(page, context, max_blocks), py)
    try:
        c_raw, py_raw = dom._c_tree(page, context, max_blocks), dom._walk_python(page, context, max_blocks)
    except TooLargeError:
        return out                                # compared above, message and all
    if c_raw[1] != py_raw[1]:
        out.append("raw tree: source_length")
    for name in dom._Raw.__slots__:
        a, b = getattr(c_raw[0], name), getattr(py_raw[0], name)
        same = (len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=False)) if name == "element" else
                a == b and [type(v) for v in a] == [type(v) for v in b])
        if not same:
            out.append(f"raw tree: {name}")
    return out


def _fields_differ(c: dom.CollapsedDOM | str, py: dom.CollapsedDOM | str) -> list[str]:
    if isinstance(c, str) or isinstance(py, str):
        return [] if c == py else [f"{c!r} != {py!r}"]
    out = []
    for name in FIELDS:
        a, b = getattr(c, name), getattr(py, name)
        if name in ELEMENT_FIELDS:
            same = len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=False))
        else:
            same = a == b and type(a) is type(b)
            if same and isinstance(a, list):
                same = [type(v) for v in a] == [type(v) for v in b]
        if not same:
            out.append(name)
    return out


def assert_same(page: ParsedPage, **kwargs) -> None:
    assert differences(page, **kwargs) == []


def html(markup: str) -> ParsedPage:
    return parse_page(markup.encode("utf-8"))


EDGE_PAGES = {
    "comments_with_tails": "<html><body><!-- a --><p>one<!-- two -->three</p><!---->tail<div><!--x-->"
                           "</div>after</body></html><!-- after html -->",
    "hidden_subtrees": "<html><head><title>T</title><style a='1'>p{}</style></head><body><p>a<script>var x"
                       "<!-- c --></script>b<noscript><p class=x>no</p>js</noscript>c</p><input name=q value='é'>"
                       "<template><div>t</div></template><form><select><option>o</option></select></form>"
                       "<iframe src=x>if</iframe>end</body></html>",
    "nested_links": "<html><body><a href=1>out<span>in <b>deep</b></span></a><p><a>x</a> y <a>z</a></p></body></html>",
    "non_ascii_and_astral": "<html><body><div class='ü 😀 b' id='naïve' title='𝒳'><p>Grüße 😀 𝕏yz</p>"
                            "<p data-x='日本'>日本語のテキスト</p><café>x</café></div></body></html>",
    "whitespace_and_nbsp": "<html><body><p>  </p><p>\xa0</p><p>\u3000\u2003</p><p>\u200b</p><p>a\xa0b</p>"
                           "<div>\n\t </div><span> x </span><span>y</span>z</body></html>",
    "control_whitespace": "<html><body><p>\x1c\x1f</p><p>\x0b</p><p>a</p></body></html>",
    "class_paths": "<html><body><div class='b a'><p class=''>1</p><p class='  '>2</p><p>3</p></div>"
                   "<div class='a b'><p class='x\xa0y'>4</p></div><DIV CLASS='A'>5</DIV></body></html>",
    "context_cues": "<html><body class='post home'><article><nav role=navigation><ul><li><a>Home</a></li></ul>"
                    "</nav><div itemprop=articleBody style='display: none'>hidden text</div><div id=comments "
                    "class=comment-list><p>c</p></div><footer><p>f</p></footer><div class='" + "x" * 300 +
                    " content'>long class</div></article></body></html>",
    "text_after_body": "<html><body><p>in</p></body><p>after</p></html>",
    "no_text": "<html><body><br><img src=x><hr></body></html>",
    "entities_and_bare_attributes": "<html><body><p title='a&amp;b' hidden>x &lt; y &amp; z</p>"
                                    "<input disabled><div class>k</div></body></html>",
    "tables_and_breaks": "<html><body><table><tr><td>a</td><td>b<br>c</td></tr></table>d<br>e</body></html>",
}


@pytest.mark.parametrize("name", sorted(EDGE_PAGES))
def test_edge_pages_are_identical(name):
    page = html(EDGE_PAGES[name])
    for context in (True, False):
        assert_same(page, context=context)


def test_the_edge_pages_reach_the_cases_they_name():
    # guards the cases above against a parser that would drop what they test
    astral = dom.collapse_dom(html(EDGE_PAGES["non_ascii_and_astral"]))
    assert "Grüße 😀 𝕏yz" in astral.text
    ws = dom.page_blocks(html(EDGE_PAGES["whitespace_and_nbsp"]))
    assert ws.text == ["\u200b", "a b", "x", "y", "z"]        # NBSP: text, not a block; split() joins it
    hidden = dom.collapse_dom(html(EDGE_PAGES["hidden_subtrees"]))
    assert [t for t in hidden.text if t] == ["abc", "end"]   # text around hidden elements is one block


def _built_page(body_is_root: bool) -> ParsedPage:
    """A tree no parser gives: upper-case and non-ASCII tags, CDATA, PIs with tails, a link inside a link, and
    (body_is_root) no <body> at all."""
    root = etree.Element("DIV" if body_is_root else "html", {"Class": "Top", "class": "ÉTÉ x"})
    body = root if body_is_root else etree.SubElement(root, "body", {"class": "b"})
    if not body_is_root:
        head = etree.Element("head")
        root.insert(0, head)
        head.tail = "between head and body"
    link = etree.SubElement(body, "A", {"href": "x"})
    link.text = "outer "
    inner = etree.SubElement(link, "a")
    inner.text = "inner"
    inner.tail = " rest"
    pi = etree.ProcessingInstruction("php", "echo 'é';")
    body.append(pi)
    pi.tail = "after the PI"
    comment = etree.Comment(" 😀 ")
    body.append(comment)
    comment.tail = " glued"
    cdata = etree.SubElement(body, "pre")
    cdata.text = etree.CDATA("x < y 𝕏")
    weird = etree.SubElement(body, "ÉLAN", {"id": "Ünïcode"})
    weird.text = "élan"
    hidden = etree.SubElement(body, "SCRIPT", {"type": "text/js"})
    hidden.text = "1 < 2"
    sub = etree.SubElement(hidden, "span")
    sub.tail = "🙂"
    hidden.tail = "after script"
    root.tail = "the root's tail"
    return ParsedPage(root=root)


@pytest.mark.parametrize("body_is_root", [False, True])
def test_built_trees_are_identical(body_is_root):
    page = _built_page(body_is_root)
    assert (page.body is page.root) == body_is_root
    for context in (True, False):
        assert_same(page, context=context)
    cdom = dom.collapse_dom(page)
    assert "élan" in cdom.text and "after the PI" in " ".join(t for t in cdom.text if t)


def test_a_namespaced_tree_is_left_to_the_python_walk():
    page = _built_page(False)
    etree.SubElement(page.body, "{http://example.com/ns}x").text = "namespaced"
    assert dom._cwalk.walk(page.root, page.body, True, -1, -1) is None
    assert dom._cwalk.collapse_dom(page.root, page.body, True, -1, -1) is None
    assert_same(page)
    attr = _built_page(False)
    etree.SubElement(attr.body, "p", {"{http://example.com/ns}a": "v"}).text = "attribute"
    assert dom._cwalk.walk(attr.root, attr.body, True, -1, -1) is None
    assert_same(attr)


# random pages: tags that are hidden, block-level, links, form elements, non-ASCII and upper case; cue attributes
# with and without values; text of ASCII and Unicode spaces, NBSP, entities, astral characters, cue words
RANDOM_TAGS = ("div", "p", "a", "span", "b", "script", "style", "li", "ul", "br", "img", "input", "form", "select",
               "td", "table", "noscript", "template", "h1", "article", "nav", "footer", "iframe", "head", "title",
               "body", "button", "label", "pre", "Ünï", "x-y", "DIV", "textarea", "option", "svg")
RANDOM_ATTRIBUTES = ("class", "id", "style", "role", "itemprop", "href", "title", "data-x", "CLASS", "hidden")
RANDOM_TEXT = ("a", "b", " ", "\n", "\t", "\xa0", "\u3000", "\u2003", "\u200b", "é", "😀", "𝕏", "日", "&amp;", "&lt;",
               "<", ">", "\x1c", "\x85", "\u212a", "-", "nav", "post", "comment", "content", "display:none")


def _random_text(r: random.Random, n: int = 6) -> str:
    return "".join(r.choice(RANDOM_TEXT) for _ in range(r.randint(0, n)))


def _random_node(r: random.Random, depth: int) -> str:
    if depth > 6 or r.random() < 0.3:
        return f"<!--{_random_text(r)}-->" if r.random() < 0.15 else _random_text(r)
    tag = r.choice(RANDOM_TAGS)
    attrs = "".join(f" {r.choice(RANDOM_ATTRIBUTES)}='{_random_text(r, 4)}'" if r.random() < 0.8 else
                    f" {r.choice(RANDOM_ATTRIBUTES)}" for _ in range(r.randint(0, 3)))
    inner = "".join(_random_node(r, depth + 1) for _ in range(r.randint(0, 4)))
    return f"<{tag}{attrs}>{inner}</{tag}>" if r.random() < 0.9 else f"<{tag}{attrs}>{inner}"


def random_page(seed: int) -> ParsedPage:
    r = random.Random(seed)
    body = "".join(_random_node(r, 0) for _ in range(r.randint(1, 5)))
    head = "<head><title>t</title></head>" if r.random() < 0.5 else ""
    after = "".join(_random_node(r, 3) for _ in range(r.randint(0, 2))) if r.random() < 0.3 else ""
    return html(f"<html>{head}<body>{body}</body>{after}</html>{_random_text(r)}")


def test_random_pages_and_random_roots_are_identical():
    # (run with 6,000 pages and 3,000 roots while writing the C walk: no difference)
    bad = []
    for seed in range(150):
        page = random_page(seed)
        for context, max_blocks in ((True, None), (False, seed % 7)):
            if d := differences(page, context=context, max_blocks=max_blocks):
                bad.append((seed, context, max_blocks, d))
        # any element as the root: a script, an element with a tail, one whose <body> is itself
        elements = [e for e in page.root.iter() if isinstance(e.tag, str)]
        root = elements[seed % len(elements)]
        if d := differences(ParsedPage(root=root)):
            bad.append((seed, root.tag, d))
    assert bad == []


def _limit_page() -> ParsedPage:
    # 3 text blocks, 9 raw nodes: body, div, p, text, p, text, span, span, text
    return html("<html><body><div><p>a</p><p>b</p><span></span><span>c</span></div></body></html>")


@pytest.mark.parametrize("max_blocks", [0, 1, 2, 3, 4, 100])
def test_too_large_at_both_limits_is_raised_alike(max_blocks):
    assert_same(_limit_page(), max_blocks=max_blocks)
    many_nodes = html("<html><body>" + "<span></span>" * 40 + "<p>x</p></body></html>")
    assert_same(many_nodes, max_blocks=max_blocks)


@pytest.mark.parametrize(("markup", "refused"), [
    ("<span></span>" * 9, False),            # body + 9 elements: the 10 raw nodes max_blocks=1 allows
    ("<span></span>" * 10, True),            # one element more
    ("<span></span>" * 8 + "<p>x</p>", True),    # ... or one text node more (its own check)
    ("<span></span>" * 7 + "<p>x</p>", False),
])
def test_the_node_limit_holds_to_the_node(markup, refused):
    page = html(f"<html><body>{markup}</body></html>")
    assert_same(page, max_blocks=1)
    if refused:
        with pytest.raises(TooLargeError, match="elements and text nodes"):
            dom._c_collapse(page, True, 1)
    else:
        dom._c_collapse(page, True, 1)


def test_too_large_messages():
    with pytest.raises(TooLargeError, match=r"^more than 2 blocks$"):
        dom._c_collapse(_limit_page(), True, 2)
    with pytest.raises(TooLargeError, match=r"^more than 10 elements and text nodes in the body \(10 per block"):
        dom._c_collapse(html("<html><body>" + "<span></span>" * 40 + "<p>x</p></body></html>"), True, 1)
    dom._c_collapse(_limit_page(), True, 3)        # exactly at the limit: no error
    assert len(dom._c_collapse(_limit_page(), True, 2**62).leaves) == 3     # over C's range: the Python walk


def test_the_c_caches_stay_bounded_on_unique_values():
    # 18,000 distinct class, id and style values (each page its own): the caches empty themselves at 16,384
    # entries or 2 MB of keys, and values over 256 bytes are never kept
    for p in range(9):
        cells = "".join(f"<p class='c{p}-{i} {'k' * 150}' id='i{p}-{i}' style='{'s' * 300}{i}'>{i}</p>"
                        for i in range(2000))
        dom._c_collapse(html(f"<html><body>{cells}</body></html>"), True)
    sizes = dom._cwalk.cache_sizes()
    for name, (entries, key_bytes) in sizes.items():
        assert entries <= 16384 and key_bytes <= 2 * 2**20 + 300, (name, entries, key_bytes)
    assert sizes["bits"][0] > 0 and sizes["token"][0] > 0


def _sample_pages() -> list[ParsedPage]:
    pages = []
    for row in iter_records(str(SAMPLE_WARC)):
        if row.get("body") and row.get("ingest_status") == "ok":
            try:
                pages.append(parse_page(row["body"], url=row["url"], charset_hint=row.get("charset_hint")))
            except Exception:                 # not HTML, empty: what the pipeline drops before any method runs
                continue
    return pages


def test_the_sample_warc_pages_are_identical():
    pages = _sample_pages()
    assert len(pages) >= 50
    bad = {i: d for i, page in enumerate(pages) if (d := differences(page))}
    assert bad == {}
    for page in pages[:10]:
        assert_same(page, context=False, max_blocks=5)


@pytest.mark.slow
def test_forty_pages_of_each_benchmark_pool_are_identical(shared_data):
    bad, seen = {}, 0
    for pool in POOLS:
        for gold in itertools.islice(iter_gold_pages(shared_data / pool), 40):
            page = parse_page(gold.html, url=gold.url)
            seen += 1
            for context, max_blocks in ((True, None), (False, None), (True, 20)):
                if d := differences(page, context=context, max_blocks=max_blocks):
                    bad[(pool, gold.page_id, context, max_blocks)] = d
    assert seen == 40 * len(POOLS)
    assert bad == {}


def test_the_compiled_walk_is_the_one_in_use(monkeypatch):
    # CI must not pass on the fallback alone: the build (setup.py) compiles the C walk where gcc is found
    assert os.environ.get("PAGESIEVE_PURE_PYTHON", "0") in ("", "0"), "unset PAGESIEVE_PURE_PYTHON to test the C walk"
    assert dom._cwalk is not None, "the C walk is not built: pip install -e . (needs gcc and lxml's headers)"
    assert dom._collapse_dom is dom._c_collapse
    monkeypatch.setenv("PAGESIEVE_PURE_PYTHON", "1")
    assert dom._load_c_walk() is None
    monkeypatch.setenv("PAGESIEVE_PURE_PYTHON", "0")
    assert dom._load_c_walk() is not None
