"""The listings reader and the record/attribute scorer (pagesieve.eval.listings)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from pagesieve.eval.listings import (
    OVERALL,
    Counts,
    ListingPage,
    ListingTruth,
    RecordView,
    TruthRecord,
    aggregate_scores,
    iter_listing_gold_pages,
    normalize_value,
    read_listings,
    record_views,
    score_records,
    values_match,
)
from pagesieve.models.page.result import Field, Record

# the README's table: domain -> (pages, non-optional records)
README_COUNTS = {"jobs": (3, 45), "other": (2, 47), "products": (11, 318), "real_estate": (3, 56),
                 "used_cars": (2, 69)}
README_OPTIONAL = {"tb-ebay-1": 4, "tb-ebay-2": 4, "tb-ebay-3": 1, "tb-groupon-1": 2, "tb-groupon-3": 2}


@pytest.fixture(scope="module")
def pages(shared_data: Path) -> list[ListingPage]:
    return read_listings(shared_data / "listings")


def from_truth(truth: ListingTruth, keep=lambda i: True) -> list[Record]:
    """Predictions that copy the truth: every named attribute plus the snippet as a field."""
    return [Record(tuple(Field(k, v) for k, v in g.attributes.items()) + (Field("text_snippet", g.text_snippet),))
            for i, g in enumerate(truth.records) if keep(i)]


# ------------------------------------------------------------------------------------------- reader


def test_reader_counts_match_readme(pages: list[ListingPage]) -> None:
    assert len(pages) == 21
    n_pages = Counter(p.domain for p in pages)
    n_records = Counter()
    for p in pages:
        n_records[p.domain] += p.truth.record_count
    assert {d: (n_pages[d], n_records[d]) for d in n_pages} == README_COUNTS
    assert {p.page_id: p.truth.optional_record_count for p in pages if p.truth.optional_record_count} \
        == README_OPTIONAL


def test_reader_typed_objects(pages: list[ListingPage]) -> None:
    by_id = {p.page_id: p for p in pages}
    ebay = by_id["tb-ebay-1"]
    assert ebay.domain == "products" and ebay.truth.domain == "products"
    assert ebay.url == "http://www.ebay.co.uk/sch/i.html?_nkw=world+games"
    assert isinstance(ebay.html, bytes) and len(ebay.html) > 100_000
    first = ebay.truth.records[0]
    assert first.attributes["title"].startswith("PS3 - Call of Duty World at War")
    assert first.attributes["price"] == "£11.95"
    assert "fields" not in first.attributes and "link" not in first.attributes
    assert not first.optional and first.html_anchor == first.link
    assert sum(r.optional for r in ebay.truth.records) == 4
    for p in pages:
        assert p.truth.records and all(r.text_snippet for r in p.truth.records)
        for r in p.truth.records:
            assert set(r.attributes) <= set(p.truth.attributes)


# --------------------------------------------------------------------------------------- hand-built


def rec(title: str, price: str | None = None) -> Record:
    fields = (Field("title", title),) + ((Field("price", price),) if price is not None else ())
    return Record(fields)


def gold(title: str, price: str, optional: bool = False, anchor: str | None = None) -> TruthRecord:
    return TruthRecord({"title": title, "price": price}, text_snippet=title, html_anchor=anchor, optional=optional)


TRUTH = ListingTruth("t", "products", None, ("title", "price"),
                     (gold("Alpha house", "$11"), gold("Beta flat", "$22"), gold("Gamma loft", "$33"),
                      gold("Sponsored villa", "$99", optional=True)))
A, B, C = rec("Alpha house", "$11"), rec("Beta flat", "$22"), rec("Gamma loft", "$33")
SPONSORED = rec("Sponsored villa", "$99")


def prf(c: Counts) -> tuple[float, float, float]:
    return c.precision, c.recall, c.f1


def test_perfect() -> None:
    s = score_records([A, B, C], TRUTH)
    assert s.records == Counts(3, 3, 3) and prf(s.records) == (1.0, 1.0, 1.0)
    assert s.attributes == {"title": Counts(3, 3, 3), "price": Counts(3, 3, 3)}
    assert s.matches == ((0, 0), (1, 1), (2, 2)) and s.optional_matched == 0


def test_missing_record() -> None:
    s = score_records([A, C], TRUTH)
    assert s.records == Counts(2, 2, 3)
    assert prf(s.records) == pytest.approx((1.0, 2 / 3, 0.8))
    # attributes are scored over matched pairs only: the missing record costs no attribute recall
    assert s.attributes["price"] == Counts(2, 2, 2)


def test_extra_record() -> None:
    s = score_records([A, B, rec("Delta shed", "$44"), C], TRUTH)
    assert s.records == Counts(3, 4, 3)
    assert prf(s.records) == pytest.approx((0.75, 1.0, 6 / 7))
    assert s.attributes["title"] == Counts(3, 3, 3)


def test_split_record() -> None:
    # Alpha's title and price came out as two records: only the half holding the snippet matches
    s = score_records([rec("Alpha house"), Record((Field("price", "$11"),)), B, C], TRUTH)
    assert s.records == Counts(3, 4, 3)
    assert prf(s.records) == pytest.approx((0.75, 1.0, 6 / 7))
    assert s.attributes["title"] == Counts(3, 3, 3)
    assert s.attributes["price"] == Counts(2, 2, 3)
    assert prf(s.attributes["price"]) == pytest.approx((1.0, 2 / 3, 0.8))


def test_merged_record_matches_one_gold() -> None:
    s = score_records([rec("Alpha house Beta flat", "$11"), C], TRUTH)
    assert s.records == Counts(2, 2, 3)


def test_optional_unmatched_and_matched() -> None:
    assert score_records([A, B, C], TRUTH).records == Counts(3, 3, 3)
    s = score_records([A, B, C, SPONSORED], TRUTH)        # matched to the optional record: removed before counting
    assert s.records == Counts(3, 3, 3) and s.optional_matched == 1
    assert s.attributes["price"] == Counts(3, 3, 3)
    s = score_records([SPONSORED], TRUTH)
    assert s.records == Counts(0, 0, 3) and prf(s.records) == (0.0, 0.0, 0.0)


def test_attribute_wrong() -> None:
    s = score_records([A, rec("Beta flat", "$23"), C], TRUTH)
    assert s.records == Counts(3, 3, 3)
    assert s.attributes["price"] == Counts(2, 3, 3)
    assert prf(s.attributes["price"]) == pytest.approx((2 / 3, 2 / 3, 2 / 3))
    assert s.attributes["title"] == Counts(3, 3, 3)
    assert s.attributes_total == Counts(5, 6, 6)


def test_attribute_missing_and_unscored_names() -> None:
    s = score_records([A, rec("Beta flat"), Record(C.fields + (Field("bedrooms", "3"),))], TRUTH)
    assert s.attributes["price"] == Counts(2, 2, 3)
    assert "bedrooms" not in s.attributes       # not in the page's attributes list: not scored


def test_value_normalisation() -> None:
    assert normalize_value("  £2,000 \n Pcm ") == "£2,000 Pcm"
    assert values_match(" $11\n", "$11")
    assert not values_match("alpha HOUSE", "Alpha house")
    assert values_match("alpha HOUSE", "Alpha house", lenient=True)
    assert values_match("67.07m2", "67.07m 2", lenient=True) and not values_match("67.07m2", "67.07m 2")
    s = score_records([A, rec("beta  FLAT", "$22"), C], TRUTH)
    assert s.records == Counts(2, 3, 3)      # snippet matching is case-sensitive: "beta  FLAT" matches nothing
    s = score_records([A, rec("Beta  flat", "$22"), C], TRUTH)
    assert s.records == Counts(3, 3, 3) and s.attributes["title"] == Counts(3, 3, 3)


def test_aliases() -> None:
    s = score_records([Record((Field("title", "Alpha house"), Field("cost", "$11")))], TRUTH, aliases={"cost": "price"})
    assert s.attributes["price"] == Counts(1, 1, 1)


def test_maximum_matching_beats_greedy() -> None:
    # greedy in page order would give the first prediction Alpha and leave the second unmatched
    s = score_records([rec("Alpha house Beta flat"), rec("Alpha house"), C], TRUTH)
    assert s.records == Counts(3, 3, 3)
    assert s.matches == ((0, 1), (1, 0), (2, 2))


def test_whitespace_removed_fallback_and_anchor() -> None:
    truth = ListingTruth("t", "real_estate", None, ("area",),
                         (TruthRecord({"area": "67.07m 2"}, "67.07m 2 south", html_anchor="/d?id=1&amp;x=2"),))
    assert score_records([Record((Field("area", "67.07m2 south"),))], truth).records == Counts(1, 1, 1)
    view = RecordView("nothing shared", '<div><a href="/d?id=1&amp;x=2">x</a></div>')
    s = score_records([Record((Field("area", "67.07m 2"),))], truth, views=[view])
    assert s.records == Counts(1, 1, 1) and s.attributes["area"] == Counts(1, 1, 1)


def test_record_views_resolve_xpaths() -> None:
    html = (b"<html><body><ul><li><a href='/d?a=1&amp;b=2'>Alpha house</a> <b>$11</b></li>"
            b"<li><a href='/d?a=2'>Beta flat</a> <b>$22</b></li></ul></body></html>")
    truth = ListingTruth("t", "products", None, ("price",),
                         (TruthRecord({"price": "$11"}, "Alpha house", html_anchor="/d?a=1&amp;b=2"),
                          TruthRecord({"price": "$22"}, "Beta flat", html_anchor="/d?a=2")))
    preds = [Record((Field("price", "$11"),), xpath="/html/body/ul/li[1]"),
             Record((Field("price", "$22"),), xpath="/html/body/ul/li[2]"),
             Record((Field("price", "$33"),), xpath="/html/body/ul/li[9]")]   # resolves to nothing
    views = record_views(preds, html)
    assert "Alpha house" in views[0].text and "/d?a=1" in (views[0].html or "")
    assert views[2] == RecordView("$33", None)
    s = score_records(preds, truth, views=views)
    assert s.records == Counts(2, 3, 2) and s.attributes["price"] == Counts(2, 2, 2)


def test_views_length_checked() -> None:
    with pytest.raises(ValueError):
        score_records([A], TRUTH, views=[])


def test_aggregation() -> None:
    other = ListingTruth("u", "jobs", None, ("title",), (gold("Job one", "$1"), gold("Job two", "$2")))
    p1 = score_records([A, rec("Beta flat", "$23")], TRUTH)         # rec 2/2/3, price 1/2/2, title 2/2/2
    p2 = score_records([rec("Job one"), rec("Nope")], other)        # rec 1/2/2, title 1/1/1
    p3 = score_records([A, B, C], TRUTH)                            # rec 3/3/3
    agg = aggregate_scores([p1, p2, p3])
    assert list(agg) == ["jobs", "products", OVERALL]
    assert agg[OVERALL].n_pages == 3
    assert agg[OVERALL].records_micro == Counts(6, 7, 8)
    macro = agg[OVERALL].records_macro
    assert (macro.precision, macro.recall) == pytest.approx(((1 + 0.5 + 1) / 3, (2 / 3 + 0.5 + 1) / 3))
    assert macro.f1 == pytest.approx((0.8 + 0.5 + 1) / 3)
    assert agg["products"].records_micro == Counts(5, 5, 6)
    assert agg["jobs"].records_micro == Counts(1, 2, 2)
    assert agg[OVERALL].attributes_micro["title"] == Counts(6, 6, 6)
    assert agg[OVERALL].attributes_micro["price"] == Counts(4, 5, 5)
    assert agg[OVERALL].attributes_macro["price"].n_pages == 2
    assert agg[OVERALL].attributes_macro["price"].precision == pytest.approx((0.5 + 1) / 2)
    assert agg[OVERALL].attributes_total_micro == Counts(10, 11, 11)


# ------------------------------------------------------------------------------------------ real data


def test_truth_against_itself_is_perfect(pages: list[ListingPage]) -> None:
    scores = []
    for p in pages:
        s = score_records(from_truth(p.truth), p)
        assert prf(s.records) == (1.0, 1.0, 1.0), p.page_id
        assert s.optional_matched == p.truth.optional_record_count, p.page_id
        assert set(s.attributes) == set(p.truth.attributes), p.page_id
        for name, counts in s.attributes.items():
            assert prf(counts) == (1.0, 1.0, 1.0), (p.page_id, name)
        scores.append(s)
    for summary in aggregate_scores(scores).values():
        assert prf(summary.records_micro) == (1.0, 1.0, 1.0)
        m = summary.records_macro
        assert (m.precision, m.recall, m.f1) == (1.0, 1.0, 1.0)
        assert prf(summary.attributes_total_micro) == (1.0, 1.0, 1.0)


def test_every_second_record_dropped(pages: list[ListingPage]) -> None:
    micro = Counts()
    for p in pages:
        s = score_records(from_truth(p.truth, keep=lambda i: i % 2 == 0), p)
        kept_required = sum(not r.optional for r in p.truth.records[::2])
        assert s.records == Counts(kept_required, kept_required, p.truth.record_count), p.page_id
        assert s.records.precision == 1.0
        assert s.records.recall == pytest.approx(kept_required / p.truth.record_count)
        micro += s.records
    assert micro.recall == pytest.approx(sum(1 for p in pages for r in p.truth.records[::2] if not r.optional) / 535)
    assert aggregate_scores([])[OVERALL].n_pages == 0


def test_as_main_text_gold_a_page_is_its_records_display_strings_one_record_a_paragraph(
        shared_data: Path, pages: list[ListingPage]) -> None:
    gold = {p.page_id: p for p in iter_listing_gold_pages(shared_data / "listings")}
    assert sorted(gold) == sorted(p.page_id for p in pages)
    ikea = next(p for p in pages if p.page_id == "tb-ikea-1")
    paragraphs = gold["tb-ikea-1"].gold.split("\n\n")
    assert len(paragraphs) == len(ikea.truth.records)
    first = ikea.truth.records[0]
    assert first.attributes["title"] in paragraphs[0] and first.attributes["price"] in paragraphs[0]
    assert first.link not in gold["tb-ikea-1"].gold                 # a URL is not text a reader sees
    assert gold["tb-ikea-1"].html == ikea.html and gold["tb-ikea-1"].meta["page_type"] == "listing"
    # the test-bed pages' `fields` row adds what the named attributes leave out (eBay's "New listing" badge)
    assert all(v in gold["tb-ebay-1"].gold for v in ("New listing", "+ £3.99 postage"))


def test_the_listings_train_in_every_fold_and_are_never_a_validation_part(shared_data: Path) -> None:
    from pagesieve.eval.training_sources import ADDED_SOURCES, added_sources, source_pages

    assert "listings" in ADDED_SOURCES and added_sources("listings") == ("listings",) and added_sources("") == ()
    with pytest.raises(ValueError, match="--add-pools takes listings, books, not swde"):
        added_sources("listings,swde")
    assert len(list(source_pages(shared_data, "listings", "fit"))) == 21
    assert not list(source_pages(shared_data, "listings", "validation"))
    assert [p.page_id for p in source_pages(shared_data, "readability", "test")]   # a pool reads its split
