"""BlockNet's second model family: gradient-boosted trees per block, whose raw scores are averaged with the
network's logits.

The network reads standardised inputs clipped to 5 standard deviations, through convolutions over the block
sequence; the trees read the same raw inputs unclipped, with their means over +-2 and +-8 blocks and over the page
(`context_inputs`), as thresholds. The two families make different mistakes: left out of training benchmark by
benchmark, the mean of their logits beat the network alone where the mean of three seeds of the network did not
(docs/experiments.md#2026-11-29-the-trees-shipped-rounds-and-gate-chosen-left-out).

LightGBM trains them. The model travels inside BlockNet's `.npz` as LightGBM's own text format held in a uint8 array
(`arrays`): plain numbers and names, read without pickle, so loading a model runs no code. At inference the trees
are walked in C (models/blocknet/_ctrees.c, `TreeArrays`: LightGBM's scores to the last bit, without LightGBM's
import or its per-call setup); without the extension, LightGBM predicts them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..page.native import load_native

if TYPE_CHECKING:
    from .training import TrainingPage

__all__ = ["CONTEXT_RADII", "TREES_KEY", "BlockTrees", "TreeArrays", "TreeRecipe", "context_inputs", "gated_mean",
           "train_trees", "unsure_blocks"]

CONTEXT_RADII = (2, 8)
TREES_KEY = "trees/lightgbm"          # the array of a BlockNet `.npz` that holds the trees
_ctrees = load_native("blocknet._ctrees")


def context_inputs(x: np.ndarray, rows: np.ndarray | None = None, radii: Sequence[int] = CONTEXT_RADII) -> np.ndarray:
    """(n, F) raw block inputs -> (rows.sum(), F * (2 + len(radii)) + 1) float32 for the blocks where the boolean
    mask `rows` is set (default all): the inputs, their means over the blocks within +-r (cut at the page's ends),
    their means over the page, and log(1 + n). Each row is the same whichever rows are asked for."""
    n = len(x)
    at = np.arange(n, dtype=np.int64) if rows is None else np.flatnonzero(rows).astype(np.int64, copy=False)
    out = np.empty((len(at), x.shape[1] * (2 + len(radii)) + 1), np.float32)
    if _ctrees is not None and x.dtype == np.float32:          # the same floats, ~5x faster
        _ctrees.context_inputs(np.ascontiguousarray(x), at, np.asarray(radii, dtype=np.int64), out)
    else:
        _numpy_context_inputs(x, at, radii, out)
    out[:, -1] = np.log1p(n)
    return out


def _numpy_context_inputs(x: np.ndarray, at: np.ndarray, radii: Sequence[int], out: np.ndarray) -> None:
    """`context_inputs` but the last column, in numpy (where the C extension is not built)."""
    n = len(x)
    sums = np.zeros((n + 1, x.shape[1]))
    sums[1:] = x
    # in place on the float64 copy: the same sums as np.cumsum(x, axis=0) in the same order, twice as fast (numpy
    # casts float32 to float64 in small buffers when it accumulates and casts at once)
    np.add.accumulate(sums[1:], axis=0, out=sums[1:])
    out[:, : x.shape[1]] = x[at]
    for k, r in enumerate(radii, start=1):
        lo, hi = np.maximum(at - r, 0), np.minimum(at + r + 1, n)
        out[:, k * x.shape[1] : (k + 1) * x.shape[1]] = (sums[hi] - sums[lo]) / (hi - lo)[:, None]
    out[:, -1 - x.shape[1] : -1] = sums[n] / max(n, 1)


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
    mean with the network's where the network is unsure. Where the C extension is built, the trees are walked in C
    (`TreeArrays`, LightGBM's scores to the last bit) and LightGBM is never imported; else by LightGBM itself."""

    def __init__(self, model_text: str, gate: float = np.inf) -> None:
        self.text = model_text
        self.gate = float(gate)
        self.flat = TreeArrays.parse(model_text) if _ctrees is not None else None
        self._booster: Any = None

    @property
    def booster(self) -> Any:
        """LightGBM's Booster of the model (built on first use: inference does not need it where `flat` is set)."""
        if self._booster is None:
            self._booster = _lightgbm().Booster(model_str=self.text)
        return self._booster

    def logits(self, inputs: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """Raw inputs of one page (n, F) -> float32 raw scores (log-odds) of the blocks of the mask `rows` (default
        all), on one thread."""
        x = context_inputs(inputs, rows)
        if len(x) == 0:
            return np.zeros(0, np.float32)
        if self.flat is not None:
            return self.flat.predict(x).astype(np.float32)
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
class TreeArrays:
    """The trees of a LightGBM text model as flat arrays, predicted by models/blocknet/_ctrees.c: per internal node
    its feature, threshold, decision type and children (>= 0 a node of the same tree, < 0 the leaf ~child), per
    leaf its value, and where each tree's nodes and leaves start. Checked once when made (every index inside its
    tree and the row, or a ValueError) and kept read-only, so that a prediction need not check them again."""
    feature: np.ndarray         # int32
    threshold: np.ndarray       # float64
    decision: np.ndarray        # uint8: LightGBM's decision_type (default-left bit, missing type)
    left: np.ndarray            # int32
    right: np.ndarray           # int32
    leaf_value: np.ndarray      # float64
    node_start: np.ndarray      # int32, trees + 1
    leaf_start: np.ndarray      # int32, trees + 1
    n_features: int
    plain: bool = field(init=False)     # every node has missing type None: the C walk's fast path

    def __post_init__(self) -> None:
        arrays = self._arrays()
        for a in arrays:
            a.flags.writeable = False
        object.__setattr__(self, "plain", _ctrees.check(*arrays, self.n_features))

    def _arrays(self) -> tuple[np.ndarray, ...]:
        return (self.feature, self.threshold, self.decision, self.left, self.right, self.leaf_value, self.node_start,
                self.leaf_start)

    @classmethod
    def parse(cls, model_text: str) -> TreeArrays | None:
        """The arrays of a single-output LightGBM model, or None for one the C walk does not follow (categorical
        splits, linear trees, several classes, averaged outputs, no tree at all): LightGBM predicts those."""
        header, found, body = model_text.partition("\nTree=")
        if not found:
            return None
        fields = dict(line.split("=", 1) for line in header.splitlines() if "=" in line)
        if (fields.get("num_class") != "1" or fields.get("num_tree_per_iteration") != "1"
                or "average_output" in header.split() or "max_feature_idx" not in fields):
            return None
        columns: dict[str, list] = {k: [] for k in ("feature", "threshold", "decision", "left", "right", "leaf_value")}
        node_start, leaf_start = [0], [0]
        for tree in ("Tree=" + body).split("end of trees", 1)[0].split("\nTree="):
            t = dict(line.split("=", 1) for line in tree.splitlines() if "=" in line)
            if int(t.get("num_cat", "0")) or int(t.get("is_linear", "0")):
                return None
            leaves = int(t["num_leaves"])
            values = [float(v) for v in t["leaf_value"].split()]
            nodes = {k: t[key].split() if leaves > 1 else [] for k, key in (
                ("feature", "split_feature"), ("threshold", "threshold"), ("decision", "decision_type"),
                ("left", "left_child"), ("right", "right_child"))}
            if len(values) != leaves or any(len(v) != leaves - 1 for v in nodes.values()):
                return None
            if any(int(d) & 1 for d in nodes["decision"]):          # categorical split
                return None
            for k, v in nodes.items():
                columns[k] += [float(x) for x in v] if k == "threshold" else [int(x) for x in v]
            columns["leaf_value"] += values
            node_start.append(node_start[-1] + leaves - 1)
            leaf_start.append(leaf_start[-1] + leaves)
        dtypes = {"feature": np.int32, "threshold": np.float64, "decision": np.uint8, "left": np.int32,
                  "right": np.int32, "leaf_value": np.float64}
        return cls(**{k: np.asarray(v, dtype=dtypes[k]) for k, v in columns.items()},
                   node_start=np.asarray(node_start, np.int32), leaf_start=np.asarray(leaf_start, np.int32),
                   n_features=int(fields["max_feature_idx"]) + 1)

    def predict(self, x: np.ndarray) -> np.ndarray:
        """(rows, n_features) inputs -> float64 raw scores, as LightGBM's `predict(x, raw_score=True)`."""
        x = np.ascontiguousarray(x, dtype=np.float32)
        if x.ndim != 2 or x.shape[1] != self.n_features:
            raise ValueError(f"expected (rows, {self.n_features}) inputs, got {x.shape}")
        out = np.empty(len(x), np.float64)
        _ctrees.predict(*self._arrays(), self.n_features, self.plain, x, out)
        return out


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
    f1_loss: float = 0.0                    # weight of each page's soft bag-of-words F1 term (`_soft_f1_objective`)
    gate: float = 2.0                       # `BlockTrees.blend`: the trees read the blocks where |network| < gate

    def card(self) -> dict:
        return asdict(self)


def train_trees(pages: Sequence[TrainingPage], recipe: TreeRecipe, seed: int,
                pool_weights: dict[str, float], window: int) -> BlockTrees:
    """Train the trees on `pages` (raw inputs, labels, per-block weights): each block weighs its pool's weight times
    its own times min(1, window / page blocks), so a long page weighs what one training window of the network does.
    With `recipe.f1_loss`, each page's soft bag-of-words F1 term joins the cross-entropy, as the network's
    (training.soft_f1_loss). Deterministic for a fixed seed and thread count (LightGBM's `deterministic`, row-wise
    histograms)."""
    lgb = _lightgbm()
    xs, ys, ws, units = [], [], [], []
    for p in pages:
        n = len(p.labels)
        w = np.ones(n, np.float32) if p.weights is None else p.weights
        w = w * pool_weights.get(p.pool, 1.0) * min(1.0, window / max(n, 1))
        keep = w > 0
        xs.append(context_inputs(p.inputs, keep))
        ys.append(p.labels[keep])
        ws.append(w[keep])
        if recipe.f1_loss:
            units.append(np.ones(int(keep.sum()), np.float32) if p.sizes is None else p.sizes[keep])
    params = {"objective": "binary", "verbosity": -1, "deterministic": True, "force_row_wise": True,
              "num_threads": recipe.threads, "num_leaves": recipe.num_leaves, "learning_rate": recipe.learning_rate,
              "feature_fraction": recipe.feature_fraction, "bagging_fraction": recipe.bagging_fraction,
              "bagging_freq": 1, "min_data_in_leaf": recipe.min_data_in_leaf, "max_bin": recipe.max_bin,
              "lambda_l2": recipe.lambda_l2, "seed": seed, "bagging_seed": seed, "feature_fraction_seed": seed}
    y, w = np.concatenate(ys), np.concatenate(ws)
    if recipe.f1_loss:
        counts = np.array([len(page) for page in ys])
        params["objective"] = _soft_f1_objective(y, w, np.concatenate(units), counts, recipe.f1_loss)
    data = lgb.Dataset(np.concatenate(xs), y, weight=w, params={"max_bin": recipe.max_bin}, free_raw_data=True)
    booster = lgb.train(params, data, num_boost_round=recipe.rounds)
    return BlockTrees(booster.model_to_string(), recipe.gate)


def _soft_f1_objective(labels: np.ndarray, weights: np.ndarray, units: np.ndarray, counts: np.ndarray,
                       scale: float) -> Callable[[np.ndarray, Any], tuple[np.ndarray, np.ndarray]]:
    """LightGBM objective: the weighted cross-entropy plus `scale` times each page's 1 - soft F1 (its blocks'
    tokens `units` as units, content probabilities as soft decisions), a page weighing what the mean page weighs in
    the cross-entropy, as a window does beside the network's per-block mean. The Hessian is the cross-entropy's
    (the F1 term's is not positive), so the F1 term steers the direction and the cross-entropy the step. LightGBM
    cannot boost a custom objective from the mean log-odds, as it does the shipped `binary` one, so these trees start
    from a raw score of 0 and their first rounds fit the bias (this objective is not shipped; docs/experiments.md)."""
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    page = np.repeat(np.arange(len(counts)), counts)
    has = np.add.reduceat(units * labels, starts) > 0 if len(counts) else np.zeros(0, bool)
    page_weight = scale * weights.sum() / max(int(has.sum()), 1)

    def objective(scores: np.ndarray, _data: Any) -> tuple[np.ndarray, np.ndarray]:
        p = 1 / (1 + np.exp(-scores))
        grad, hess = weights * (p - labels), weights * p * (1 - p)
        tp = np.add.reduceat(units * p * labels, starts)
        denominator = np.add.reduceat(units * p, starts) + np.add.reduceat(units * labels, starts)
        denominator = np.maximum(denominator, 1e-6)
        # d(1 - F1)/dp_i = -2 u_i (y_i D - TP) / D^2, with F1 = 2 TP / D
        d_p = -2 * units * (labels * denominator[page] - tp[page]) / denominator[page] ** 2
        grad = grad + page_weight * has[page] * d_p * p * (1 - p)
        return grad, np.maximum(hess, 1e-6)

    return objective
