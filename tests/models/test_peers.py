"""Every registered method, ours and the peers, on real article pages through the same interface."""

from __future__ import annotations

import json
import sys

import pytest
from lxml import etree

from pagesieve.data import data_root
from pagesieve.models.page import ParsedPage, parse_page
from pagesieve.models.registry import build_method, method_class, names_of_kind

# every registered cleaner: the peers and ours (extractors are tested in their own files)
METHODS = names_of_kind("cleaner")
# a cleaner that renders the page in Chromium is in the slow tier (as every browser test is)
RENDERED = {name for name in METHODS if method_class(name, "cleaner").needs == "rendered"}
PARAMS = [pytest.param(name, marks=pytest.mark.slow) if name in RENDERED else name for name in sorted(METHODS)]

DATA = data_root() / "scrapinghub"
N_PAGES = 3


def collapse(text: str) -> str:
    return " ".join(text.split())


def needle(gold: str) -> str:
    """The middle 60 characters of the longest gold line, whitespace-collapsed."""
    line = collapse(max(gold.splitlines(), key=len))
    mid = len(line) // 2
    return line[max(0, mid - 30):mid + 30]


@pytest.fixture(scope="module")
def pages() -> list[tuple[ParsedPage, str]]:
    """The first N_PAGES pages by id (a fixed order, not a pick), with their gold text."""
    if not DATA.is_dir():
        pytest.fail(f"the shared data folder is missing: {DATA}")
    metas = sorted((json.loads(line) for line in (DATA / "meta.jsonl").read_text("utf-8").splitlines() if line),
                   key=lambda m: m["id"])[:N_PAGES]
    return [(parse_page((DATA / "input" / f"{m['id']}.html").read_bytes(), url=m["url"], page_id=m["id"]),
             (DATA / "gold" / f"{m['id']}.txt").read_text("utf-8")) for m in metas]


class Results(dict):
    """name -> one CleanResult per page, each method run once (on first use) on the same ParsedPages."""

    def __init__(self, pages: list[tuple[ParsedPage, str]]) -> None:
        super().__init__()
        self.pages = pages

    def __missing__(self, name: str) -> list:
        self[name] = [build_method(name).process(page) for page, _ in self.pages]
        return self[name]


@pytest.fixture(scope="module")
def results(pages) -> Results:
    return Results(pages)


def test_peers_are_registered():
    assert {"cnr", "trafilatura", "trafilatura_precision", "resiliparse", "readability", "justext", "boilerpy3",
            "all_text"} <= set(METHODS)


@pytest.mark.parametrize("name", PARAMS)
def test_method_finds_the_article(name, pages, results):
    method = build_method(name)
    assert method.name == name and isinstance(method.version, int)
    assert method.batched is (name in ("web2text", "blocknet", "blend", "cascade", "consensus"))   # neural: batched
    hits = 0
    for (_, gold), result in zip(pages, results[name], strict=True):
        assert result.status == "ok" and result.text.strip(), (name, result.status)
        hits += needle(gold) in collapse(result.text)
    assert hits >= (N_PAGES if name == "all_text" else N_PAGES - 1), f"{name}: gold sentence on {hits}/{N_PAGES}"


def test_all_text_is_the_longest(results):
    for i in range(N_PAGES):
        everything = len(results["all_text"][i].text)
        assert all(len(results[name][i].text) <= everything for name in METHODS if name not in RENDERED), i


def test_precision_is_no_longer_than_default(results):
    for precise, default in zip(results["trafilatura_precision"], results["trafilatura"], strict=True):
        assert len(precise.text) <= len(default.text)


@pytest.mark.parametrize("name", PARAMS)
def test_process_batch_is_process(name, pages):
    method = build_method(name)
    batch = [page for page, _ in pages[:2]]
    assert method.process_batch(batch) == [method.process(p) for p in batch]


@pytest.mark.parametrize("name", PARAMS)
def test_the_method_leaves_our_tree_alone(name, pages):
    before = [etree.tostring(page.root) for page, _ in pages]
    build_method(name).process_batch([page for page, _ in pages])
    assert [etree.tostring(page.root) for page, _ in pages] == before


@pytest.mark.parametrize(("name", "module", "pip_name"), [("readability", "readability", "readability-lxml"),
                                                          ("justext", "justext", "justext"),
                                                          ("boilerpy3", "boilerpy3", "boilerpy3")])
def test_missing_package_fails_at_construction(monkeypatch, name, module, pip_name):
    monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(ImportError, match=f"pip install {pip_name}"):
        build_method(name)


def test_peer_settings_are_checked_at_construction():
    assert build_method("justext", {"length_high": 150}).settings.length_high == 150
    assert build_method("trafilatura_precision").settings.favor_precision is True
    assert build_method("trafilatura").settings.favor_precision is False
    with pytest.raises(ValueError):
        build_method("justext", {"language": "Klingon"})
    with pytest.raises(ValueError):
        build_method("boilerpy3", {"extractor": "NoSuchExtractor"})


@pytest.mark.slow  # all 103 Scrapinghub pages
def test_resiliparse_wrapper_equals_resiliparse_on_the_raw_page():
    # Regression: fed our tree serialised as XML, resiliparse's HTML5 parser read `<script src=x/>` as an
    # unclosed script and returned empty text on 7 of the 24 pages this folder had then (103 since 2026-11-26).
    from resiliparse.extract.html2text import extract_plain_text
    from resiliparse.parse.html import HTMLTree

    from pagesieve.models.page import decode_body, join_paragraphs

    method = build_method("resiliparse")
    paths = sorted((DATA / "input").glob("*.html"))
    assert len(paths) == 103
    for path in paths:
        body = path.read_bytes()
        raw = join_paragraphs(extract_plain_text(HTMLTree.parse(decode_body(body).text), main_content=True,
                                                 preserve_formatting=True, alt_texts=False, links=False))
        assert method.process(parse_page(body)).text == raw, path.name


def test_readability_reads_a_page_with_a_control_character():
    # Regression: CleanEval 161 holds a vertical tab (U+000B); readability-lxml copied it into a new element and
    # raised Unparseable ("All strings must be XML compatible"), so the peer scored 0 on a page it reads well.
    path = data_root() / "cleaneval" / "input" / "161.html"
    body = path.read_bytes()
    assert b"\x0b" in body
    result = build_method("readability").process(parse_page(body, page_id="161"))
    gold = (data_root() / "cleaneval" / "gold" / "161.txt").read_text("utf-8")
    assert result.status == "ok"
    assert needle(gold) in collapse(result.text)
