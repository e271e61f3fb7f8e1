"""A trained Web2Text model: the two CNNs, the training-set feature statistics, and batched prediction.

Saved as `<stem>.npz` (every parameter and statistic as a plain array, read with `allow_pickle=False`, so
loading a model runs no code) and `<stem>.json` (how it was trained: data, split, seeds, steps, validation
scores, the feature names it expects). The packaged models live in `weights/` and load by name.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from ..page.weights import read_model_files, write_model_files
from .features import EDGE_FEATURE_NAMES, FEATURE_NAMES, FeatureStats, standardise
from .net import PairwiseCNN, UnaryCNN
from .settings import PACKAGED_MODELS
from .viterbi import LAMBDA, viterbi

__all__ = ["PACKAGED_MODELS", "Web2TextModel", "pad_sequences", "pick_device"]

_STATS_FIELDS = ("mean", "std", "lo", "hi", "binary")


def pick_device(device: str) -> torch.device:
    """"auto" -> cuda when present, else cpu; anything else is passed to torch (a bad name fails here)."""
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(device)


def pad_sequences(arrays: Sequence[np.ndarray], width: int, device: torch.device
                  ) -> tuple[torch.Tensor, torch.Tensor]:
    """Stack (L_i, width) arrays into one zero-padded (B, max L, width) float32 tensor plus the lengths (B,)."""
    lengths = [len(a) for a in arrays]
    out = np.zeros((len(arrays), max(lengths, default=0), width), dtype=np.float32)
    for i, a in enumerate(arrays):
        out[i, : len(a)] = a
    return torch.from_numpy(out).to(device), torch.tensor(lengths, dtype=torch.long, device=device)


class Web2TextModel:
    """Unary and pairwise CNNs plus the statistics that standardise their raw input features."""

    def __init__(self, unary: UnaryCNN, pairwise: PairwiseCNN, block_stats: FeatureStats, edge_stats: FeatureStats,
                 meta: dict[str, Any] | None = None) -> None:
        self.unary = unary.eval()
        self.pairwise = pairwise.eval()
        self.block_stats = block_stats
        self.edge_stats = edge_stats
        self.meta = dict(meta or {})
        self.device = torch.device("cpu")

    def to(self, device: torch.device | str) -> Web2TextModel:
        self.device = torch.device(device)
        if self.device.type == "cuda":
            # cuDNN runs float32 convolutions in TF32 by default on Ampere and later: on an H100 that moved
            # potentials by up to 0.05 and flipped labels on 10 of 1,807 pages against the CPU
            # (scripts/bench/gpu_web2text.py --allow-tf32).
            # The flag is per process; a Spark worker that runs Web2Text wants full precision anyway.
            torch.backends.cudnn.allow_tf32 = False
        self.unary.to(self.device)
        self.pairwise.to(self.device)
        return self

    # ---- prediction -------------------------------------------------------------------------------------------

    @torch.inference_mode()
    def potentials(self, block_features: Sequence[np.ndarray], edge_features: Sequence[np.ndarray]
                   ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Raw features of B pages -> unary (B, N, 2) and pairwise (B, N-1, 4) log-probabilities, lengths (B,).

        One forward pass per net for the whole batch; padding is masked inside the nets, so a page gets the same
        potentials in any batch.
        """
        x, lengths = pad_sequences([standardise(f, self.block_stats) for f in block_features], len(FEATURE_NAMES),
                                   self.device)                                      # (B, N, 128), (B,)
        e, _ = pad_sequences([standardise(f, self.edge_stats) for f in edge_features], len(EDGE_FEATURE_NAMES),
                             self.device)                                            # (B, N-1, 25)
        unary = self.unary(x, lengths)                                               # (B, N, 2)
        pair = self.pairwise(e, (lengths - 1).clamp(min=0))                          # (B, N-1, 4)
        return unary, pair, lengths

    def predict(self, block_features: Sequence[np.ndarray], edge_features: Sequence[np.ndarray],
                lam: float = LAMBDA) -> list[np.ndarray]:
        """Content labels (bool arrays, one per page) from the Viterbi decoding of section 3.5."""
        if not block_features:
            return []
        unary, pair, lengths = self.potentials(block_features, edge_features)
        labels = viterbi(unary, pair, lengths, lam)                                 # (B, N)
        return [labels[i, : len(f)].astype(bool) for i, f in enumerate(block_features)]

    # ---- files ------------------------------------------------------------------------------------------------

    def arrays(self) -> dict[str, np.ndarray]:
        out = {f"unary/{k}": v.detach().cpu().numpy() for k, v in self.unary.state_dict().items()}
        out |= {f"pairwise/{k}": v.detach().cpu().numpy() for k, v in self.pairwise.state_dict().items()}
        for prefix, stats in (("block_stats", self.block_stats), ("edge_stats", self.edge_stats)):
            out |= {f"{prefix}/{f}": np.asarray(getattr(stats, f)) for f in _STATS_FIELDS}
        return out

    def save(self, stem: str | Path) -> tuple[Path, Path]:
        """Write `<stem>.npz` and `<stem>.json`; returns both paths."""
        return write_model_files(stem, self.arrays(),
                                 self.meta | {"block_features": FEATURE_NAMES, "edge_features": EDGE_FEATURE_NAMES})

    @classmethod
    def from_bytes(cls, npz: bytes, meta: dict[str, Any]) -> Web2TextModel:
        """Build from the two files' contents; fails if the model expects other features than this code makes."""
        for key, names in (("block_features", FEATURE_NAMES), ("edge_features", EDGE_FEATURE_NAMES)):
            if meta.get(key) != names:
                raise ValueError(f"model was trained on other {key.replace('_', ' ')} than this version computes; "
                                 "retrain it with scripts/train/train_web2text.py")
        with np.load(io.BytesIO(npz), allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
        unary, pairwise = UnaryCNN(), PairwiseCNN()
        for prefix, net in (("unary", unary), ("pairwise", pairwise)):
            state = {k.split("/", 1)[1]: torch.from_numpy(v) for k, v in arrays.items() if k.startswith(prefix + "/")}
            net.load_state_dict(state)                 # strict: a missing or extra tensor fails
        stats = [FeatureStats(**{f: arrays[f"{prefix}/{f}"] for f in _STATS_FIELDS})
                 for prefix in ("block_stats", "edge_stats")]
        meta = {k: v for k, v in meta.items() if k not in ("block_features", "edge_features")}
        return cls(unary, pairwise, *stats, meta=meta)

    @classmethod
    def load(cls, model: str | Path) -> Web2TextModel:
        """A packaged model by name (PACKAGED_MODELS) or `<stem>.npz` / `<stem>` with its `.json` beside it."""
        files = read_model_files(model, __package__, PACKAGED_MODELS, "Web2Text", "scripts/train/train_web2text.py")
        return cls.from_bytes(*files)
