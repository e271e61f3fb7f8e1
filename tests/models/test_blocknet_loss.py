"""BlockNet's soft bag-of-words F1 term: the network's (models/blocknet/training.py, `Recipe.f1_loss`) and the
trees' (models/blocknet/trees.py, `TreeRecipe.f1_loss`)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

from pagesieve.models.blocknet.training import TrainingPage, soft_f1_loss
from pagesieve.models.blocknet.trees import TreeRecipe, _soft_f1_objective, train_trees


def _window(*rows: list[float]) -> torch.Tensor:
    return torch.tensor(rows, dtype=torch.float32)


def test_sure_and_right_costs_nothing_and_sure_and_wrong_costs_one():
    labels, weights, sizes = _window([1, 1, 0, 0]), _window([1, 1, 1, 1]), _window([10, 2, 5, 1])
    right = _window([20, 20, -20, -20])
    assert float(soft_f1_loss(right, labels, weights, sizes)) == pytest.approx(0.0, abs=1e-6)
    assert float(soft_f1_loss(-right, labels, weights, sizes)) == pytest.approx(1.0, abs=1e-6)


def test_tokens_weigh_the_blocks():
    # one long content block kept, one short one dropped: F1 over tokens, not blocks (tp 10, fn 2)
    labels, weights, sizes = _window([1, 1]), _window([1, 1]), _window([10, 2])
    loss = soft_f1_loss(_window([30, -30]), labels, weights, sizes)
    assert float(loss) == pytest.approx(1 - 20 / 22, abs=1e-5)


def test_blocks_without_a_label_and_windows_without_content_are_left_out():
    labels, sizes = _window([1, 0, 0], [0, 0, 0]), _window([1, 1, 1], [1, 1, 1])
    weights = _window([1, 1, 0], [1, 1, 1])               # the third block of the first window has no label
    logits = _window([30, -30, 30], [30, 30, 30])         # the second window (no content) would cost 1
    assert float(soft_f1_loss(logits, labels, weights, sizes)) == pytest.approx(0.0, abs=1e-6)


def test_a_batch_without_content_gives_zero_with_a_gradient():
    logits = torch.zeros(2, 3, requires_grad=True)
    loss = soft_f1_loss(logits, torch.zeros(2, 3), torch.ones(2, 3), torch.ones(2, 3))
    loss.backward()
    assert float(loss) == 0.0 and logits.grad is not None


def test_the_trees_objective_is_the_gradient_of_cross_entropy_plus_the_f1_term():
    # two pages, one without content (its F1 term left out); the gradient against torch's of the same loss
    labels = np.array([1, 0, 1, 0, 0, 0], np.float32)
    weights = np.array([1, 0.5, 1, 1, 2, 1], np.float32)
    units = np.array([10, 2, 5, 1, 3, 4], np.float32)
    counts = np.array([4, 2])
    scores = np.array([0.5, 1.0, -2.0, 0.3, -0.1, 0.7])
    grad, hess = _soft_f1_objective(labels, weights, units, counts, 2.0)(scores, None)

    s = torch.tensor(scores, requires_grad=True)
    y, w = torch.tensor(labels, dtype=torch.float64), torch.tensor(weights, dtype=torch.float64)
    cross_entropy = (nn.functional.binary_cross_entropy_with_logits(s, y, reduction="none") * w).sum()
    first = soft_f1_loss(s[:4][None], y[:4][None], w[:4][None], torch.tensor(units[:4], dtype=torch.float64)[None])
    (cross_entropy + 2.0 * float(weights.sum()) / 1 * first).backward()   # one page holds content
    np.testing.assert_allclose(grad, s.grad.numpy(), rtol=1e-6, atol=1e-9)
    p = 1 / (1 + np.exp(-scores))
    np.testing.assert_allclose(hess, weights * p * (1 - p), rtol=1e-6)


def test_trees_trained_with_the_f1_term_differ_and_none_is_the_cross_entropy_alone():
    rng = np.random.default_rng(0)
    pages = [TrainingPage("pool", str(i), rng.normal(size=(60, 4)).astype(np.float32),
                          (rng.random(60) < 0.3).astype(np.float32), sizes=rng.integers(1, 30, 60).astype(np.float32))
             for i in range(6)]
    recipe = TreeRecipe(rounds=5, min_data_in_leaf=5, threads=1)
    plain = train_trees(pages, recipe, 0, {}, 512)
    assert train_trees(pages, TreeRecipe(rounds=5, min_data_in_leaf=5, threads=1, f1_loss=0.0), 0, {}, 512).text \
        == plain.text
    assert train_trees(pages, TreeRecipe(rounds=5, min_data_in_leaf=5, threads=1, f1_loss=1.0), 0, {}, 512).text \
        != plain.text
