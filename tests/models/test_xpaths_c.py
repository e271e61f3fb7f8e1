"""`xpaths_of` in C (`xpaths_of` of models/web2text/_cwalk.c) against the Python version it replaces and against
libxml2's getpath, the strings both must give: real pages, hand-made edge trees, inputs the C one hands back."""

from __future__ import annotations

import gc
import itertools
import os
import time
import tracemalloc

import pytest
from lxml import etree

from pagesieve.eval import iter_gold_pages
from pagesieve.models.page import dom, parse_page, xpath_of
from pagesieve.models.web2text.dom import page_blocks

POOLS = ("cleaneval", "scrapinghub", "l3s-gn1", "dragnet", "readability", "google-trends-2017", "wcxb",
         "trafilatura-eval")


def assert_all_equal(elements: list) -> None:
    """C, Python and getpath give the same strings, C's `str` objects included."""
    c, py = dom._c_xpaths_of(elements), dom._python_xpaths_of(elements)
    assert c == py == [xpath_of(e) for e in elements]
    assert all(type(p) is str for p in c)


def every_element(root: etree._Element) -> list[etree._Element]:
    return [e for e in root.iter() if isinstance(e.tag, str)]


def test_the_compiled_xpaths_of_is_the_one_in_use(monkeypatch):
    # CI must not pass on the fallback alone: the build (setup.py) compiles _cwalk where gcc is found
    assert os.environ.get("PAGESIEVE_PURE_PYTHON", "0") in ("", "0"), "unset PAGESIEVE_PURE_PYTHON to test the C one"
    assert dom._cwalk is not None, "_cwalk is not built: pip install -e . (needs gcc and lxml's headers)"
    assert dom._xpaths_of is dom._c_xpaths_of
    monkeypatch.setenv("PAGESIEVE_PURE_PYTHON", "1")
    assert dom.load_c_walk() is None
    monkeypatch.setenv("PAGESIEVE_PURE_PYTHON", "0")
    assert dom.load_c_walk() is not None


def test_every_element_of_real_pages_in_any_order(shared_data):
    for pool in POOLS:
        for gold in itertools.islice(iter_gold_pages(shared_data / pool), 3):
            elements = every_element(parse_page(gold.html, url=gold.url).root)
            assert_all_equal(elements[::-1][::3] + elements)     # repeats, children before and after parents


@pytest.mark.slow
def test_every_block_holder_of_forty_pages_of_each_pool(shared_data):
    seen = 0
    for pool in POOLS:
        for gold in itertools.islice(iter_gold_pages(shared_data / pool), 40):
            blocks = page_blocks(parse_page(gold.html, url=gold.url))
            assert_all_equal([blocks.cdom.holder[k] for k in blocks.node])
            seen += 1
    assert seen == 40 * len(POOLS)


@pytest.mark.parametrize("markup", [
    b"<html><body><div><!--c--><p>a</p><?pi x?><p>b</p><!--d--><span/><p>c</p></div></body></html>",
    b"<html><body><p>a</p><svg><g><path/><path/></g><title>t</title></svg><math><mi/><mi/></math></body></html>",
    b"<html><body><fb:like/><fb:like/><o:p>x</o:p><div><fb:like/></div></body></html>",   # ':' in an HTML name
    b"<html><body><table><tr><td>1</td><td>2</td></tr><tr><td>3</td></tr></table></body></html>",
    "<html><body><caf\u00e9>x</caf\u00e9><caf\u00e9/><\u0436/></body></html>".encode(),
    b"<p>bare</p><p>fragment</p>",
])
def test_html_edge_trees(markup):
    assert_all_equal(every_element(parse_page(markup).root))


def test_namespaced_elements_beside_same_named_plain_ones():
    # libxml2 numbers a plain <p> among plain <p>s only, prefixed ones among the same prefix, and writes "*" for a
    # default-namespace element, counted among all its element siblings: the C one leaves those to getpath
    root = etree.fromstring(
        '<r xmlns:a="u" xmlns:b="u"><p/><a:p/><p/><b:p/><!--c--><q xmlns="v"><z/><z/></q><q/>'
        '<svg xmlns="http://www.w3.org/2000/svg"><g/><g/></svg><p><a:x><y/><y/></a:x></p></r>')
    elements = every_element(root)
    assert_all_equal(elements)
    assert dom._c_xpaths_of(elements)[:6] == ["/r", "/r/p[1]", "/r/a:p", "/r/p[2]", "/r/b:p", "/r/*[5]"]


