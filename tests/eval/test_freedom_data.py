"""SWDE's ground-truth reader and page-level scoring, and the synthetic book sites FreeDOM is measured on."""

from __future__ import annotations

import hashlib

from pagesieve.eval.book_sites import _HELDOUT_LABELS, _LABELS, BOOK_FIELDS, generate_site, label_split
from pagesieve.eval.swde import field_scores, iter_book_gold_pages, read_groundtruth, read_site
from pagesieve.models.freedom.checks import date_or_year, isbn13
from pagesieve.models.freedom.nodes import page_nodes
from pagesieve.models.page import parse_page


def test_groundtruth_keeps_label_punctuation_and_several_values(shared_data):
    gold = read_groundtruth(shared_data / "swde", "book", "booksamillion", ["author", "isbn_13"])
    assert len(gold) == 2000
    assert gold["0000"] == {"author": ["Stephenie Meyer"], "isbn_13": [": 9780316125581"]}
    assert gold["0002"]["author"] == ["Glenn Beck", "Kevin Balfe", "Emily Bestler", "Jack Henderson"]


def test_read_site_has_only_the_pages_on_disk_with_their_urls(shared_data):
    site = read_site(shared_data / "swde", "book", "booksamillion", ["title"])
    assert len(site.pages) == len(site.gold) == 400 and max(site.pages) == "0399"
    assert site.pages["0000"][0] == "http://www.booksamillion.com/product/9780316125581"


def test_book_pages_as_main_text_gold_hold_every_gold_value_and_no_price_or_recommendation(shared_data):
    fields = ["author", "isbn_13", "publication_date", "publisher", "title"]
    truth = read_groundtruth(shared_data / "swde", "book", "booksamillion", fields)
    pages = list(iter_book_gold_pages(shared_data / "swde"))
    assert [p.page_id for p in pages][:3] == ["0000", "0001", "0002"] and len(pages) == 40
    for page in pages:
        text = " ".join(page.gold.split())
        for name in fields:        # the leading ": " of the labelled node is the site's, not the value's
            values = truth[page.page_id][name]
            assert any(" ".join(v.split()).lstrip(": ") in text for v in values), (page.page_id, name)
    first = pages[0].gold.split("\n\n")
    assert first[:2] == ["The Short Second Life of Bree Tanner - An Eclipse Novella (Hardcover)", "by Stephenie Meyer"]
    assert first[2].endswith("following their encounter to its unforgettable conclusion.")
    assert first[-1] == "Reading Level: Ages 12-NA"
    assert not any(word in pages[0].gold for word in ("Club Price", "Add to Cart", "Related Categories", "Dead in the"))


def test_page_level_scores_count_pages_not_values():
    gold = {"1": {"t": ["A", "A2"]}, "2": {"t": ["B"]}, "3": {"t": []}, "4": {"t": ["D"]}}
    predicted = {"1": {"t": " A2 "}, "2": {"t": "x"}, "3": {"t": "y"}}
    score = field_scores(predicted, gold, ["t"])["t"]
    assert (score["precision"], score["recall"]) == (1 / 3, 1 / 3)


def test_generated_sites_are_reproducible_and_their_gold_values_are_text_nodes():
    assert generate_site(3, 5).pages == generate_site(3, 5).pages != generate_site(4, 5).pages
    for index in range(30):                        # seeds 0-11 and held-out 20-29 among them
        site = generate_site(index, 4)
        for pid, (_, body) in site.pages.items():
            texts = {n.text for n in page_nodes(parse_page(body).root)}
            for field in BOOK_FIELDS:
                assert all(v in texts for v in site.gold[pid].get(field, [])), (site.name, pid, field)


def test_held_out_sites_use_unseen_labels_and_rows_that_fail_the_checks_and_leave_the_others_unchanged():
    assert not {v for vs in _HELDOUT_LABELS.values() for v in vs} & {v for vs in _LABELS.values() for v in vs}
    site = generate_site(100, 4, heldout=True)
    assert site.name == "heldbook100" and site.pages != generate_site(100, 4).pages
    for pid, (_, body) in site.pages.items():
        texts = {n.text for n in page_nodes(parse_page(body).root)}
        assert any(isbn13(t) is None and len(t.strip(": ")) == 10 and t.strip(": ")[:9].isdigit() for t in texts)
        assert any("(inches)" in t and date_or_year(t) is None for t in texts)
        for field in BOOK_FIELDS:
            assert all(v in texts for v in site.gold[pid].get(field, [])), (site.name, pid, field)
    # the ordinary sites (the shipped model's training data) are byte-identical to before the variant existed
    digest = hashlib.sha256()
    for index in (0, 11, 27):
        for _, (_, body) in sorted(generate_site(index, 5).pages.items()):
            digest.update(body)
    assert digest.hexdigest()[:16] == "f1fd889b1ebd3709"


def test_a_site_list_names_held_out_sites():
    from pagesieve.eval.freedom import sites_of

    sites = sites_of("synthetic:100-100,heldout:100-101", "book", list(BOOK_FIELDS), "", 3, 0)
    assert [s.name for s in sites] == ["synbook100", "heldbook100", "heldbook101"]


def _label_texts(site) -> set[str]:
    """Every text node of the site's pages, lower-cased and without a label's trailing colon."""
    return {n.text.lower().rstrip(" :") for _, body in site.pages.values() for n in page_nodes(parse_page(body).root)}


def test_the_thesaurus_split_keeps_held_out_labels_off_the_training_sites():
    split = label_split()
    for key, (train, held) in split.items():
        assert train and held and not set(train) & set(held), key
    held = {x.lower() for key, (_, h) in split.items() for x in h}
    train = {x.lower() for key, (t, _) in split.items() for x in t}
    seen_train: set[str] = set()
    for index in range(24):                      # the training sites of the thesaurus recipe
        texts = _label_texts(generate_site(index, 3, thesaurus=True, joined=True))
        assert not texts & held, index
        seen_train |= texts & train
    seen_held: set[str] = set()
    for index in range(300, 320):                # held-out sites read only held-out labels
        texts = _label_texts(generate_site(index, 3, heldout=True, thesaurus=True))
        assert not texts & train, index
        seen_held |= texts & held
    assert len(seen_train) >= 30 and len(seen_held) >= 15    # the sites use the thesaurus widely


def test_joined_sites_put_several_fields_in_one_node_and_label_the_fields_part():
    joined = 0
    for site in (generate_site(i, 4, thesaurus=True, joined=True) for i in range(300, 306)):
        for pid, (_, body) in site.pages.items():
            texts = [n.text for n in page_nodes(parse_page(body).root)]
            for field in BOOK_FIELDS:
                for value in site.gold[pid].get(field, []):
                    assert any(value in t for t in texts), (pid, field)
                    joined += value not in texts
    assert joined
