"""AMBER end to end: a hand-built result page with the paper's noise, bad input through the runner, and
the real listing pages it already gets right (floors, to raise as the method improves)."""

from __future__ import annotations

import pytest

from pagesieve.eval.listings import read_listing_page, record_views, score_records
from pagesieve.models.page import PageInput, parse_page, run_pages
from pagesieve.models.registry import build_method

PAGE = """<html><head><title>Houses for sale in Oxford</title></head><body>
<div class="top"><div class="banner"><p><span><b>Mortgages from £500 a month!</b></span></p></div></div>
<ul class="results">
  <li><h2><a href="/p/1">Semi in Headington</a></h2><p class="price">£350,000</p>
      <p>Oxford OX3 7AB</p><p>3 bedrooms, 1 bathroom</p></li>
  <li><h2><a href="/p/2">Flat near the station</a></h2><p class="price">£210,000 <s>£230,000</s></p>
      <p>Oxford OX1 1HS</p><p>2 bedrooms, 1 bathroom</p></li>
  <li><h2><a href="/p/3">Cottage with garden</a></h2><p class="price">POA</p>
      <p>Witney OX28 6BS</p><p>4 bedrooms, 2 bathrooms</p></li>
  <li><h2><a href="/p/4">Town house</a></h2><p class="price">£495,000</p>
      <p>Abingdon OX14 3JE</p><p>4 bedrooms, 3 bathrooms</p></li>
</ul>
<div class="footer"><div><p>Free valuation</p><p><b>Valuation fee <i>£0</i></b></p></div></div>
</body></html>"""


@pytest.fixture(scope="module")
def amber():
    return build_method("amber", {"schema": "real_estate"}, kind="extractor")


def test_a_result_page_gives_one_record_per_listing_with_its_attributes(amber):
    result = amber.process(parse_page(PAGE.encode()))
    assert result.status == "ok" and result.schema == "real_estate"
    assert [r.xpath for r in result.records] == [f"/html/body/ul/li[{i}]" for i in range(1, 5)]
    fields = [{f.name: f.value for f in r.fields} for r in result.records]
    # the banner's and the footer's prices are outside the data area (two levels off the list's: one level is
    # within Θdepth and would join it, see models/amber/areas.py); the crossed-out price is not the price
    assert [f["price"] for f in fields] == ["£350,000", "£210,000", "POA", "£495,000"]
    assert [f["detail_link"] for f in fields] == ["/p/1", "/p/2", "/p/3", "/p/4"]
    assert [f["bedrooms"] for f in fields] == ["3 bedrooms", "2 bedrooms", "4 bedrooms", "4 bedrooms"]
    assert [f["postcode"] for f in fields] == ["OX3 7AB", "OX1 1HS", "OX28 6BS", "OX14 3JE"]


def test_bad_input_gives_status_rows(amber):
    pages = [PageInput(b""), PageInput(bytes(range(256)) * 10),
             PageInput(b"<html><body><p>no listing</p></body></html>"),
             PageInput(b"<html><body>" + b"<div>x</div>" * 50_000 + b"</body></html>")]
    assert [o.result.status for o in run_pages(amber, pages)] == ["empty", "not_html", "empty", "empty"]


PERFECT = ["finn-boat-bayliner", "finn-car-tesla", "re-agents-dexters", "re-brazil-imovelweb", "tb-agoda-1",
           "tb-bestbuy-1", "tb-bestbuy-2", "tb-bestbuy-3", "tb-ebay-1", "tb-ebay-2", "tb-ebay-3", "tb-groupon-1",
           "tb-groupon-3", "tb-ikea-1", "tb-ikea-2", "tb-ikea-3", "uc-autoscout24-de"]


@pytest.mark.parametrize("page_id", PERFECT)
def test_real_listing_pages_it_gets_right(page_id, shared_data):
    page = read_listing_page(shared_data / "listings", page_id)
    schema = {"real_estate": "real_estate", "used_cars": "used_cars"}.get(page.domain, "products")
    result = build_method("amber", {"schema": schema}, kind="extractor").process(parse_page(page.html))
    score = score_records(result.records, page, views=record_views(result.records, page.html))
    assert (score.records.precision, score.records.recall) == (1.0, 1.0)


def _listing(n: int, prefix: str = "Semi-detached house with garden in") -> str:
    return "".join(f'<li><h2><a href="/p/{i}">{prefix} Oxford {i}</a></h2><p class="price">£{i + 2}50,000</p>'
                   f'<p>Oxford OX{i} 1AB, {i} bedrooms, close to schools and shops</p></li>' for i in range(1, n + 1))


