"""BlockNet's training recipe, shared by the shipped model's script (scripts/train/train_blocknet.py) and the
leave-one-benchmark-out selection (scripts/eval/lobo_blocknet.py), so that what is selected is what ships.

Pages in random order, `batch` per mini-batch, each cut to a random window of at most `crop` blocks; binary
cross-entropy per block times the block's weight (0 for a block without a label: snippet gold labels only the
blocks it quotes), plus `f1_loss` times 1 - each window's soft bag-of-words F1 (tokens as units); Adam; the
weights returned are an exponential moving average (`ema` per step) of the trained ones after a fixed number of
epochs.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np
import torch
from torch import nn

from ..page.overlap import tokenize
from .model import INPUT_SETS, BlockNetModel
from .net import BlockCNN

__all__ = ["Recipe", "TrainingPage", "block_sizes", "soft_f1_loss", "train"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Recipe:
    epochs: int = 9
    batch: int = 8
    crop: int = 512
    lr: float = 1e-3
    weight_decay: float = 1e-5
    ema: float = 0.995
    width: int = 64
    dropout: float = 0.3
    input_clip: float = 5.0       # standardised inputs bounded to [-5, 5] in training and inference
    pool_weights: dict[str, float] = field(default_factory=lambda: {"cleaneval": 0.3})
    f1_loss: float = 0.0          # weight of a soft bag-of-words F1 term per window, beside the cross-entropy

    def card(self) -> dict:
        return asdict(self)


@dataclass
class TrainingPage:
    pool: str
    page_id: str
    inputs: np.ndarray              # (n, inputs) raw, float32
    labels: np.ndarray              # (n,) float32, 1 = content
    weights: np.ndarray | None = None   # (n,) float32 per-block loss weight; None: all 1
    sizes: np.ndarray | None = None     # (n,) float32 tokens per block, for the soft F1 term; None: 1 each


def block_sizes(texts: Sequence[str]) -> np.ndarray:
    """`TrainingPage.sizes` of a page's blocks: their tokens as the evaluation counts them (at least 1 each)."""
    return np.array([max(1, len(tokenize(t))) for t in texts], dtype=np.float32)


def _batches(pages: list[TrainingPage], model: BlockNetModel, recipe: Recipe,
             rng: np.random.Generator) -> Iterator[tuple[torch.Tensor, ...]]:
    order = rng.permutation(len(pages))
    width = len(model.mean)
    for start in range(0, len(order), recipe.batch):
        chunk = [pages[i] for i in order[start : start + recipe.batch]]
        windows = []
        for p in chunk:
            n = len(p.labels)
            offset = int(rng.integers(0, n - recipe.crop + 1)) if n > recipe.crop else 0
            cut = slice(offset, offset + recipe.crop)
            weight = recipe.pool_weights.get(p.pool, 1.0)
            w = np.full(min(n, recipe.crop), weight, np.float32) if p.weights is None else p.weights[cut] * weight
            size = np.ones(min(n, recipe.crop), np.float32) if p.sizes is None else p.sizes[cut]
            windows.append((p.inputs[cut], p.labels[cut], w, size))
        longest = max(len(y) for _, y, _, _ in windows)
        x = np.zeros((len(windows), longest, width), dtype=np.float32)
        y = np.zeros((len(windows), longest), dtype=np.float32)
        w = np.zeros((len(windows), longest), dtype=np.float32)
        s = np.zeros((len(windows), longest), dtype=np.float32)
        for i, (inputs, labels, weights, sizes) in enumerate(windows):
            x[i, : len(labels)] = model.standardise(inputs)
            y[i, : len(labels)] = labels
            w[i, : len(labels)] = weights
            s[i, : len(labels)] = sizes
        yield (torch.from_numpy(x), torch.from_numpy(y), torch.from_numpy(w), torch.from_numpy(s),
               torch.tensor([len(labels) for _, labels, _, _ in windows]))


def soft_f1_loss(logits: torch.Tensor, labels: torch.Tensor, weights: torch.Tensor,
                 sizes: torch.Tensor) -> torch.Tensor:
    """1 - the soft bag-of-words F1 of each window (its blocks' tokens as units, content probabilities as soft
    decisions; blocks of weight 0 left out), averaged over the windows that hold any content."""
    p = torch.sigmoid(logits)
    units = sizes * (weights > 0)
    tp = (units * p * labels).sum(1)
    fp = (units * p * (1 - labels)).sum(1)
    fn = (units * (1 - p) * labels).sum(1)
    has = ((units * labels).sum(1) > 0).float()
    f1 = 2 * tp / (2 * tp + fp + fn).clamp(min=1e-6)
    return ((1 - f1) * has).sum() / has.sum().clamp(min=1)     # 0, with a gradient, when no window has content


def train(pages: list[TrainingPage], recipe: Recipe, seed: int,
          after_epoch: Callable[[BlockNetModel], dict] | None = None,
          stopwords: str = "english", inputs: str | None = "blocknet") -> tuple[BlockNetModel, list[dict]]:
    """Train on `pages` by `recipe`; returns the averaged model and one row per epoch (its loss, and what
    `after_epoch`, given the averaged model of that epoch, returns: validation scores). `stopwords`: the list
    the pages' stop-word inputs were counted with (STOPWORD_LISTS), recorded in the model's card; `inputs`: which
    of INPUT_SETS the pages' inputs are (the blend model's also hold the peers' votes), or None for an experiment's
    own columns (scripts/eval/lobo_blocknet.py's extras): such a model predicts but cannot be saved."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    stacked = np.concatenate([p.inputs for p in pages])
    if inputs is not None and stacked.shape[1] != len(INPUT_SETS[inputs]):
        raise ValueError(f"pages have {stacked.shape[1]} input columns; {inputs!r} models read "
                         f"{len(INPUT_SETS[inputs])}")
    model = BlockNetModel(BlockCNN(stacked.shape[1], recipe.width, recipe.dropout), stacked.mean(0),
                          stacked.std(0) + 1e-6, clip=recipe.input_clip, stopwords=stopwords, inputs=inputs)
    del stacked
    net = model.net
    average = torch.optim.swa_utils.AveragedModel(
        net, multi_avg_fn=torch.optim.swa_utils.get_ema_multi_avg_fn(recipe.ema))
    optimiser = torch.optim.Adam(net.parameters(), lr=recipe.lr, weight_decay=recipe.weight_decay)
    history: list[dict] = []
    start = time.perf_counter()
    for epoch in range(1, recipe.epochs + 1):
        net.train()
        total = 0.0
        for x, y, w, s, lengths in _batches(pages, model, recipe, rng):
            logits = net(x, lengths)
            per_block = nn.functional.binary_cross_entropy_with_logits(logits, y, reduction="none")
            loss = (per_block * w).sum() / w.sum().clamp(min=1)
            if recipe.f1_loss:
                loss = loss + recipe.f1_loss * soft_f1_loss(logits, y, w, s)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            average.update_parameters(net)
            total += float(loss.detach())
        row = {"epoch": epoch, "train_loss": round(total, 4)}
        if after_epoch is not None:
            model.net = average.module.eval()
            row |= after_epoch(model)
            model.net = net
        history.append(row)
        log.info("epoch %d  loss %.3f  %s  %.0fs", epoch, total,
                 {k: v for k, v in row.items() if k not in ("epoch", "train_loss")} or "", time.perf_counter() - start)
    model.net = average.module.eval()
    return model, history
