"""Dataset readers on the real shared data and on small folders / JSONL files built in tmp_path."""

from __future__ import annotations

import gzip
import json
import logging
import re
import shutil
from pathlib import Path

import pytest

from pagesieve.data import data_root
from pagesieve.eval.datasets import (
    clean_annotated_gold,
    dataset_name,
    decode_utf8_cp1252,
    describe_dataset,
    iter_gold_pages,
)

DATA = data_root()
CLEANEVAL = DATA / "cleaneval"
SCRAPINGHUB = DATA / "scrapinghub"
WCXB = DATA / "wcxb"
TRAFILATURA_EVAL = DATA / "trafilatura-eval"

# the conftest fixture fails (never skips) when the shared data folder is missing: CI must have it
needs_data = pytest.mark.usefixtures("shared_data")


# --- the real shared datasets --------------------------------------------------------------------


@pytest.mark.slow  # reads all 737 CleanEval pages
@needs_data
def test_cleaneval_pages_and_splits():
    info = describe_dataset(CLEANEVAL)
    assert (info["name"], info["layout"], info["pages"], info["skipped"]) == ("cleaneval", "shared", 737, 0)
    assert "web2text_test" in info["splits"]
    pages = list(iter_gold_pages(CLEANEVAL))
    assert len(pages) == 737 and len({p.page_id for p in pages}) == 737
    assert [p.page_id for p in pages[:3]] == ["1", "2", "3"]  # numeric-looking order
    first = pages[0]
    assert first.url == "http://1-las-vegas-real-estate.com/homes/sellers/list_today/"
    assert not first.html.lstrip().startswith(b"<text")  # CleanEval wrapper removed
    assert first.gold.startswith("If you feel it's time to start taking action")
    assert {p.page_id for p in pages if not p.gold} == {"32", "278", "329", "690", "697", "707", "795"}

    sizes = {s: len(list(iter_gold_pages(CLEANEVAL, s))) for s in info["splits"]}
    assert (sizes["web2text_train"], sizes["web2text_validation"], sizes["web2text_test"]) == (531, 58, 148)
    assert (sizes["cleaneval_train"], sizes["cleaneval_validation"], sizes["cleaneval_test"]) == (56, 5, 676)
    w2t = [{p.page_id for p in iter_gold_pages(CLEANEVAL, f"web2text_{s}")} for s in ("train", "validation", "test")]
    assert set.union(*w2t) == {p.page_id for p in pages} and sum(map(len, w2t)) == 737  # a partition


@needs_data
def test_scrapinghub_pages():
    info = describe_dataset(SCRAPINGHUB)
    assert (info["name"], info["layout"], info["pages"], info["splits"]) == (
        "scrapinghub", "shared", 103, ["fit", "test", "train", "validation"])
    pages = list(iter_gold_pages(SCRAPINGHUB))
    assert len(pages) == 103   # 24 until 2026-11-26, when 79 pages were added (their split is issue 40's)
    assert all(len(p.page_id) == 64 and p.url and p.url.startswith("http") for p in pages)
    assert all(p.gold.strip() and p.html for p in pages)


@pytest.mark.slow  # all 737 CleanEval gold files
@needs_data
def test_clean_annotated_gold_matches_cleaneval_gold(capsys):
    """clean_annotated_gold on every annotated CleanEval file against the shipped gold/<id>.txt."""
    ids = sorted((p.stem for p in (CLEANEVAL / "gold").glob("*.txt")), key=int)
    assert len(ids) == 737
    differ, differ_strict = [], []
    for page_id in ids:
        ours = clean_annotated_gold(decode_utf8_cp1252((CLEANEVAL / "gold-annotated" / f"{page_id}.txt").read_bytes()))
        gold = (CLEANEVAL / "gold" / f"{page_id}.txt").read_text("utf-8")
        if ours != gold:
            differ_strict.append(page_id)
        if [ln.rstrip() for ln in ours.strip().split("\n")] != [ln.rstrip() for ln in gold.strip().split("\n")]:
            differ.append(page_id)
    with capsys.disabled():
        print(
            f"\nclean_annotated_gold: {len(ids) - len(differ)}/{len(ids)} equal (trailing white space "
            f"normalised), {len(ids) - len(differ_strict)}/{len(ids)} byte-equal; differing: {differ}"
        )
    assert len(ids) - len(differ) >= 0.95 * len(ids)