def test_menus_banners_and_carousels_around_the_results_are_not_records(amber):
    menu = "".join(f'<li><a href="?max={i}">£{i}00,000</a></li>' for i in range(1, 8))          # prices only
    banner = "".join(f'<li><a href="/c/{i}">Category {i} with many homes</a> <i>FREE survey on £250</i></li>'
                     for i in range(5))                                                     # one price, repeated
    carousel = "".join(f'<li><a href="/r/{i}">Flat</a> <b>£{i}10,000</b></li>' for i in range(1, 7))  # teasers
    page = (f'<html><body><ul id="menu">{menu}</ul><ul id="nav">{banner}</ul><ul id="results">{_listing(8)}</ul>'
            f'<div><h3>You may also like</h3><ul id="similar">{carousel}</ul></div></body></html>')
    result = amber.process(parse_page(page.encode()))
    assert [r.xpath for r in result.records] == [f"/html/body/ul[3]/li[{i}]" for i in range(1, 9)]


def test_featured_records_as_rich_as_the_results_stay(amber):
    page = (f'<html><body><ul id="featured">{_listing(3, "Featured: detached house in")}</ul>'
            f'<p>All results</p><ul id="results">{_listing(8)}</ul></body></html>')
    result = amber.process(parse_page(page.encode()))
    assert len(result.records) == 11


def test_a_crossed_out_price_before_the_price_is_not_the_price_and_the_title_is_the_named_element():
    # groupon: the whole card is one link; the old price comes first, crossed out
    cards = "".join(f'<figure><a href="/d/{i}"><img src="/i/{i}.jpg"/><figcaption><p class="deal-title">Deal number '
                    f'{i} for two</p><div class="price"><s>C${i}9</s> <span>C${i}.99</span></div></figcaption></a>'
                    f'</figure>' for i in range(1, 6))
    page = f'<html><body><div id="deals">{cards}</div></body></html>'
    amber = build_method("amber", {"schema": "products"}, kind="extractor")
    fields = [{f.name: f.value for f in r.fields} for r in amber.process(parse_page(page.encode())).records]
    assert [f["price"] for f in fields] == [f"C${i}.99" for i in range(1, 6)]
    assert [f["title"] for f in fields] == [f"Deal number {i} for two" for i in range(1, 6)]
    assert [f["link"] for f in fields] == [f"/d/{i}" for i in range(1, 6)]


@pytest.mark.slow
def test_huge_pages_finish_or_time_out_and_never_crash(amber):
    deep = b"<html><body>" + b"<div>" * 100_000 + "<p>£250,000 flat in Oxford</p>".encode() + b"</div>" * 100_000
    items = b"<html><body><ul>" + b"".join(
        f"<li><a href='/p/{i}'>Flat {i} in Oxford with garden</a><b>£{100 + i % 800},000</b></li>".encode()
        for i in range(50_000)) + b"</ul></body></html>"
    big = b"<html><body>" + b"".join(f"<p>Paragraph {i} of a long page, {i % 7} bedrooms, £{i},000</p>".encode()
                                     for i in range(400_000)) + b"</body></html>"
    assert len(big) > 20_000_000
    outcomes = run_pages(amber, [PageInput(deep), PageInput(items)], timeout_s=120)
    assert [o.result.status for o in outcomes] == ["empty", "ok"]
    assert len(outcomes[1].result.records) == 50_000
    assert run_pages(amber, [PageInput(big)], timeout_s=2)[0].result.status == "timeout"


@pytest.mark.slow  # every listing page
def test_record_f1_over_all_the_development_listing_pages_stays_above_its_floor(shared_data):
    from pagesieve.eval.listings import aggregate_scores, read_listings

    methods: dict[str, object] = {}
    scores = []
    for page in read_listings(shared_data / "listings"):
        schema = {"real_estate": "real_estate", "used_cars": "used_cars"}.get(page.domain, "products")
        method = methods.setdefault(schema, build_method("amber", {"schema": schema}, kind="extractor"))
        result = method.process(parse_page(page.html))
        scores.append(score_records(result.records, page, views=record_views(result.records, page.html)))
    overall = aggregate_scores(scores)["overall"]
    assert overall.n_pages == 21
    assert overall.records_micro.f1 >= 0.97            # 0.981 when written; the goal is 0.90
    assert overall.attributes_total_micro.f1 >= 0.53   # 0.549
