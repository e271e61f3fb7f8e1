"""Quality gate: each method's mean F1 on fixed benchmark subsets (and, where pinned, its block-level F1) must
stay above the floors in tests/quality_floors.json (BoW and shingle F1 where the gold is text, snippet F1 where it is
passages) (raising a floor is routine; lowering one is a reviewed change)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pagesieve.eval import iter_gold_pages
from pagesieve.eval.harness import build_methods, evaluate_pages
from pagesieve.eval.report import summarise

FLOORS = json.loads((Path(__file__).with_name("quality_floors.json")).read_text())
CASES = [(method, subset, floor) for method, subsets in FLOORS.items() if not method.startswith("_")
         for subset, floor in subsets.items()]


@pytest.mark.parametrize(("method", "subset", "floor"), CASES, ids=[f"{m}-{s}" for m, s, _ in CASES])
@pytest.mark.slow
def test_method_stays_above_its_floor(method, subset, floor, shared_data):
    dataset, _, split = subset.partition(":")
    pages = list(iter_gold_pages(shared_data / dataset, split or None))
    methods, skipped = build_methods([method])
    assert not skipped, skipped
    blocks = "block_f1" in floor
    summary = summarise(evaluate_pages(dataset, pages, methods, warmup=0, blocks=blocks))[dataset][method]
    measured = {"bow_f1_mean": lambda: summary["bag_of_words"]["mean"]["f1"],
                "shingle_f1_aeb": lambda: summary["shingles"]["aeb"]["f1"],
                "block_f1": lambda: summary["blocks"]["f1"],
                "snippet_f1": lambda: summary["snippets"]["f1"]}   # snippet gold: trafilatura's protocol
    assert set(floor) <= set(measured), f"unknown floor keys {set(floor) - set(measured)}"
    for key, value in floor.items():
        assert measured[key]() >= value, f"{method} on {subset}: {key} {measured[key]():.4f} < floor {value}"
