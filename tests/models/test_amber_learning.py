"""AMBER's gazetteer learning (Algorithm 5, models/amber/learning.py) on hand-built result pages."""

from __future__ import annotations

import json

import pytest

from pagesieve.models.amber import Amber, AmberSettings, load_schema
from pagesieve.models.amber.learning import (
    Evidence,
    LearnedGazetteers,
    components,
    learn_pages,
    load_learned,
    page_evidence,
    save_learned,
)
from pagesieve.models.page import parse_page
from pagesieve.settings import ConfigError

# Four listings with the location in a slot of its own; Witney is not in uk_locations.txt, the other three
# are, so the slot's support (3/4) infers Witney. "Bath" is only in the footer's links: noise for LOCATION.
RECORDS = [("£350,000", "Oxford", "OX3 7AB"), ("£210,000", "Leeds", "LS1 4AP"), ("£295,000", "Witney", "OX28 6BS"),
           ("£495,000", "York", "YO1 7HH")]


def page_html(records=RECORDS, footer=("Bath", "Bath", "Bath")) -> str:
    items = "".join(f'<li><h2><a href="/p/{i}">Lovely family home number {i}</a></h2><p class="price">{price}</p>'
                    f'<p class="where"><span>{place}</span>, <span>{postcode}</span></p><p>3 bedrooms</p></li>'
                    for i, (price, place, postcode) in enumerate(records))
    links = "".join(f'<a href="/area/{i}">Homes in {name}</a> ' for i, name in enumerate(footer))
    return (f"<html><body><div class='nav'><p>Search homes</p></div><ul class='results'>{items}</ul>"
            f"<div class='footer'><div><p>{links}</p></div></div></body></html>")


@pytest.fixture
def learned(tmp_path):
    return tmp_path / "learned" / "real_estate.json"


def test_components_cut_annotated_spans_and_keep_plausible_terms():
    text = "Flat 3, Walton Street | Didsbury M20 2RN"
    cut = [(text.index("M20"), len(text))]
    assert components(text, cut) == ["Walton Street", "Didsbury"]
    assert components("a sentence that is far too long to be a place name") == []


def test_a_location_missing_from_the_gazetteer_is_learned_from_its_aligned_position(learned):
    page = parse_page(page_html().encode())
    before = Amber(AmberSettings(schema="real_estate")).process(page)
    assert [(f.value, f.origin) for r in before.records for f in r.fields if f.name == "location"][2] == \
        ("Witney", "inferred")
    reports = learn_pages([page], learned, schema="real_estate", rounds=3)
    assert reports[0].added["location"] == ("Witney",)
    state = load_learned(learned)
    assert "Witney" in state.added["location"]
    after = Amber(AmberSettings(schema="real_estate", learned=str(learned))).process(page)
    assert [(f.value, f.origin) for r in after.records for f in r.fields if f.name == "location"] == \
        [("Oxford", "annotated"), ("Leeds", "annotated"), ("Witney", "annotated"), ("York", "annotated")]


def test_a_term_that_only_appears_in_noise_is_dropped(learned):
    page = parse_page(page_html().encode())
    amber = Amber(AmberSettings(schema="real_estate"))
    evidence = page_evidence(amber, page)
    assert evidence.noise[("location", "bath")] == 3 and ("location", "bath") not in evidence.genuine
    reports = learn_pages([page], learned, schema="real_estate", rounds=3)
    assert reports[0].dropped["location"] == ("Bath",)
    assert "Bath" not in Amber(AmberSettings(schema="real_estate", learned=str(learned))).annotators[1].terms


def test_one_noise_occurrence_is_not_enough_evidence_to_drop_a_term(learned):
    reports = learn_pages([parse_page(page_html(footer=("Bath",)).encode())], learned, rounds=1)
    assert reports[0].dropped["location"] == ()


def test_a_term_seen_more_often_in_records_than_in_noise_is_kept(learned):
    # Oxford: 3 listings, 3 footer links -> noise 3 <= 1.5 * 3: kept
    records = [("£1", "Oxford", "OX1 1AA")] * 3 + [("£2", "Leeds", "LS1 1AA")]
    reports = learn_pages([parse_page(page_html(records, ("Oxford",) * 3).encode())], learned, rounds=1)
    assert "Oxford" not in reports[0].dropped["location"]


def test_disjointness_keeps_a_term_out_of_a_disjoint_types_gazetteer():
    schema = load_schema("real_estate")         # location ∧ property_type → ⊥
    state = LearnedGazetteers("real_estate")
    evidence = Evidence()
    evidence.add("genuine", "location", "Bungalow", 5)        # in property_types.txt
    evidence.add("genuine", "location", "Witney", 2)
    report = state.update(evidence, schema)
    assert report.added["location"] == ("Witney",)
    # a hand-edited file that adds a property type as a location: the term is not used for LOCATION
    state.added["location"]["Flat"] = None
    assert "Flat" not in state.terms(schema)["location"] and "Flat" in state.terms(schema)["property_type"]


def test_evidence_merges_in_any_order_to_the_same_counts():
    a, b, c = Evidence(pages=1), Evidence(pages=1), Evidence(pages=1)
    a.add("genuine", "location", "Witney")
    b.add("noise", "location", "Bath", 2)
    c.add("genuine", "location", "witney")
    assert (a + b + c).to_json() == (c + (b + a)).to_json()
    assert Evidence.from_json((a + b + c).to_json()).to_json() == (a + b + c).to_json()
    assert (a + c).form(("location", "witney")) == "Witney"     # ties: the first in sorted order


def test_the_learned_file_round_trips_and_is_readable(learned):
    learn_pages([parse_page(page_html().encode())], learned, rounds=2)
    state = load_learned(learned, load_schema("real_estate"))
    data = json.loads(learned.read_text())
    assert data["types"]["location"]["added"] == ["Witney"] and data["types"]["location"]["dropped"] == ["Bath"]
    assert data["types"]["location"]["evidence"]["Witney"] == [1, 0]       # each round replaces the last's
    copy = learned.with_name("copy.json")
    save_learned(state, copy)
    assert json.loads(copy.read_text()) == data
    assert [p.name for p in learned.parent.iterdir() if p.name.endswith(".tmp")] == []


@pytest.mark.parametrize("content, message", [
    ("{not json", "not a readable JSON file"),
    ('{"format": "something else"}', "not a learned-gazetteers file"),
    ('{"format": "pagesieve/amber-learned-gazetteers", "version": 1, "types": {"colour": {}}}',
     "has no gazetteer type 'colour'"),
    ('{"format": "pagesieve/amber-learned-gazetteers", "version": 1, "types": {"location": '
     '{"added": ["Witney"], "dropped": ["witney"]}}}', "both added and dropped: witney"),
    ('{"format": "pagesieve/amber-learned-gazetteers", "version": 1, "types": {"location": {"added": "Witney"}}}',
     "types.location.added: must be a list"),
])
def test_a_bad_learned_file_gives_a_clear_error(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(ConfigError, match=message):
        AmberSettings(schema="real_estate", learned=str(path))


def test_a_learned_file_is_never_written_into_the_package():
    import pagesieve.models.amber as package

    with pytest.raises(ValueError, match="inside the installed package"):
        save_learned(LearnedGazetteers("real_estate"), package.__file__.replace("__init__.py", "learned.json"))