@pytest.mark.parametrize("markup", [
    b"<html><body><p>a</p></body></html><html><body><p>b</p><p>c</p></body></html>",
    b"<!DOCTYPE html><html><body><p>a</p></body></html><!--x--><p>b</p>",
])
def test_markup_after_the_end_of_html_makes_a_second_top_level_html(markup):
    # libxml2's HTML parser adds a second <html> beside the root, and getpath numbers them, "/html[1]/body/p[1]"
    # (5 of the first 40 pages of each benchmark pool); the root's own path is numbered too. The page model
    # moves that <html>'s content into the root's body, as a browser would, and leaves it there, empty
    root = parse_page(markup).root
    tops = [root, *root.itersiblings()]
    assert [t.tag for t in tops if isinstance(t.tag, str)] == ["html", "html"]
    elements = [e for top in tops if isinstance(top.tag, str) for e in top.iter() if isinstance(e.tag, str)]
    assert_all_equal(elements)
    assert dom._c_xpaths_of([root, root[-1][0], root[-1][-1]]) == ["/html[1]", "/html[1]/body/p[1]",
                                                                  f"/html[1]/body/p[{len(root[-1])}]"]


def test_xhtml_in_the_default_namespace_is_all_getpath():
    root = etree.fromstring('<html xmlns="http://www.w3.org/1999/xhtml"><body><p/><p/><div/></body></html>')
    assert_all_equal(every_element(root))
    assert dom._c_xpaths_of(every_element(root))[-1] == "/*/*/*[3]"


def test_twenty_thousand_same_tag_children_in_linear_time():
    root = parse_page(b"<html><body>" + b"<p>x</p>" * 20000 + b"<div><p>y</p></div></body></html>").root
    elements = every_element(root)
    start = time.perf_counter()
    paths = dom._c_xpaths_of(elements)
    c_seconds = time.perf_counter() - start
    assert paths == dom._python_xpaths_of(elements)
    sample = elements[-500:]                                 # getpath: each counts ~20,000 siblings
    start = time.perf_counter()
    expected = [xpath_of(e) for e in sample]
    getpath_seconds = time.perf_counter() - start
    assert paths[-500:] == expected
    assert paths[-3:] == ["/html/body/p[20000]", "/html/body/div", "/html/body/div/p"]
    # all 20,002 in C against 500 by getpath: ~10 ms against ~110 ms on the development VM
    assert c_seconds < getpath_seconds


def test_a_deep_chain():
    root = etree.Element("r")
    node = root
    for i in range(3000):
        node = etree.SubElement(node, "d" if i % 2 else "e")
        etree.SubElement(node.getparent(), "d" if i % 2 else "e")      # a same-name sibling at every level
    elements = every_element(root)
    sample = elements[::97] + elements[-3:]
    assert dom._c_xpaths_of(elements) == dom._python_xpaths_of(elements)
    assert_all_equal(sample)


def test_the_root_detached_elements_and_two_trees_in_one_call():
    root = parse_page(b"<html><body><div><p>a</p><p>b</p></div><span/></body></html>").root
    div = root.find(".//div")
    p2 = div[1]
    root.find("body").remove(div)                           # its own top now: "/div", "/div/p[2]"
    other = etree.Element("x")
    y1, y2 = etree.SubElement(other, "y"), etree.SubElement(other, "y")
    elements = [root, div, p2, root.find(".//span"), y2, other, y1, root]
    assert_all_equal(elements)
    assert dom._c_xpaths_of(elements) == ["/html", "/div", "/div/p[2]", "/html/body/span", "/x/y[2]", "/x",
                                          "/x/y[1]", "/html"]


def test_empty_input_and_any_iterable():
    root = parse_page(b"<html><body><p>a</p><p>b</p></body></html>").root
    assert dom._c_xpaths_of([]) == dom._python_xpaths_of([]) == []
    assert dom._c_xpaths_of(e for e in root.iter("p")) == ["/html/body/p[1]", "/html/body/p[2]"]
    assert dom._c_xpaths_of(tuple(root.iter("p"))) == ["/html/body/p[1]", "/html/body/p[2]"]


@pytest.mark.parametrize("bad", ["comment in a tree", "lone comment", "string", "none"])
def test_what_is_not_an_element_fails_as_in_the_python_version(bad):
    root = parse_page(b"<html><body><p>a<!--c--></p></body></html>").root
    item = {"comment in a tree": next(root.iter(etree.Comment), None), "lone comment": etree.Comment("x"),
            "string": "p", "none": None}[bad]
    elements = [root.find(".//p"), item]
    errors = []
    for function in (dom._c_xpaths_of, dom._python_xpaths_of):
        with pytest.raises(Exception) as info:
            function(elements)
        errors.append((type(info.value), str(info.value)))
    assert errors[0] == errors[1]


def test_no_memory_kept_across_calls(shared_data):
    gold = next(iter_gold_pages(shared_data / "wcxb"))
    root = parse_page(gold.html, url=gold.url).root
    elements = every_element(root)
    namespaced = every_element(etree.fromstring('<r xmlns:a="u"><a:p/><p/><p/></r>'))
    for _ in range(20):                                      # warm: lxml's proxies, interned strings
        dom._c_xpaths_of(elements)
        dom._c_xpaths_of(namespaced)
    gc.collect()
    tracemalloc.start()                                      # _cwalk allocates with PyMem_*: tracemalloc sees it
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(300):
            dom._c_xpaths_of(elements)
            dom._c_xpaths_of(namespaced)
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 64 * 1024, grown
