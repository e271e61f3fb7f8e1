"""AMBER's ablations (models/amber/ablation.py): each half of the evidence alone finds the records of a regular
list, and each is fooled by the noise the other half removes (a menu for structure, a stray price for the
annotations), where AMBER is not."""

from __future__ import annotations

import time

import pytest

from pagesieve.models.amber.ablation import ABLATIONS, annotation_records, structure_records
from pagesieve.models.page import parse_page
from pagesieve.models.registry import build_method

RECORDS = "".join(f"""
  <li><h2><a href="/p/{i}">Oak table {i}</a></h2><p class="price">£{i}00</p>
      <p>Solid oak, seats {i + 3}</p></li>""" for i in range(1, 5))
LIST = f'<div class="main"><ul class="results">{RECORDS}</ul></div>'
MENU = '<div class="nav"><ul>' + "".join(f'<li><a href="/c/{c}">{c}</a></li>' for c in
                                         ("Tables", "Chairs", "Sofas", "Beds", "Lamps", "Rugs")) + "</ul></div>"
# a delivery note two levels above the list: its price is the noise
STRAY_PRICE = '<div class="footer"><p>Delivery from £4.95</p></div>'


def _body(markup: str):
    return parse_page(f"<html><body>{markup}</body></html>".encode()).body


def _paths(areas) -> list[list[str]]:
    return [[r[0].getroottree().getpath(r[0]) for r in records] for records in areas]


def _prices(body):
    return [p for p in body.iter("p") if p.get("class") == "price"]


LIST_ITEMS = [f"/html/body/div/ul/li[{i}]" for i in range(1, 5)]


def test_structure_alone_finds_the_records_of_a_regular_list():
    assert _paths(structure_records(_body(LIST))) == [LIST_ITEMS]


def test_annotations_alone_find_the_records_of_a_regular_list():
    body = _body(LIST)
    assert _paths(annotation_records(body, _prices(body))) == [LIST_ITEMS]


def test_structure_alone_is_fooled_by_a_longer_menu():
    # six menu items are a longer run than four listings: structure cannot tell which run holds results
    assert _paths(structure_records(_body(MENU + LIST))) == [[f"/html/body/div[1]/ul/li[{i}]" for i in range(1, 7)]]


def test_annotations_alone_are_fooled_by_one_stray_price():
    body = _body(LIST + STRAY_PRICE)
    pivots = [*_prices(body), body.find(".//div[@class='footer']/p")]
    # the common ancestor of the list's prices and the stray one is the body: its children are the records
    assert _paths(annotation_records(body, pivots)) == [["/html/body/div[1]", "/html/body/div[2]"]]


@pytest.mark.parametrize("mode, expected", [
    ("amber", [f"/html/body/div[2]/ul/li[{i}]" for i in range(1, 5)]),
    ("structure", [f"/html/body/div[1]/ul/li[{i}]" for i in range(1, 7)]),
    ("annotations", ["/html/body/div[2]", "/html/body/div[3]"]),
])
def test_amber_modes_on_a_page_with_a_menu_and_a_stray_price(mode, expected):
    page = f"<html><body>{MENU}{LIST}{STRAY_PRICE}</body></html>".encode()
    amber = build_method("amber", {"schema": "products", "mode": mode}, kind="extractor")
    result = amber.process(parse_page(page))
    assert [r.xpath for r in result.records] == expected


def test_structure_ignores_invisible_repeats_and_skips_empty_separators():
    options = "<select>" + "<option>x</option>" * 20 + "</select>"
    spaced = LIST.replace("</li>", '</li><li class="sep"></li>')
    areas = structure_records(_body(options + spaced))
    assert _paths(areas) == [[f"/html/body/div/ul/li[{i}]" for i in range(1, 9, 2)]]


def test_annotations_need_two_pivot_nodes():
    body = _body(LIST)
    first = _prices(body)[0]
    assert annotation_records(body, []) == []
    assert annotation_records(body, [first, first]) == []       # one node annotated twice is one pivot


def test_a_pivot_at_the_common_ancestor_has_no_leading_node():
    body = _body(LIST)
    ul = body.find(".//ul")
    assert _paths(annotation_records(body, [ul, *_prices(body)])) == [LIST_ITEMS]


@pytest.mark.slow  # a 50,000-item page
def test_fifty_thousand_items_stay_fast():
    items = "".join(f'<li><a href="/p/{i}">Item {i}</a><span class="price">£{i}</span></li>' for i in range(50_000))
    body = _body(f"<div><p>Results</p><ul>{items}</ul></div>")
    pivots = list(body.iter("span"))
    start = time.perf_counter()
    found = {mode: ABLATIONS[mode](body, pivots) for mode in ("structure", "annotations")}
    elapsed = time.perf_counter() - start
    assert [len(records) for records in found["structure"]] == [50_000]
    assert [len(records) for records in found["annotations"]] == [50_000]
    # linear walks: about a second on one core; the bound is loose for a shared test machine
    assert elapsed < 30, elapsed
