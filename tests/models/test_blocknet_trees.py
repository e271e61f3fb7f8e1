"""BlockNet's trees (models/blocknet/trees.py): the context inputs, training on real pages, the model file, and the
mean with the network."""

from __future__ import annotations

import numpy as np
import pytest

from pagesieve.eval import iter_gold_pages
from pagesieve.models.blocknet import BlockNetModel, page_inputs
from pagesieve.models.blocknet import trees as trees_module
from pagesieve.models.blocknet.training import Recipe, TrainingPage, train
from pagesieve.models.blocknet.trees import TREES_KEY, BlockTrees, TreeArrays, TreeRecipe, context_inputs, train_trees
from pagesieve.models.page import parse_page
from pagesieve.models.page.native import load_native
from pagesieve.models.web2text import label_blocks


def test_context_inputs_are_the_inputs_their_window_and_page_means_and_the_page_length():
    x = np.random.default_rng(0).normal(size=(20, 3)).astype(np.float32)
    out = context_inputs(x)
    assert out.shape == (20, 3 * 4 + 1) and out.dtype == np.float32
    for i in (0, 1, 9, 19):
        near, far = x[max(i - 2, 0) : i + 3], x[max(i - 8, 0) : i + 9]     # cut at the page's ends
        expected = np.concatenate([x[i], near.mean(0), far.mean(0), x.mean(0), [np.log1p(20)]])
        np.testing.assert_allclose(out[i], expected, rtol=1e-5, atol=1e-6)
    assert context_inputs(np.zeros((0, 3), np.float32)).shape == (0, 13)


@pytest.fixture(scope="module")
def pages(shared_data) -> list[TrainingPage]:
    out = []
    for pool in ("l3s-gn1", "dragnet"):
        for gold in list(iter_gold_pages(shared_data / pool, "fit"))[:10]:
            blocks, inputs = page_inputs(parse_page(gold.html, url=gold.url, page_id=gold.page_id),
                                         stopwords="page-language")
            labels = np.asarray(label_blocks(blocks.text, gold.gold), dtype=np.float32)
            out.append(TrainingPage(pool, gold.page_id, inputs, labels))
    return out


@pytest.fixture(scope="module")
def trees(pages) -> BlockTrees:
    return train_trees(pages, TreeRecipe(rounds=20, min_data_in_leaf=20, threads=1), 0, {}, 512)


def test_the_trees_learn_content_from_real_pages(pages, trees):
    # on the pages they were trained on, a content block scores above a boilerplate block far more often than not
    scores = np.concatenate([trees.logits(p.inputs) for p in pages])
    labels = np.concatenate([p.labels for p in pages]).astype(bool)
    pairs = scores[labels][:, None] > scores[~labels][None, :]
    assert pairs.mean() > 0.9


def test_training_is_deterministic_and_a_seed_changes_it(pages, trees):
    recipe = TreeRecipe(rounds=20, min_data_in_leaf=20, threads=1)
    assert train_trees(pages, recipe, 0, {}, 512).text == trees.text
    assert train_trees(pages, recipe, 1, {}, 512).text != trees.text


def test_page_weights_shape_the_trees(pages, trees):
    # a pool weighted down to nothing leaves the other pool's blocks alone in training: other trees
    recipe = TreeRecipe(rounds=20, min_data_in_leaf=20, threads=1)
    assert train_trees(pages, recipe, 0, {"dragnet": 0.0}, 512).text != trees.text


def test_a_model_file_carries_its_trees_and_averages_them_with_the_network(tmp_path, pages, trees):
    network, _ = train(pages[:6], Recipe(epochs=1), 0, stopwords="page-language")
    inputs = [p.inputs for p in pages[:4]]
    alone = network.logits(inputs)
    network.trees = trees
    stem = tmp_path / "with-trees"
    network.save(stem)
    with np.load(stem.with_suffix(".npz"), allow_pickle=False) as z:
        assert z[TREES_KEY].dtype == np.uint8      # LightGBM's text model as plain bytes: no pickle, no code
    loaded = BlockNetModel.load(stem.with_suffix(".npz"))
    assert loaded.trees is not None and loaded.trees.text == trees.text
    assert loaded.trees.gate == trees.gate == TreeRecipe().gate          # the gate travels in the card
    for x, before, after in zip(inputs, alone, loaded.logits(inputs), strict=True):
        unsure = np.abs(before) < trees.gate
        expected = np.where(unsure, (before + trees.logits(x)) / 2, before)
        np.testing.assert_allclose(after, expected, rtol=1e-5, atol=1e-5)
    assert not np.allclose(alone[0], loaded.logits(inputs[:1])[0])
    assert loaded.logits([inputs[0][:0]])[0].shape == (0,)


