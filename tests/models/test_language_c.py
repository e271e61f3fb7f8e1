"""py3langid's feature walk in C (models/page/_clangid.c) against py3langid's own Python walk: the same ranked
languages and scores, to the last bit, on real pages of every pool (German, Spanish, Polish, Chinese, ... in
trafilatura-eval) and on texts at the edges (no feature, astral characters, upper case, lone surrogates)."""

from __future__ import annotations

import itertools
import os

import numpy as np
import pytest
from py3langid.langid import MODEL_FILE, LanguageIdentifier

from pagesieve.eval import iter_gold_pages
from pagesieve.models.page import language, parse_page
from pagesieve.models.page.native import load_native
from pagesieve.models.page.stopwords import _prose_sample
from pagesieve.models.web2text.dom import page_blocks

POOLS = ("cleaneval", "scrapinghub", "l3s-gn1", "dragnet", "readability", "google-trends-2017", "wcxb",
         "trafilatura-eval")
EDGES = ("", " ", "1234 5678 90", "ÄÖÜ ÄÖÜ", "THE QUICK BROWN FOX", "日本語のテキストです。" * 40, "🙂 emoji 🙂 text",
         "x\ud800y", "Ελληνικά κείμενα " * 30, "a" * 5000)


@pytest.fixture(scope="module")
def identifiers() -> tuple[LanguageIdentifier, LanguageIdentifier]:
    python = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    c = language._walk_in_c(LanguageIdentifier).from_model_file(MODEL_FILE, norm_probs=True)
    return python, c


def test_the_compiled_walk_is_the_one_in_use(monkeypatch):
    # CI must not pass on the fallback alone: the build (setup.py) compiles _clangid where gcc is found
    assert os.environ.get("PAGESIEVE_PURE_PYTHON", "0") in ("", "0"), "unset PAGESIEVE_PURE_PYTHON to test the C one"
    assert language._walk_in_c(LanguageIdentifier) is not LanguageIdentifier, "_clangid is not built: pip install -e ."
    monkeypatch.setenv("PAGESIEVE_PURE_PYTHON", "1")
    assert load_native("page._clangid") is None
    assert language._walk_in_c(LanguageIdentifier) is LanguageIdentifier


def test_the_same_ranking_as_py3langid_on_real_pages_and_edges(identifiers, shared_data):
    python, c = identifiers
    texts = list(EDGES)
    for pool in POOLS:
        for gold in itertools.islice(iter_gold_pages(shared_data / pool), 12):
            blocks = page_blocks(parse_page(gold.html, url=gold.url), context=True)
            texts += [_prose_sample(blocks.text, 1000)[:1000], " ".join(blocks.text)[:3000]]
    top = set()
    for text in texts:
        assert c.rank(text) == python.rank(text), text[:80]
        top.add(c.rank(text)[0][0])
    assert {"en", "de", "es", "zh", "ja", "el"} <= top       # the texts cover many languages, not one


def test_the_walk_counts_as_py3langid_and_refuses_tables_it_would_leave():
    from py3langid.langid import visit_counts

    python = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    clangid = load_native("page._clangid")
    nextmove, rowbase = python.tk_nextmove, np.asarray(python._rowbase, dtype=np.uint32)
    output = np.asarray(python.tk_output, dtype=np.int32)
    for text in ("Der schnelle braune Fuchs", "", "zzzz"):
        data = text.encode()
        got = clangid.visit_counts(nextmove, rowbase, output, len(python.nb_ptc), data)
        want = visit_counts(python.tk_nextmove, python._rowbase, python.tk_output, data)
        assert got == want and (got is None or list(got) == list(want))     # same counts, same first-seen order
    with pytest.raises(ValueError, match="leaves its tables"):
        clangid.visit_counts(nextmove, rowbase[:10], output[:10], len(python.nb_ptc), b"hello world")
    with pytest.raises(ValueError, match="4-byte items"):
        clangid.visit_counts(np.asarray(nextmove, dtype=np.int64), rowbase, output, len(python.nb_ptc), b"hi")


def test_language_of_uses_the_c_walk():
    detect = language.build_detector("py3langid")
    assert detect.__closure__ is not None
    identifier = next(cell.cell_contents for cell in detect.__closure__
                      if isinstance(cell.cell_contents, LanguageIdentifier))
    assert type(identifier).__name__ == "CWalkIdentifier"
    assert language.language_of("Das ist ein deutscher Satz über das Wetter in Berlin und München.",
                                language.LanguageID())[0] == "de"
