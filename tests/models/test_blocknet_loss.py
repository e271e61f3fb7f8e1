"""BlockNet's soft bag-of-words F1 term (models/blocknet/training.py, `Recipe.f1_loss`)."""

from __future__ import annotations

import pytest
import torch

from pagesieve.models.blocknet.training import soft_f1_loss


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
