"""The trained Web2Text model: files, batched prediction, and the method built on it, on real pages."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from pagesieve.eval import iter_gold_pages
from pagesieve.models.page import parse_page
from pagesieve.models.registry import build_method
from pagesieve.models.web2text import (
    EDGE_FEATURE_NAMES,
    FEATURE_NAMES,
    PACKAGED_MODELS,
    PairwiseCNN,
    UnaryCNN,
    Web2Text,
    Web2TextModel,
    Web2TextSettings,
    blocks_text,
    fit_stats,
    length_groups,
    page_blocks,
)
from pagesieve.models.web2text.features import page_features

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def real_pages(shared_data):
    """Test-split CleanEval pages plus Scrapinghub pages: short and long block sequences."""
    gold = list(iter_gold_pages(shared_data / "cleaneval", "web2text_test"))[:14]
    gold += list(iter_gold_pages(shared_data / "scrapinghub"))[:4]
    return [parse_page(g.html, url=g.url, page_id=g.page_id) for g in gold]


def _random_model(seed: int, pages) -> Web2TextModel:
    torch.manual_seed(seed)
    feats = [page_features(page_blocks(p)) for p in pages]
    return Web2TextModel(UnaryCNN(), PairwiseCNN(), fit_stats(np.concatenate([f for f, _ in feats]), FEATURE_NAMES),
                         fit_stats(np.concatenate([e for _, e in feats]), EDGE_FEATURE_NAMES), meta={"seed": seed})


@pytest.mark.slow
def test_save_and_load_round_trip_without_pickle(tmp_path, real_pages):
    model = _random_model(1, real_pages)
    npz, meta = model.save(tmp_path / "m")
    with np.load(npz, allow_pickle=False) as data:       # plain arrays only: no object arrays to unpickle
        assert all(data[k].dtype != object for k in data.files)
    loaded = Web2TextModel.load(npz)
    assert loaded.meta == {"seed": 1}
    feats = [page_features(page_blocks(p)) for p in real_pages[:5]]
    a = model.potentials([f for f, _ in feats], [e for _, e in feats])
    b = loaded.potentials([f for f, _ in feats], [e for _, e in feats])
    for x, y in zip(a, b, strict=True):
        torch.testing.assert_close(x, y, rtol=0, atol=0)
    assert json.loads(meta.read_text())["block_features"] == FEATURE_NAMES


def test_a_model_for_other_features_is_refused(tmp_path, real_pages):
    _, meta = _random_model(2, real_pages).save(tmp_path / "m")
    record = json.loads(meta.read_text())
    record["block_features"] = record["block_features"][:-1] + ["b128.something_else"]
    meta.write_text(json.dumps(record))
    with pytest.raises(ValueError, match="retrain"):
        Web2TextModel.load(tmp_path / "m")
    with pytest.raises(FileNotFoundError, match="packaged ones"):
        Web2TextModel.load(tmp_path / "nothing-here")


@pytest.mark.parametrize("name", sorted(PACKAGED_MODELS))
def test_packaged_models_are_small_and_say_how_they_were_trained(name):
    model = Web2TextModel.load(name)
    assert model.meta["recipe"] == name and model.meta["seed"] == 0
    assert model.meta["train_pages"] > 500 and model.meta["validation_pages"] == 58
    assert model.meta["validation_scores"]["viterbi_f1"] > 0.85
    n_params = sum(p.numel() for net in (model.unary, model.pairwise) for p in net.parameters())
    assert 10_000 < n_params < 100_000          # "more than 10,000 parameters" (section 4.1)


@pytest.mark.slow
def test_packaged_model_loads_from_the_py_files_zip(tmp_path):
    # spark-submit --py-files ships the package as a zip: stopwords and weights must load from inside it
    sys.path.insert(0, str(ROOT / "tests" / "support"))
    from cluster_util import build_zip, python_without_pagesieve

    python = python_without_pagesieve(tmp_path / "venv")
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from pagesieve.models.registry import build_method; "
            "from pagesieve.models.page import parse_page; m = build_method('web2text', {'device': 'cpu'}); "
            "import pagesieve; print(pagesieve.__file__); "
            "from pagesieve.models.web2text import dom; print(dom._collapse_dom.__name__); "
            "print(m.process(parse_page(b'<html><body><p>' + b'The cat sat on the mat. ' * 20 + b'</p></body>')).text)")
    proc = subprocess.run([python, "-c", code, build_zip()], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    where, walk, text = proc.stdout.splitlines()[:3]
    assert "pagesieve.zip" in where and text.startswith("The cat sat on the mat.")
    assert walk == "_python_collapse"     # the wheel's C walk (a .so) cannot load from a zip: the Python walk runs


def test_length_groups_bound_the_padded_tensor_and_the_padding():
    lengths = [5, 300, 0, 40, 40, 1000, 7, 39, 21, 3, 280]
    groups = length_groups(lengths, max_blocks=400)
    assert sorted(i for g in groups for i in g) == list(range(len(lengths)))
    for g in groups:
        longest = max(lengths[i] for i in g)
        assert len(g) == 1 or len(g) * longest <= 400
        assert all(lengths[i] >= 0.5 * longest for i in g)         # padding at most doubles the work
    assert [1000] in [[lengths[i] for i in g] for g in groups]     # too long for any group: alone
    assert [40, 40, 39, 21] in [[lengths[i] for i in g] for g in groups]


@pytest.mark.slow
def test_batched_and_one_by_one_give_the_same_documents(real_pages):
    method = Web2Text(Web2TextSettings.load({"device": "cpu"}))
    one_by_one = [method.process(p) for p in real_pages]
    batched = method.process_batch(real_pages)
    # a tight bound splits the batch into several padded groups, in another order than the input
    grouped = Web2Text(Web2TextSettings.load({"device": "cpu", "max_batch_blocks": 2000})).process_batch(real_pages)
    assert [r.text for r in batched] == [r.text for r in one_by_one] == [r.text for r in grouped]
    assert [r.content_xpaths for r in batched] == [r.content_xpaths for r in one_by_one]
    assert sum(r.status == "ok" for r in batched) == len(real_pages)
    # and the potentials themselves, page alone vs padded among longer ones
    feats = [page_features(page_blocks(p)) for p in real_pages]
    unary, pair, lengths = method.model.potentials([f for f, _ in feats], [e for _, e in feats])
    assert len(set(lengths.tolist())) > 5
    for i, (f, e) in enumerate(feats):
        u1, p1, _ = method.model.potentials([f], [e])
        torch.testing.assert_close(unary[i, : len(f)], u1[0], atol=1e-5, rtol=1e-5)
        torch.testing.assert_close(pair[i, : len(e)], p1[0], atol=1e-5, rtol=1e-5)


def test_blocks_join_into_paragraphs_at_line_breaks():
    page = parse_page(b"<html><body><p>Hello <a href='/x'>world</a> again.</p><ul><li>Menu</li></ul>"
                      b"<p>Next <b>para</b>.</p></body></html>")
    blocks = page_blocks(page)
    assert blocks.text == ["Hello", "world", "again.", "Menu", "Next", "para", "."]
    content = np.array([1, 1, 1, 0, 1, 1, 1], dtype=bool)
    assert blocks_text(blocks, content) == "Hello world again.\n\nNext para."      # <b>para</b>. has no space
    # a dropped inline block inside a paragraph does not split it
    assert blocks_text(blocks, np.array([1, 0, 1, 0, 0, 0, 0], dtype=bool)) == "Hello again."


def test_method_statuses_and_registry(real_pages):
    method = build_method("web2text", {"device": "cpu"})
    assert method.name == "web2text" and method.batched
    empty = method.process(parse_page(b"<html><head><title>T</title></head><body>  </body></html>"))
    assert empty.status == "empty" and empty.title == "T"
    assert method.process_batch([]) == []
    with pytest.raises(ValueError, match="lam"):
        build_method("web2text", {"lam": -1.0})


@pytest.mark.slow
def test_a_page_over_max_blocks_is_a_too_large_row_and_its_batch_goes_on(real_pages):
    limit = sorted(len(page_blocks(p)) for p in real_pages)[len(real_pages) // 2]
    capped = build_method("web2text", {"device": "cpu", "max_blocks": limit})
    results = capped.process_batch(real_pages)
    full = build_method("web2text", {"device": "cpu"}).process_batch(real_pages)
    for page, got, expected in zip(real_pages, results, full, strict=True):
        if len(page_blocks(page)) > limit:
            assert got.status == "too_large" and "max_blocks" in got.error and got.text == ""
        else:
            assert got == expected
    assert sum(r.status == "too_large" for r in results) >= len(real_pages) // 3