# --- clean_annotated_gold / decode_utf8_cp1252 on hand-made input --------------------------------


def test_clean_annotated_gold_rules():
    text = (
        "\ufeff\n\nURL: http://example.com/x\n\n   \n"
        "<h>  A   Title\n"
        "__________\n"  # rule line of 10 underscores: dropped
        "<P>First paragraph that was\n   hard-wrapped <CR> here.\n"
        "\n"
        "Second one after a blank line\n"
        "----------------\n"
        "<l>  * star bullet <L>» guillemet bullet\n"
        "<l>12. numbered\n"
        "<l>2.8 GHz stays\n"
        "<l>2.a stays\n"
        "<l>1.\n"
        "<p>- short dash line kept ---\n"
        "<l>123. three digits stay\n"
        "<l>Buy 2 * 3 (a star inside the item stays)\n"
    )
    assert clean_annotated_gold(text) == (
        "A Title\n"
        "First paragraph that was hard-wrapped <CR> here.\n"
        "Second one after a blank line\n"
        "star bullet\n"
        "guillemet bullet\n"
        "numbered\n"
        "2.8 GHz stays\n"
        "2.a stays\n"
        "1.\n"
        "- short dash line kept ---\n"
        "123. three digits stay\n"
        "Buy 2 * 3 (a star inside the item stays)\n"
    )
    assert clean_annotated_gold("URL: http://a/\n\n  \n") == ""
    assert clean_annotated_gold("no markers\nat all\r\n\r\nnext") == "no markers at all\nnext\n"


def test_decode_utf8_cp1252():
    # valid UTF-8 kept; lone high bytes read as Windows-1252; 0x81 (undefined there) as U+0081
    data = "café € ".encode() + b"\x93q\x94 caf\xe9 \x81"
    assert decode_utf8_cp1252(data) == "café € \u201cq\u201d café \x81"


@pytest.mark.slow  # reads all 1,497 gzipped pages
@needs_data
def test_wcxb_gzipped_inputs_plain_gold_and_snippets_from_gold_json():
    info = describe_dataset(WCXB)
    assert (info["name"], info["layout"], info["pages"], info["skipped"]) == ("wcxb", "shared", 1497, 0)
    pages = list(iter_gold_pages(WCXB))
    assert len(pages) == 1497 and [p.page_id for p in pages[:2]] == ["0001", "0002"]
    first = pages[0]
    assert first.html == gzip.decompress((WCXB / "input" / "0001.html.gz").read_bytes())
    assert first.gold.startswith("Fall isn't just pumpkin spice season")
    assert first.url.startswith("https://scratchculinary.com/2025/09/04/")
    assert first.meta["page_type"] == "article"
    assert first.snippets.without == ("Home", "Login", "Order Now", "Chef's Choice Menu Previews")
    assert len(first.snippets.with_) == 3
    # 15 gold-json records have neither with nor without passages: no snippet gold there
    assert sum(p.snippets is None for p in pages) == 15
    assert {p.meta["page_type"] for p in pages} == {"article", "forum", "product", "listing", "collection",
                                                    "documentation", "service"}


@needs_data
def test_trafilatura_eval_snippet_only_folder():
    info = describe_dataset(TRAFILATURA_EVAL)
    assert (info["name"], info["layout"], info["pages"], info["skipped"]) == ("trafilatura-eval", "snippets", 410, 0)
    pages = list(iter_gold_pages(TRAFILATURA_EVAL))
    assert len(pages) == 410 and all(p.gold is None and p.snippets and p.html for p in pages)
    radon = next(p for p in pages if p.page_id == "bfs.de-radon")
    assert radon.html.startswith(b"<!doctype html>")
    assert radon.snippets.without[-1] == "Wie bewerten Sie diesen Artikel?"
    languages: dict[str, int] = {}
    for p in pages:
        languages[p.meta["language"]] = languages.get(p.meta["language"], 0) + 1
    # the README's counts: de 355, es 25, pl 9, fr 8, pt 5, zh 3, one page each of it, ar, ja, no, ru
    assert (languages["de"], languages["es"], languages["pl"], len(languages)) == (355, 25, 9, 11)


