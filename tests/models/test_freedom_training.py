"""A tiny FreeDOM training run end to end: real booksamillion pages plus generated book sites, scored with SWDE's
page-level F1 on pages and sites it did not train on. Seconds on one core; slow tier (it trains)."""

from __future__ import annotations

import pytest

from pagesieve.eval.freedom import labelled_pages, score_sites, sites_of
from pagesieve.models.freedom.method import FreeDOM
from pagesieve.models.freedom.model import FreeDOMModel
from pagesieve.models.freedom.settings import FreeDOMSettings
from pagesieve.models.freedom.training import TrainConfig, load_glove, train_model, train_relation
from pagesieve.models.page import parse_page

pytestmark = pytest.mark.slow

FIELDS = ["author", "isbn_13", "publication_date", "publisher", "title"]


def test_tiny_training_extracts_held_out_real_and_generated_pages(shared_data, tmp_path):
    swde = str(shared_data / "swde")
    train = sites_of("booksamillion[0-39],synthetic:0-5", "book", FIELDS, swde, 15, 0)
    pages = [p for site in train for p in labelled_pages(site, FIELDS, 300)]
    config = TrainConfig(epochs=4, top_glove=2000, relation_epochs=2)
    model = train_model(pages, FIELDS, "book", config, load_glove())
    train_relation(model, pages, config)
    model.save(tmp_path / "tiny")
    # again from the same seed: the same bytes (fixed seeds, one thread), the relation stage's pair network too
    again = train_model(pages, FIELDS, "book", config, load_glove())
    train_relation(again, pages, config)
    again.save(tmp_path / "again")
    assert again.relation is not None
    assert (tmp_path / "tiny.npz").read_bytes() == (tmp_path / "again.npz").read_bytes()

    real = score_sites(str(tmp_path / "tiny"), sites_of("booksamillion[300-339]", "book", FIELDS, swde, 15, 0),
                       FIELDS, vote=True)
    generated = score_sites(str(tmp_path / "tiny"), sites_of("synthetic:20-23", "book", FIELDS, swde, 15, 0),
                            FIELDS, vote=True)
    # measured 2026-11-23: 0.987 (booksamillion) and 0.977 (4 generated sites); the floors leave room for
    # other torch builds, not for a broken pipeline (an untrained model scores near 0)
    assert real["mean"]["f1"] >= 0.9
    assert generated["mean"]["f1"] >= 0.8


def test_a_model_trained_with_spans_and_label_bag_finds_values_inside_joined_nodes(shared_data, tmp_path):
    swde = str(shared_data / "swde")
    train = sites_of("synthetic+thesaurus+joined:0-7", "book", FIELDS, swde, 10, 0)
    pages = [p for site in train for p in labelled_pages(site, FIELDS, 300, spans=True)]
    config = TrainConfig(epochs=4, top_glove=2000, label_bag=True)
    model = train_model(pages, FIELDS, "book", config, load_glove(), {"spans": True})
    model.save(tmp_path / "spans")
    loaded = FreeDOMModel.load(tmp_path / "spans")
    assert loaded.spans and loaded.net.label_bag
    method = FreeDOM(FreeDOMSettings(model=str(tmp_path / "spans"), device="cpu"))
    found = 0
    for site in sites_of("synthetic+thesaurus+joined:300-305", "book", FIELDS, swde, 10, 0):
        ids = sorted(site.pages)
        results = method.process_batch([parse_page(site.pages[i][1], url=site.pages[i][0]) for i in ids])
        for pid, result in zip(ids, results, strict=True):
            for field in (f for r in result.records for f in r.fields):
                found += "#" in field.xpath and field.value in site.gold[pid][field.name]
    assert found      # some right values are spans: the whole-node model cannot give them
