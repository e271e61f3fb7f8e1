"""The class and id words of the context bits found in C (models/page/_cwords.c) against the regular expressions
they replace: the same bits on every class and id value of real pages of the eight pools, and on made-up values
built from the words themselves (overlaps, `\\bad\\b` at word edges, upper case, non-ASCII)."""

from __future__ import annotations

import itertools
import os
import random

import pytest

from pagesieve.eval import iter_gold_pages
from pagesieve.models.page import context, parse_page
from pagesieve.models.page.native import load_native

POOLS = ("cleaneval", "scrapinghub", "l3s-gn1", "dragnet", "readability", "google-trends-2017", "wcxb",
         "trafilatura-eval")


def bits_by_regex(value: str) -> int:
    """What `_word_bits` answered before the C search: one regular expression per group of words."""
    if value.isascii():
        value = value.lower()
        return sum(bit for bit, pattern in context._ASCII_WORD_PATTERNS if pattern.search(value))
    return sum(bit for bit, pattern in context._WORD_PATTERNS if pattern.search(value))


def test_the_c_search_is_the_one_in_use(monkeypatch):
    # CI must not pass on the fallback alone: the build (setup.py) compiles _cwords where gcc is found
    assert os.environ.get("PAGESIEVE_PURE_PYTHON", "0") in ("", "0"), "unset PAGESIEVE_PURE_PYTHON to test the C one"
    assert context._cwords is not None, "_cwords is not built: pip install -e ."
    monkeypatch.setenv("PAGESIEVE_PURE_PYTHON", "1")
    assert load_native("page._cwords") is None
    monkeypatch.setattr(context, "_cwords", None)          # the Python path answers too
    assert context._word_bits("post-content comment-list") == bits_by_regex("post-content comment-list") != 0


def test_the_same_bits_as_the_regular_expressions_on_real_pages(shared_data):
    values = set()
    for pool in POOLS:
        for gold in itertools.islice(iter_gold_pages(shared_data / pool), 15):
            for element in parse_page(gold.html, url=gold.url).root.iter():
                if isinstance(element.tag, str):
                    values.update(v for v in (element.get("class"), element.get("id")) if v)
    assert len(values) > 5_000
    assert [v for v in values if context._word_bits(v) != bits_by_regex(v)] == []
    assert sum(1 for v in values if context._word_bits(v)) > 1_000        # not a set of values that match nothing


def test_the_same_bits_on_values_made_of_the_words():
    words = [w for _, group in context._WORDS for w in group if context._PLAIN.fullmatch(w)]
    pieces = [*words, "ad", "AD", "Ad", "x", "-", "_", " ", ".", "é", "K", "\u212a"]   # the Kelvin sign folds to k
    rng = random.Random(0)
    values = {"".join(rng.choice(pieces) for _ in range(rng.randrange(1, 5))) for _ in range(20_000)}
    values |= {"ad", "a d", "bad", "ad-x", "x_ad", "ad1", "head", "replies", "REPLY", "side-bar", "sidebar", ""}
    differ = [v for v in values if context._word_bits(v) != bits_by_regex(v)]
    assert differ == []
    assert context._word_bits("the ad") & context.CONTEXT_BIT["words_boilerplate"]
    assert not context._word_bits("bad_x") & context.CONTEXT_BIT["words_boilerplate"]


def test_configure_refuses_what_it_cannot_search():
    cwords = load_native("page._cwords")
    with pytest.raises(ValueError, match="empty"):
        cwords.configure([(1, "")])
    assert cwords.literal_bits("post-content") == bits_by_regex("post-content")     # the table is unchanged