def test_the_trees_read_only_the_blocks_the_network_is_unsure_of(pages, trees):
    x = pages[0].inputs
    network = np.linspace(-4, 4, len(x)).astype(np.float32)
    rows = np.abs(network) < 1.5
    assert 0 < rows.sum() < len(x)
    np.testing.assert_allclose(trees.logits(x, rows), trees.logits(x)[rows], rtol=1e-6)   # same inputs, fewer rows
    narrow = BlockTrees(trees.text, gate=1.5)
    blended = narrow.blend(network, x)
    np.testing.assert_array_equal(blended[~rows], network[~rows])
    np.testing.assert_allclose(blended[rows], (network[rows] + trees.logits(x)[rows]) / 2, rtol=1e-6)
    assert np.array_equal(BlockTrees(trees.text, gate=0.0).blend(network, x), network)


def test_a_model_without_trees_is_the_network_alone(tmp_path, pages):
    network, _ = train(pages[:6], Recipe(epochs=1), 0, stopwords="page-language")
    stem = tmp_path / "network"
    network.save(stem)
    loaded = BlockNetModel.load(stem.with_suffix(".npz"))
    assert loaded.trees is None
    np.testing.assert_array_equal(loaded.logits([pages[0].inputs])[0], network.network_logits([pages[0].inputs])[0])


# ---- the trees walked in C (models/blocknet/_ctrees.c) ---------------------------------------------------------