# --- other layouts built in tmp_path -------------------------------------------------------------


def test_byo_folder_skips_pages_without_gold(tmp_path, caplog):
    (tmp_path / "input").mkdir()
    (tmp_path / "gold").mkdir()
    for name in ("b", "a", "c"):
        (tmp_path / "input" / f"{name}.html").write_bytes(f"<html><p>page {name}</p></html>".encode())
    (tmp_path / "gold" / "a.txt").write_text("page a", "utf-8")
    (tmp_path / "gold" / "c.txt").write_text("\ufeffpage c", "utf-8")  # a BOM is dropped
    with caplog.at_level(logging.WARNING, logger="pagesieve.eval.datasets"):
        pages = list(iter_gold_pages(tmp_path))
    assert [(p.page_id, p.url, p.gold) for p in pages] == [("a", None, "page a"), ("c", None, "page c")]
    assert pages[0].html == b"<html><p>page a</p></html>"
    assert "1 page(s) without gold skipped: b" in caplog.text
    info = describe_dataset(tmp_path)
    assert (info["layout"], info["pages"], info["skipped"], info["skipped_ids"]) == ("folder", 2, 1, ["b"])


def test_jsonl_dataset(tmp_path, caplog):
    path = tmp_path / "mypages.jsonl"
    rows = [
        {"url": "http://x/1", "html": "<p>één</p>", "text": "één"},
        {"id": "custom", "url": None, "html": "<p>two</p>", "text": "two"},
        {"url": "http://x/3", "html": "<p>no gold</p>"},  # no "text": skipped
    ]
    lines = [json.dumps(rows[0], ensure_ascii=False), "", json.dumps(rows[1]), json.dumps(rows[2])]
    path.write_text("\n".join(lines) + "\n", "utf-8")
    with caplog.at_level(logging.WARNING, logger="pagesieve.eval.datasets"):
        pages = list(iter_gold_pages(path))
    # default ids are 1-based line numbers; the blank line 2 still counts
    assert [(p.page_id, p.url, p.gold) for p in pages] == [("1", "http://x/1", "één"), ("custom", None, "two")]
    assert pages[0].html == "<p>één</p>".encode()
    assert "without gold skipped: 4" in caplog.text
    info = describe_dataset(path)
    assert (info["name"], info["layout"], info["pages"], info["skipped"]) == ("mypages", "jsonl", 2, 1)
    with pytest.raises(ValueError, match="no splits"):
        iter_gold_pages(path, "train")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"html": "<p>x</p>", "text": "x"}\n{not json\n', "utf-8")
    with pytest.raises(ValueError, match=r"bad.jsonl:2"):
        iter_gold_pages(bad)


@needs_data
def test_annotated_only_folder(tmp_path):
    # 1: URL line and <l> bullets; 15: mixed UTF-8/Windows-1252 bytes; 412: BOM and lone "1." items
    ids = ["1", "15", "412"]
    for sub in ("input", "gold-annotated"):
        (tmp_path / sub).mkdir()
    for page_id in ids:
        shutil.copy(CLEANEVAL / "input" / f"{page_id}.html", tmp_path / "input")
        shutil.copy(CLEANEVAL / "gold-annotated" / f"{page_id}.txt", tmp_path / "gold-annotated")
    assert describe_dataset(tmp_path)["layout"] == "annotated"
    pages = {p.page_id: p for p in iter_gold_pages(tmp_path)}
    assert sorted(pages, key=int) == ids
    real = {p.page_id: p for p in iter_gold_pages(CLEANEVAL) if p.page_id in ids}
    for page_id in ids:
        assert pages[page_id].gold == real[page_id].gold
        assert pages[page_id].html == real[page_id].html
    assert pages["1"].url == real["1"].url  # from the URL: line, there being no meta.jsonl


def test_snippet_folder_with_gzipped_inputs(tmp_path, caplog):
    for sub in ("input", "gold-snippets"):
        (tmp_path / sub).mkdir()
    (tmp_path / "input" / "z.html.gz").write_bytes(gzip.compress(b"<p>zipped</p>"))
    (tmp_path / "input" / "p.html").write_bytes(b"<p>plain</p>")
    (tmp_path / "input" / "n.html").write_bytes(b"<p>no gold</p>")
    (tmp_path / "gold-snippets" / "z.json").write_text(json.dumps({"with": ["zipped"], "without": ["menu"]}))
    (tmp_path / "gold-snippets" / "p.json").write_text(json.dumps({"with": ["plain"], "without": []}))
    (tmp_path / "meta.jsonl").write_text(json.dumps({"id": "z", "url": "http://z.test/", "language": "de"}) + "\n")
    with caplog.at_level(logging.WARNING, logger="pagesieve.eval.datasets"):
        pages = list(iter_gold_pages(tmp_path))
    assert [(p.page_id, p.html, p.gold, p.url) for p in pages] == [
        ("p", b"<p>plain</p>", None, None), ("z", b"<p>zipped</p>", None, "http://z.test/")]
    assert (pages[0].snippets.with_, pages[0].snippets.without, pages[0].meta) == (("plain",), (), {})
    assert pages[1].meta["language"] == "de"
    assert "1 page(s) without gold skipped: n" in caplog.text
    assert describe_dataset(tmp_path)["layout"] == "snippets"
    (tmp_path / "gold-snippets" / "p.json").write_text(json.dumps({"with": "plain"}))
    with pytest.raises(ValueError, match=r"p.json: \"with\" and \"without\" must be lists of strings"):
        list(iter_gold_pages(tmp_path))


def test_bad_paths(tmp_path, shared_data, monkeypatch):
    with pytest.raises(ValueError, match="does not exist; accepted layouts"):
        iter_gold_pages(tmp_path / "missing")
    # a bare name (`--dataset wcxb` run from elsewhere) is not looked up, but the error names the data set it meant
    monkeypatch.chdir(tmp_path)
    meant = re.escape(f"wcxb does not exist (a data set of that name: {data_root() / 'wcxb'})")
    with pytest.raises(ValueError, match=meant):
        iter_gold_pages(Path("wcxb"))
    (tmp_path / "stuff").mkdir()
    (tmp_path / "stuff" / "page.html").write_text("<p>x</p>")
    with pytest.raises(ValueError, match="is not a dataset; accepted layouts.*gold-annotated.*jsonl"):
        iter_gold_pages(tmp_path / "stuff")
    with pytest.raises(ValueError, match="accepted layouts"):
        describe_dataset(tmp_path / "stuff")
    (tmp_path / "ds" / "input").mkdir(parents=True)
    (tmp_path / "ds" / "gold").mkdir()
    with pytest.raises(ValueError, match="no split 'train'"):
        iter_gold_pages(tmp_path / "ds", "train")
    (tmp_path / "ds" / "splits").mkdir()
    (tmp_path / "ds" / "splits" / "train.txt").write_text("p1\np2\n")
    (tmp_path / "ds" / "input" / "p1.html").write_text("<p>one</p>")
    (tmp_path / "ds" / "gold" / "p1.txt").write_text("one")
    (tmp_path / "ds" / "gold" / "p2.txt").write_text("two")
    with pytest.raises(ValueError, match="'p2' is listed but input/p2.html is missing"):
        iter_gold_pages(tmp_path / "ds", "train")


def test_dataset_name(tmp_path):
    assert dataset_name(f"{CLEANEVAL}/") == "cleaneval"
    assert dataset_name(tmp_path / "sub" / "pages.jsonl") == "pages"
    assert dataset_name(tmp_path) == tmp_path.name


@needs_data
def test_the_projects_fixed_splits_cover_each_pool_once():
    """conf/splits (scripts/train/make_splits.py): train and test are disjoint and together every page with gold;
    fit and validation cut train."""
    for pool, test_size in (("l3s-gn1", 126), ("dragnet", 142), ("readability", 28), ("google-trends-2017", 34),
                            ("scrapinghub", 17)):
        root = CLEANEVAL.parent / pool
        train = {p.page_id for p in iter_gold_pages(root, "train")}
        test = {p.page_id for p in iter_gold_pages(root, "test")}
        assert len(test) == test_size and not train & test
        assert train | test == {p.page_id for p in iter_gold_pages(root)}
        fit = {p.page_id for p in iter_gold_pages(root, "fit")}
        validation = {p.page_id for p in iter_gold_pages(root, "validation")}
        assert fit | validation == train and not fit & validation and validation
