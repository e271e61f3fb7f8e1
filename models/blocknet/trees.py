"""BlockNet's second model family: gradient-boosted trees per block, whose raw scores are averaged with the
network's logits.

The network reads standardised inputs clipped to 5 standard deviations, through convolutions over the block
sequence; the trees read the same raw inputs unclipped, with their means over +-2 and +-8 blocks and over the page
(`context_inputs`), as thresholds. The two families make different mistakes: left out of training benchmark by
benchmark, the mean of their logits beat the network alone where the mean of three seeds of the network did not
(docs/experiments.md#2026-11-29-the-trees-shipped-rounds-and-gate-chosen-left-out).

LightGBM trains and predicts them. The model travels inside BlockNet's `.npz` as LightGBM's own text format held in
a uint8 array (`arrays`): plain numbers and names, read without pickle, so loading a model runs no code.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from .training import TrainingPage

__all__ = ["CONTEXT_RADII", "TREES_KEY", "BlockTrees", "TreeRecipe", "context_inputs", "gated_mean", "train_trees",
           "unsure_blocks"]

CONTEXT_RADII = (2, 8)
TREES_KEY = "trees/lightgbm"          # the array of a BlockNet `.npz` that holds the trees


def context_inputs(x: np.ndarray, rows: np.ndarray | None = None, radii: Sequence[int] = CONTEXT_RADII) -> np.ndarray:
    """(n, F) raw block inputs -> (rows.sum(), F * (2 + len(radii)) + 1) float32 for the blocks where the boolean
    mask `rows` is set (default all): the inputs, their means over the blocks within +-r (cut at the page's ends),
    their means over the page, and log(1 + n). Each row is the same whichever rows are asked for."""
    n = len(x)
    sums = np.zeros((n + 1, x.shape[1]))
    sums[1:] = x
    # in place on the float64 copy: the same sums as np.cumsum(x, axis=0) in the same order, twice as fast (numpy
    # casts float32 to float64 in small buffers when it accumulates and casts at once)
    np.add.accumulate(sums[1:], axis=0, out=sums[1:])
    at = np.arange(n) if rows is None else np.flatnonzero(rows)
    out = np.empty((len(at), x.shape[1] * (2 + len(radii)) + 1), np.float32)
    out[:, : x.shape[1]] = x[at]
    for k, r in enumerate(radii, start=1):
        lo, hi = np.maximum(at - r, 0), np.minimum(at + r + 1, n)
        out[:, k * x.shape[1] : (k + 1) * x.shape[1]] = (sums[hi] - sums[lo]) / (hi - lo)[:, None]
    out[:, -1 - x.shape[1] : -1] = sums[n] / max(n, 1)
    out[:, -1] = np.log1p(n)
    return out


def unsure_blocks(network: np.ndarray, gate: float) -> np.ndarray:
    """The blocks the trees read: where |network logit| < `gate`. A confident network is rarely overturned by the
    mean, and the trees' cost grows with the blocks they read (docs/methods/blocknet.md#trees)."""
    return np.abs(network) < gate


def gated_mean(network: np.ndarray, unsure: np.ndarray, trees: np.ndarray) -> np.ndarray:
    """The network's logits with the mean of its and the trees' on the `unsure` blocks (`unsure_blocks`); `trees`
    holds the trees' scores of those blocks, in order."""
    out = network.copy()
    out[unsure] = (network[unsure] + trees) / 2
    return out


def _lightgbm() -> Any:
    try:
        import lightgbm
    except ImportError as e:        # a dependency of pagesieve (requirements.txt); missing only in a partial install
        raise ImportError("BlockNet's trees need LightGBM: pip install 'lightgbm>=4.6,<5'") from e
    return lightgbm


class BlockTrees:
    """A LightGBM model of content per block over `context_inputs`; `logits` gives its raw scores, `blend` their
    mean with the network's where the network is unsure."""

    def __init__(self, model_text: str, gate: float = np.inf) -> None:
        self.text = model_text
        self.gate = float(gate)
        self.booster = _lightgbm().Booster(model_str=model_text)

    def logits(self, inputs: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """Raw inputs of one page (n, F) -> float32 raw scores (log-odds) of the blocks of the mask `rows` (default
        all), on one thread."""
        x = context_inputs(inputs, rows)
        if len(x) == 0:
            return np.zeros(0, np.float32)
        return self.booster.predict(x, raw_score=True, num_threads=1).astype(np.float32)

    def blend(self, network: np.ndarray, inputs: np.ndarray) -> np.ndarray:
        """`gated_mean` of the network's logits of one page and the trees', the trees run on the unsure blocks only."""
        unsure = unsure_blocks(network, self.gate)
        return gated_mean(network, unsure, self.logits(inputs, unsure)) if unsure.any() else network

    def arrays(self) -> dict[str, np.ndarray]:
        return {TREES_KEY: np.frombuffer(self.text.encode("utf-8"), dtype=np.uint8)}

    @classmethod
    def from_array(cls, array: np.ndarray, gate: float = np.inf) -> BlockTrees:
        return cls(array.tobytes().decode("utf-8"), gate)


@dataclass(frozen=True)
class TreeRecipe:
    """LightGBM's parameters of the shipped trees, chosen by leaving whole benchmarks out (docs/experiments.md)."""
    rounds: int = 150
    num_leaves: int = 63
    learning_rate: float = 0.1
    feature_fraction: float = 0.5           # of the inputs, drawn anew for each tree
    bagging_fraction: float = 0.5           # of the blocks, drawn anew for each tree
    min_data_in_leaf: int = 200
    max_bin: int = 63
    lambda_l2: float = 1.0
    threads: int = 2                        # part of the recipe: LightGBM's sums, and so its model, depend on it
    gate: float = 2.0                       # `BlockTrees.blend`: the trees read the blocks where |network| < gate

    def card(self) -> dict:
        return asdict(self)


def train_trees(pages: Sequence[TrainingPage], recipe: TreeRecipe, seed: int,
                pool_weights: dict[str, float], window: int) -> BlockTrees:
    """Train the trees on `pages` (raw inputs, labels, per-block weights): each block weighs its pool's weight times
    its own times min(1, window / page blocks), so a long page weighs what one training window of the network does.
    Deterministic for a fixed seed and thread count (LightGBM's `deterministic`, row-wise histograms)."""
    lgb = _lightgbm()
    xs, ys, ws = [], [], []
    for p in pages:
        n = len(p.labels)
        w = np.ones(n, np.float32) if p.weights is None else p.weights
        w = w * pool_weights.get(p.pool, 1.0) * min(1.0, window / max(n, 1))
        keep = w > 0
        xs.append(context_inputs(p.inputs, keep))
        ys.append(p.labels[keep])
        ws.append(w[keep])
    params = {"objective": "binary", "verbosity": -1, "deterministic": True, "force_row_wise": True,
              "num_threads": recipe.threads, "num_leaves": recipe.num_leaves, "learning_rate": recipe.learning_rate,
              "feature_fraction": recipe.feature_fraction, "bagging_fraction": recipe.bagging_fraction,
              "bagging_freq": 1, "min_data_in_leaf": recipe.min_data_in_leaf, "max_bin": recipe.max_bin,
              "lambda_l2": recipe.lambda_l2, "seed": seed, "bagging_seed": seed, "feature_fraction_seed": seed}
    data = lgb.Dataset(np.concatenate(xs), np.concatenate(ys), weight=np.concatenate(ws),
                       params={"max_bin": recipe.max_bin}, free_raw_data=True)
    booster = lgb.train(params, data, num_boost_round=recipe.rounds)
    return BlockTrees(booster.model_to_string(), recipe.gate)
