"""A trained BlockNet: the network, the training blocks' input statistics, and batched prediction.

Saved like Web2Text's models: `<stem>.npz` (every parameter and statistic as a plain array, read with
`allow_pickle=False`, so loading runs no code) and `<stem>.json` (data, seed, epochs, validation scores, and the
input names the model expects). The packaged models live in `weights/` and load by name.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from ..page.weights import read_model_files, write_model_files
from ..web2text import pad_sequences
from .features import BASE_INPUT_NAMES, INPUT_NAMES
from .net import BlockCNN
from .peers import PEERS, peer_input_names
from .settings import PACKAGED_MODELS
from .trees import TREES_KEY, BlockTrees

__all__ = ["PACKAGED_MODELS", "BlockNetModel", "INPUT_PEERS", "INPUT_SETS", "columns_read", "computed_names"]

# The peers whose votes a model of each input set reads (the `blend` method runs them): all three, or trafilatura
# and resiliparse only ("blend-lite": about half the peers' time, the left-out macro within the interval;
# docs/methods/blocknet.md#blend-quality-first)
INPUT_PEERS: dict[str, tuple[str, ...]] = {"blend": PEERS, "blend-lite": ("trafilatura", "resiliparse")}
# The input columns a model may read: BlockNet's own, or for blend's models the columns before the selector features
# (`BASE_INPUT_NAMES`: they were not tried with blend) plus its peers' votes
INPUT_SETS: dict[str, list[str]] = {"blocknet": INPUT_NAMES} | {
    kind: BASE_INPUT_NAMES + peer_input_names(peers) for kind, peers in INPUT_PEERS.items()}


def computed_names(kind: str) -> list[str]:
    """The columns the pipeline computes for a model of `kind` (`page_inputs`' and its peers' votes); the model
    reads `INPUT_SETS[kind]` of them."""
    return INPUT_NAMES + peer_input_names(INPUT_PEERS[kind]) if kind in INPUT_PEERS else INPUT_NAMES


def columns_read(kind: str) -> np.ndarray | None:
    """Where a model of `kind` finds its columns (`INPUT_SETS[kind]`) among the computed ones (`computed_names`), or
    None where it reads them all, in order."""
    if INPUT_SETS[kind] == computed_names(kind):
        return None
    at = {name: i for i, name in enumerate(computed_names(kind))}
    return np.array([at[name] for name in INPUT_SETS[kind]], dtype=np.intp)


class BlockNetModel:
    """BlockCNN plus the mean and std that standardise its raw inputs (`INPUT_NAMES`), and the bound `clip` on
    the standardised values (None: unbounded, as models saved before it). A page unlike every training page would
    otherwise sit far outside what the network has seen: on a Chinese or Japanese page the page-level "has an
    English stop word" input is 0, 35 standard deviations from the training pages, and pushed every block's logit
    to +12."""

    def __init__(self, net: BlockCNN, mean: np.ndarray, std: np.ndarray, meta: dict[str, Any] | None = None,
                 clip: float | None = None, stopwords: str = "english", inputs: str | None = "blocknet",
                 trees: BlockTrees | None = None) -> None:
        self.net = net.eval()
        self.mean = np.asarray(mean, dtype=np.float32)
        self.std = np.asarray(std, dtype=np.float32)
        self._mean, self._std = torch.from_numpy(self.mean), torch.from_numpy(self.std)
        self.clip = None if clip is None else float(clip)
        self.meta = dict(meta or {})
        self.stopwords = stopwords      # STOPWORD_LISTS: what the stop-word inputs count (cards before it: english)
        self.inputs = inputs            # a key of INPUT_SETS ("blend" also reads the peers' votes), None: unsaveable
        # (width of the computed inputs, the columns the model reads of them), or None: it reads what it is given
        columns = columns_read(inputs) if inputs in INPUT_SETS else None
        self._narrowing = None if columns is None else (len(computed_names(inputs)), columns)
        self.trees = trees              # a second model family whose scores are averaged with the network's (trees.py)
        self.device = torch.device("cpu")

    def to(self, device: torch.device | str) -> BlockNetModel:
        self.device = torch.device(device)
        if self.device.type == "cuda":
            torch.backends.cudnn.allow_tf32 = False   # TF32 convolutions move logits off the CPU's (see Web2Text)
        self.net.to(self.device)
        return self

    def standardise(self, inputs: np.ndarray) -> np.ndarray:
        standardised = (inputs - self.mean) / self.std
        return standardised if self.clip is None else np.clip(standardised, -self.clip, self.clip)

    def _standardised(self, inputs: np.ndarray) -> torch.Tensor:
        # float32 inputs (page_inputs') in torch: the same two correctly rounded operations as `standardise`,
        # without numpy's temporaries and a copy
        if inputs.dtype != np.float32:
            return torch.from_numpy(self.standardise(inputs).astype(np.float32))
        standardised = (torch.from_numpy(inputs) - self._mean) / self._std
        return standardised if self.clip is None else standardised.clamp_(-self.clip, self.clip)

    def narrow(self, inputs: np.ndarray) -> np.ndarray:
        """A page's inputs as the model reads them: the pipeline's computed columns (`computed_names`) cut to the
        model's own (`INPUT_SETS`: blend's models read no selector features); inputs already cut pass unchanged."""
        if self._narrowing is None or inputs.shape[1] != self._narrowing[0]:
            return inputs
        return inputs[:, self._narrowing[1]]

    def logits(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Raw inputs of B pages -> content logits per block, one array per page: the network's, or with `trees`
        the mean of the network's and the trees' where the network is unsure (`BlockTrees.blend`; on the CPU, one
        page at a time, whatever the network's device)."""
        inputs = [self.narrow(x) for x in inputs]
        out = self._network_logits(inputs)
        if self.trees is None:
            return out
        return [self.trees.blend(a, x) for a, x in zip(out, inputs, strict=True)]

    def network_logits(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The network's logits: on CUDA one padded forward pass, on the CPU one page at a time
        (`BlockCNN.page_logits`: faster there, and no page's logits depend on the others')."""
        return self._network_logits([self.narrow(x) for x in inputs])

    @torch.inference_mode()
    def _network_logits(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        if not inputs:
            return []
        if self.device.type == "cpu":
            return [self.net.page_logits(self._standardised(a)).numpy() for a in inputs]
        x, lengths = pad_sequences([self.standardise(a) for a in inputs], len(self.mean), self.device)
        out = self.net(x, lengths).float().cpu().numpy()
        return [out[i, : len(a)] for i, a in enumerate(inputs)]

    # ---- files ------------------------------------------------------------------------------------------------

    def arrays(self) -> dict[str, np.ndarray]:
        out = {f"net/{k}": v.detach().cpu().numpy() for k, v in self.net.state_dict().items()}
        out |= {"stats/mean": self.mean, "stats/std": self.std}
        return out if self.trees is None else out | self.trees.arrays()

    def save(self, stem: str | Path) -> tuple[Path, Path]:
        """Write `<stem>.npz` and `<stem>.json`; returns both paths."""
        if self.inputs not in INPUT_SETS:
            raise ValueError("a model trained on an experiment's own input columns cannot be saved")
        card = self.meta | {"width": self.net.width, "input_clip": self.clip, "stopwords": self.stopwords,
                            "inputs": INPUT_SETS[self.inputs]}
        if self.trees is not None:      # the gate travels with the trees it applies to
            card["trees"] = (self.meta.get("trees") or {}) | {"gate": self.trees.gate}
        return write_model_files(stem, self.arrays(), card)

    @classmethod
    def from_bytes(cls, npz: bytes, meta: dict[str, Any], trees: bool = True) -> BlockNetModel:
        """Build from the two files' contents; fails if the model expects other inputs than this code makes, or
        its parameters do not fit this code's network (a model saved before the page summary). `trees=False`
        leaves the file's trees unread (and LightGBM unimported): the network alone."""
        inputs = next((k for k, names in INPUT_SETS.items() if meta.get("inputs") == names), None)
        if inputs is None:
            raise ValueError("model was trained on other inputs than this version computes; "
                             "retrain it with scripts/train/train_blocknet.py")
        with np.load(io.BytesIO(npz), allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
        net = BlockCNN(len(INPUT_SETS[inputs]), width=int(meta["width"]))
        state = {k[4:]: v for k, v in arrays.items() if k.startswith("net/")}
        unfit = [k for k, p in net.state_dict().items() if k not in state or state[k].shape != tuple(p.shape)]
        if unfit:
            raise ValueError(f"model was trained with an earlier BlockNet network ({', '.join(unfit)} missing or "
                             "of another shape); retrain it with scripts/train/train_blocknet.py")
        net.load_state_dict({k: torch.from_numpy(v) for k, v in state.items()})
        card = {k: v for k, v in meta.items() if k not in ("inputs", "width", "input_clip", "stopwords")}
        model_trees = None
        if trees and TREES_KEY in arrays:
            model_trees = BlockTrees.from_array(arrays[TREES_KEY], gate=(meta.get("trees") or {}).get("gate", np.inf))
        return cls(net, arrays["stats/mean"], arrays["stats/std"], meta=card, clip=meta.get("input_clip"),
                   stopwords=meta.get("stopwords", "english"), inputs=inputs, trees=model_trees)

    @classmethod
    def load(cls, model: str | Path, trees: bool = True) -> BlockNetModel:
        """A packaged model by name (PACKAGED_MODELS) or `<stem>.npz` / `<stem>` with its `.json` beside it;
        `trees=False`: without its trees (`from_bytes`)."""
        files = read_model_files(model, __package__, PACKAGED_MODELS, "BlockNet", "scripts/train/train_blocknet.py")
        return cls.from_bytes(*files, trees=trees)
