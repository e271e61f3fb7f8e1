"""A trained FreeDOM node model: the network, its vocabulary and trimmed GloVe vectors, the fields it extracts.

Saved like Web2Text's and BlockNet's models: `<stem>.npz` holds every parameter as a plain array (the GloVe
rows of the vocabulary in float16; read with `allow_pickle=False`, so loading runs no code) and `<stem>.json`
holds the vertical, the fields, the vocabulary, the training data and seed. No GloVe download or registry
package is needed to run a shipped model. The packaged models live in `weights/` and load by name.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from ..page.weights import read_model_files, write_model_files
from .features import FLAG_NAMES, TAGS, NodeInputs, encode_nodes
from .net import NodeNet
from .nodes import TextNode
from .relation import XPATH_TAGS, RelationNet, candidate_pairs, decide, page_candidates, position_ids, xpath_tag_ids
from .settings import PACKAGED_MODELS

__all__ = ["PACKAGED_MODELS", "FreeDOMModel", "pick_device"]



def pick_device(device: str) -> torch.device:
    """"auto" -> cuda when present, else cpu; anything else is passed to torch."""
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(device)


class FreeDOMModel:
    """NodeNet plus the vocabulary (word -> row of the embedding) and the field names (class k < K)."""

    def __init__(self, net: NodeNet, vocab: Sequence[str], fields: Sequence[str], vertical: str,
                 meta: dict[str, Any] | None = None, relation: RelationNet | None = None) -> None:
        self.net = net.eval()
        self.relation = relation.eval() if relation is not None else None     # the second stage, when trained
        self.vocab_words = list(vocab)                      # rows 0 and 1 are PAD and UNK
        self.vocab = {w: i for i, w in enumerate(self.vocab_words)}
        self.fields = list(fields)
        self.vertical = vertical
        self.meta = dict(meta or {})
        self.device = torch.device("cpu")

    def to(self, device: torch.device | str) -> FreeDOMModel:
        self.device = torch.device(device)
        if self.device.type == "cuda":
            # TF32 matmuls and convolutions move scores off the CPU's (as in Web2Text / BlockNet)
            torch.backends.cuda.matmul.allow_tf32 = False
            torch.backends.cudnn.allow_tf32 = False
        self.net.to(self.device)
        if self.relation is not None:
            self.relation.to(self.device)
        return self

    @property
    def spans(self) -> bool:
        """Whether the model was trained on span candidates (`nodes.spans_of`) and so reads pages with them."""
        return bool(self.meta.get("spans", False))

    def encode(self, nodes: Sequence[TextNode]) -> NodeInputs:
        return encode_nodes(nodes, self.vocab)

    def tensors(self, inputs: NodeInputs, rows: slice | np.ndarray | None = None) -> list[torch.Tensor]:
        arrays = (inputs.words, inputs.chars, inputs.prev_words, inputs.prev_chars, inputs.tags, inputs.flags,
                  inputs.label_words)
        pick = slice(None) if rows is None else rows
        return [torch.from_numpy(np.ascontiguousarray(a[pick])).to(self.device) for a in arrays]

    @torch.inference_mode()
    def probabilities(self, inputs: NodeInputs, max_nodes: int = 8192) -> np.ndarray:
        """(N, K + 1) softmax over fields + none; one forward pass per chunk of `max_nodes` nodes.

        In float64: in float32 a confident node's probability rounds to exactly 1.0, so two such nodes (a book's
        two authors) tie, and the last bit of a logit, which differs between the CPU and CUDA, chose between them
        (2 of booksamillion's 400 pages on an H100, 2026-11-27)."""
        out = np.zeros((len(inputs), len(self.fields) + 1), dtype=np.float64)
        for start in range(0, len(inputs), max_nodes):
            rows = slice(start, min(start + max_nodes, len(inputs)))
            out[rows] = torch.softmax(self.net(*self.tensors(inputs, rows)).double(), dim=1).cpu().numpy()
        return out

    @torch.inference_mode()
    def relation_decisions(self, inputs: NodeInputs, pages: Sequence[Sequence[TextNode]], probs: Sequence[np.ndarray],
                           m: int, max_pairs: int = 65536,
                           allowed: Sequence[np.ndarray] | None = None) -> list[dict[int, int]]:
        """The second stage on a site's pages (`inputs` = all their nodes, page after page): per page, field ->
        node row for the uncertain fields that the pair network gives a value (`relation.py`). `allowed`: per
        page, the (N, K) nodes that pass each field's value check (None: all)."""
        out: list[dict[int, int]] = [{} for _ in pages]
        if self.relation is None:
            return out
        jobs, rows, xpaths, positions = [], [], [], []
        offset = 0
        for i, (nodes, page_probs) in enumerate(zip(pages, probs, strict=True)):
            candidates = page_candidates(page_probs, len(self.fields), m,
                                         allowed=None if allowed is None else allowed[i])
            if not candidates.certain.all() and len(nodes):
                head, tail = candidate_pairs(candidates)
                jobs.append((i, candidates, head, tail, len(rows)))
                rows += (offset + candidates.node).tolist()
                xpaths += [nodes[r].xpath for r in candidates.node]
                positions.append(position_ids(candidates.node, len(nodes)))
            offset += len(nodes)
        if not jobs:
            return out
        vectors = torch.cat([self.net.represent(*self.tensors(inputs, np.asarray(rows[a: a + 8192])))
                             for a in range(0, len(rows), 8192)])
        ids, lengths = xpath_tag_ids(xpaths)
        sides = self.relation.sides(vectors, torch.from_numpy(ids).to(self.device), torch.from_numpy(lengths),
                                    torch.from_numpy(np.concatenate(positions)).to(self.device))
        chunk: list[tuple] = []
        for job in [*jobs, None]:                  # pairs in chunks of about `max_pairs` (memory)
            if job is not None and (not chunk or sum(len(j[2]) for j in chunk) + len(job[2]) <= max_pairs):
                chunk.append(job)
                continue
            heads = np.concatenate([j[2] + j[4] for j in chunk])
            tails = np.concatenate([j[3] + j[4] for j in chunk])
            head_field = np.concatenate([j[1].field[j[2]] for j in chunk])
            tail_field = np.concatenate([j[1].field[j[3]] for j in chunk])
            logits = self.relation(sides, *(torch.from_numpy(a).to(self.device)
                                            for a in (heads, tails, head_field, tail_field)))
            labels = logits.argmax(dim=1).cpu().numpy()
            bounds = np.cumsum([0] + [len(j[2]) for j in chunk])
            for n, (i, candidates, head, tail, _) in enumerate(chunk):
                out[i] = decide(candidates, head, tail, labels[bounds[n]: bounds[n + 1]], probs[i])
            chunk = [job] if job is not None else []
        return out

    # ---- files ------------------------------------------------------------------------------------------------

    def arrays(self) -> dict[str, np.ndarray]:
        state = self.net.state_dict()
        out = {f"net/{k}": v.detach().cpu().numpy() for k, v in state.items() if "words.weight" not in k}
        if self.relation is not None:
            out |= {f"relation/{k}": v.detach().cpu().numpy() for k, v in self.relation.state_dict().items()}
        return out | {"glove": self.net.node.words.weight.detach().cpu().numpy().astype(np.float16)}

    def save(self, stem: str | Path) -> tuple[Path, Path]:
        """Write `<stem>.npz` and `<stem>.json` (byte-identical for the same weights); returns both paths."""
        card = self.meta | {"vertical": self.vertical, "fields": self.fields, "net": self.net.config,
                            "tags": list(TAGS), "flags": FLAG_NAMES, "vocab": self.vocab_words}
        if self.relation is not None:
            card["relation"] = self.relation.config | {"xpath_tags": list(XPATH_TAGS)}
        return write_model_files(stem, self.arrays(), card)

    @classmethod
    def from_bytes(cls, npz: bytes, meta: dict[str, Any]) -> FreeDOMModel:
        """Build from the two files' contents; fails if the model expects other features than this code makes."""
        if meta.get("tags") != list(TAGS) or meta.get("flags") != FLAG_NAMES:
            raise ValueError("model was trained on other features than this version computes; "
                             "retrain it with scripts/train/train_freedom.py")
        with np.load(io.BytesIO(npz), allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
        glove = torch.from_numpy(arrays["glove"].astype(np.float32))
        net = NodeNet(len(meta["fields"]), glove, len(TAGS), len(FLAG_NAMES), **meta["net"])
        state = {k[4:]: torch.from_numpy(v) for k, v in arrays.items() if k.startswith("net/")}
        state["node.words.weight"] = state["preceding.words.weight"] = glove
        net.load_state_dict(state)
        relation = None
        if "relation" in meta:
            config = dict(meta["relation"])
            if config.pop("xpath_tags") != list(XPATH_TAGS):
                raise ValueError("the model's relation stage reads other XPath tags than this version; "
                                 "retrain it with scripts/train/train_freedom.py")
            relation = RelationNet(net.node_dim, len(meta["fields"]), **config)
            relation.load_state_dict({k[9:]: torch.from_numpy(v) for k, v in arrays.items()
                                      if k.startswith("relation/")})
        rest = {k: v for k, v in meta.items()
                if k not in ("vertical", "fields", "net", "tags", "flags", "vocab", "relation")}
        return cls(net, meta["vocab"], meta["fields"], meta["vertical"], rest, relation)

    @classmethod
    def load(cls, model: str | Path) -> FreeDOMModel:
        """A packaged model by name (PACKAGED_MODELS) or `<stem>.npz` / `<stem>` with its `.json` beside it."""
        return cls.from_bytes(*read_model_files(model, __package__, PACKAGED_MODELS, "FreeDOM",
                                                "scripts/train/train_freedom.py"))
