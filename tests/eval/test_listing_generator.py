"""The listing page generator (pagesieve.eval.listing_generator): truth that matches its page, determinism."""

from __future__ import annotations

import pytest
from lxml import html as lxml_html

from pagesieve.eval.listing_generator import (
    ATTRIBUTES,
    TEMPLATES,
    generate_page,
    generate_pages,
    shipped_locations,
    write_listing_folder,
)
from pagesieve.eval.listings import RecordView, read_listings, score_records
from pagesieve.models.page.result import Field, Record


@pytest.fixture(scope="module")
def pages():
    return generate_pages(12, seed=3)


def _text(markup: str) -> str:
    return " ".join(lxml_html.fromstring(markup).text_content().split())


def test_every_truth_value_appears_in_the_page(pages):
    for page in pages:
        text = _text(page.html)
        assert page.truth.record_count >= 8
        for record in page.truth.records:
            for name, value in record.attributes.items():
                if name == "detail_link":
                    assert f'href="{value}"' in page.html and page.html.count(value) == 1
                else:
                    assert value in text, (page.page_id, name, value)
            assert record.text_snippet in text and record.snippet_unique


@pytest.mark.slow  # generates three sites
def test_the_same_seed_gives_the_same_pages_and_another_seed_other_pages():
    a, b = generate_pages(4, seed=11), generate_pages(4, seed=11)
    assert [p.html for p in a] == [p.html for p in b]
    assert [p.truth_json() for p in a] == [p.truth_json() for p in b]
    assert generate_pages(1, seed=12)[0].html != a[0].html
    assert generate_page(11, 2, template="table").html == a[2].html


def test_templates_and_noise_are_all_generated(pages):
    assert {p.template for p in pages} == set(TEMPLATES)
    every = "".join(p.html for p in pages)
    for marker in ('class="featured"', 'class="promo"', "<s ", 'class="filters"', "a short drive from",
                   "<table", 'class="grid"'):
        assert marker in every, marker


def test_some_locations_are_unknown_to_the_shipped_gazetteer(pages):
    shipped = set(shipped_locations())
    used = {r.attributes["location"] for p in pages for r in p.truth.records}
    assert used & shipped and used - shipped


def test_a_written_folder_reads_back_and_perfect_records_score_one(tmp_path, pages):
    write_listing_folder(pages[:3], tmp_path / "gen")
    back = read_listings(tmp_path / "gen")
    assert [p.page_id for p in back] == sorted(p.page_id for p in pages[:3])
    page = next(p for p in pages if p.page_id == back[0].page_id)
    assert back[0].truth == page.truth and back[0].html == page.html.encode()
    perfect = [Record(fields=tuple(Field(k, v) for k, v in r.attributes.items())) for r in page.truth.records]
    views = [RecordView(r.text_snippet, f'<a href="{r.link}">') for r in page.truth.records]
    score = score_records(perfect, page.truth, views=views)
    assert score.records.f1 == 1.0
    assert all(score.attributes[name].f1 == 1.0 for name in ATTRIBUTES)


def test_an_unknown_template_is_refused():
    with pytest.raises(ValueError, match="template"):
        generate_page(0, 0, template="carousel")
