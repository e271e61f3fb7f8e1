"""Span splitting: a text node that holds several fields gives one candidate per field (nodes.spans_of)."""

from __future__ import annotations

from pagesieve.eval.book_sites import BOOK_FIELDS, generate_site
from pagesieve.models.freedom.nodes import page_nodes, spans_of
from pagesieve.models.page import parse_page


def test_a_node_with_several_labelled_fields_gives_each_value_after_its_label():
    assert spans_of("Publisher: Hachette Book Group / Date: June 2010") == [
        ("Publisher", "Hachette Book Group"), ("Publisher: Hachette Book Group Date", "June 2010")]
    assert [s for _, s in spans_of("Knopf · June 2010 · 352 pages")] == ["Knopf", "June 2010", "352 pages"]
    assert [s for _, s in spans_of("ISBN: 0316125581 | 9780316125581")] == ["0316125581", "9780316125581"]


def test_a_plain_node_stays_whole():
    for text in ("Hachette Book Group", "Publisher: Hachette Book Group", ": June 2010", "06/15/2010",
                 "EAN/ISBN-13: 978-0-316-12558-1", "Simon & Schuster", "Little, Brown", ""):
        assert spans_of(text) == [], text
    prose = " | ".join(["a long menu item"] * 9)
    assert spans_of(prose) == []                       # more parts than fields: a menu, not a field list


def test_page_nodes_add_spans_after_their_node_with_the_label_as_preceding_text():
    html = b"<html><body><p>Publisher: Knopf / Pub. date: June 2010</p><p>Plain words</p></body></html>"
    plain = page_nodes(parse_page(html).root)
    assert [n.text for n in plain] == ["Publisher: Knopf / Pub. date: June 2010", "Plain words"]
    nodes = page_nodes(parse_page(html).root, spans=True)
    assert [n.text for n in nodes] == ["Publisher: Knopf / Pub. date: June 2010", "Knopf", "June 2010",
                                       "Plain words"]
    whole, knopf, date, rest = nodes
    assert (knopf.xpath, date.xpath) == (whole.xpath + "#1", whole.xpath + "#2")
    assert knopf.preceding.endswith("Publisher") and date.preceding.endswith("Pub. date")
    assert rest.preceding.endswith("June 2010") and rest.xpath == plain[1].xpath


def test_every_gold_value_of_a_joined_site_is_a_candidate_with_spans_and_not_all_are_without():
    missing_whole = 0
    pages = [(site, pid, body) for i in range(300, 306)
             for site in [generate_site(i, 4, thesaurus=True, joined=True)] for pid, (_, body) in site.pages.items()]
    for site, pid, body in pages:
        root = parse_page(body).root
        with_spans = {n.text for n in page_nodes(root, spans=True)}
        whole = {n.text for n in page_nodes(root)}
        for field in BOOK_FIELDS:
            for value in site.gold[pid].get(field, []):
                assert value in with_spans, (pid, field, value)
                missing_whole += value not in whole
    assert missing_whole


def test_training_ignores_the_whole_of_a_node_whose_span_is_a_value():
    from pagesieve.models.freedom.training import IGNORE, label_nodes

    html = b"<html><body><p>Publisher: Knopf / Pub. date: June 2010</p><p>Knopf</p><p>A / B</p></body></html>"
    nodes = page_nodes(parse_page(html).root, spans=True)
    fields = ["publisher", "publication_date"]
    labels = label_nodes(nodes, {"publisher": ["Knopf"], "publication_date": ["June 2010"]}, fields)
    assert [(n.text, int(y)) for n, y in zip(nodes, labels, strict=True)] == [
        ("Publisher: Knopf / Pub. date: June 2010", IGNORE), ("Knopf", 0), ("June 2010", 1), ("Knopf", 0),
        ("A / B", 2), ("A", 2), ("B", 2)]


def test_a_separator_inside_a_label_is_part_of_the_label_not_a_field_boundary():
    # Real book sites label the ISBN `EAN / ISBN-13` or `ISBN-10 / 13`: the separator before the node's first
    # `Label:` colon is inside the label. Unspaced (`EAN/ISBN-13`) it was never a separator.
    for text in ("EAN/ISBN-13: 9781234567897", "EAN / ISBN-13: 9781234567897", "ISBN-10 | ISBN-13: 9781234567897"):
        assert spans_of(text) == [], text                  # one labelled field: the node stays whole
    for label in ("ISBN-10/13", "ISBN-10 / 13", "ISBN-10 / ISBN-13"):
        assert spans_of(f"{label}: 0123456789 / 9780123456786") == [
            (label, "0123456789"), (f"{label}: 0123456789", "9780123456786")], label
    # fields after the first keep their own labels
    assert spans_of("EAN / ISBN-13: 9780123456786 | Pub. date: June 2010") == [
        ("EAN / ISBN-13", "9780123456786"), ("EAN / ISBN-13: 9780123456786 Pub. date", "June 2010")]


def test_page_nodes_give_a_slashed_label_whole_as_the_spans_label_and_preceding_text():
    html = b"<html><body><p>ISBN-10 / ISBN-13: 0123456789 / 9780123456786</p></body></html>"
    whole, ten, thirteen = page_nodes(parse_page(html).root, spans=True)
    assert (whole.label, ten.text, ten.label, thirteen.text) == (
        "ISBN-10 / ISBN-13", "0123456789", "ISBN-10 / ISBN-13", "9780123456786")
    assert ten.preceding == "ISBN-10 / ISBN-13" and thirteen.preceding.startswith("ISBN-10 / ISBN-13:")