def test_the_c_walk_is_the_one_in_use_and_lightgbm_is_not_imported(monkeypatch):
    # CI must not pass on the fallback alone: the build (setup.py) compiles _ctrees where gcc is found
    import subprocess
    import sys

    assert trees_module._ctrees is not None, "_ctrees is not built: pip install -e ."
    assert BlockNetModel.load("default").trees.flat is not None
    code = ("import sys, numpy as np; from pagesieve.models.blocknet import BlockNetModel; "
            "m = BlockNetModel.load('default'); m.logits([np.zeros((5, len(m.mean)), np.float32)]); "
            "print('lightgbm' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "False\n"
    monkeypatch.setenv("PAGESIEVE_PURE_PYTHON", "1")
    assert load_native("blocknet._ctrees") is None


def test_the_c_walk_gives_lightgbms_scores_on_real_pages(shared_data):
    shipped = BlockNetModel.load("default").trees
    rows = []
    for pool in ("wcxb", "trafilatura-eval", "dragnet"):
        for gold in list(iter_gold_pages(shared_data / pool, "test"))[:4]:
            _, inputs = page_inputs(parse_page(gold.html, url=gold.url), stopwords="page-language")
            rows.append(context_inputs(inputs))
    x = np.concatenate(rows)
    assert len(x) > 500
    assert np.array_equal(shipped.flat.predict(x), shipped.booster.predict(x, raw_score=True, num_threads=1))


@pytest.mark.parametrize("missing", ["none", "nan", "zero"])
def test_the_c_walk_follows_lightgbms_missing_values(missing):
    # LightGBM's three missing types (trained with NaN, with zero_as_missing, with neither), read on inputs holding
    # NaN, infinities, zeros of both signs and values within 1e-35 of zero; one-leaf trees too (min_data_in_leaf)
    lgb = trees_module._lightgbm()
    rng = np.random.default_rng(1)
    x = rng.normal(size=(400, 6)).astype(np.float32)
    y = (x[:, 0] + x[:, 1] > 0).astype(float)
    if missing == "nan":
        x[rng.random(x.shape) < 0.2] = np.nan
    params = {"objective": "binary", "verbosity": -1, "num_leaves": 7, "min_data_in_leaf": 5, "seed": 0,
              "zero_as_missing": missing == "zero", "num_threads": 1}
    text = lgb.train(params, lgb.Dataset(x, y), num_boost_round=12).model_to_string()
    flat = TreeArrays.parse(text)
    decision = (flat.decision >> 2) & 3
    assert {"none": 0, "zero": 1, "nan": 2}[missing] in set(decision.tolist())
    probe = rng.normal(size=(300, 6)).astype(np.float32)
    for value, share in ((np.nan, 0.1), (0.0, 0.1), (-0.0, 0.05), (1e-38, 0.05), (-1e-36, 0.05), (np.inf, 0.02)):
        probe[rng.random(probe.shape) < share] = value
    booster = lgb.Booster(model_str=text)
    assert np.array_equal(flat.predict(probe), booster.predict(probe, raw_score=True, num_threads=1))
    stump = lgb.train(params | {"min_data_in_leaf": 1000}, lgb.Dataset(x, y), num_boost_round=3).model_to_string()
    assert np.array_equal(TreeArrays.parse(stump).predict(probe),
                          lgb.Booster(model_str=stump).predict(probe, raw_score=True, num_threads=1))


def test_models_the_c_walk_does_not_follow_are_left_to_lightgbm():
    lgb = trees_module._lightgbm()
    rng = np.random.default_rng(2)
    x = np.column_stack([rng.integers(0, 5, 300), rng.normal(size=300)]).astype(np.float32)
    y = (x[:, 0] > 2).astype(float)
    params = {"objective": "binary", "verbosity": -1, "num_leaves": 4, "min_data_in_leaf": 5}
    categorical = lgb.train(params, lgb.Dataset(x, y, categorical_feature=[0]), num_boost_round=3)
    assert TreeArrays.parse(categorical.model_to_string()) is None
    three = lgb.train(params | {"objective": "multiclass", "num_class": 3}, lgb.Dataset(x, x[:, 0] % 3),
                      num_boost_round=2)
    assert TreeArrays.parse(three.model_to_string()) is None
    assert TreeArrays.parse("tree\nnum_class=1\nnum_tree_per_iteration=1\nmax_feature_idx=1\n\nend of trees\n") is None
    trees = BlockTrees(categorical.model_to_string())
    assert trees.flat is None and trees.booster is not None
    with pytest.raises(ValueError, match="inputs"):
        TreeArrays.parse(lgb.train(params, lgb.Dataset(x, y), num_boost_round=2).model_to_string()).predict(x[:, :1])


def test_arrays_that_point_outside_their_tree_are_refused():
    import dataclasses

    flat = BlockNetModel.load("default").trees.flat
    x = np.zeros((3, flat.n_features), np.float32)
    left = flat.left.copy()
    left[5] = 10_000                                   # a child past its tree's nodes
    feature = flat.feature.copy()
    feature[0] = flat.n_features                       # a feature past the row
    # refused when made (the C walk then reads them unchecked), and the arrays kept cannot be changed after the check
    for broken in ({"left": left}, {"feature": feature}):
        with pytest.raises(ValueError, match="outside"):
            dataclasses.replace(flat, **broken).predict(x)
    with pytest.raises(ValueError, match="inconsistent"):
        dataclasses.replace(flat, threshold=flat.threshold[:-1]).predict(x)
    with pytest.raises(ValueError, match="read-only"):
        flat.left[5] = 10_000


def test_the_c_context_inputs_are_numpys_floats(pages):
    # the C sums and means (models/blocknet/_ctrees.c) against the numpy ones they replace, float for float
    assert trees_module._ctrees is not None, "_ctrees is not built: pip install -e ."
    rng = np.random.default_rng(3)
    cases = [p.inputs for p in pages] + [rng.normal(size=(n, 7)).astype(np.float32) * 1e3 for n in (0, 1, 2, 17)]
    for x in cases:
        for rows in (None, rng.random(len(x)) < 0.3):
            for radii in ((2, 8), (), (0, 40)):
                out = context_inputs(x, rows, radii)
                at = np.arange(len(x)) if rows is None else np.flatnonzero(rows)
                numpy = np.empty_like(out)
                trees_module._numpy_context_inputs(x, at, radii, numpy)
                numpy[:, -1] = np.log1p(len(x))
                assert np.array_equal(out, numpy)
    with pytest.raises(ValueError, match="outside"):
        trees_module._ctrees.context_inputs(cases[0], np.array([len(cases[0])]), np.array([2]),
                                            np.empty((1, cases[0].shape[1] * 3 + 1), np.float32))
