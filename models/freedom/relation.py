"""FreeDOM's second stage (patent, "second-stage module", FIG. 11-12): pairs of candidate nodes through a relational
network, for the fields the node-level module left without a value.

Per page, after the node-level module:
1. certain fields: those for which at least one node's most probable class is the field; their node is the
   node-level choice (`decode.page_choices`). Uncertain fields: the others; their candidates are the top `m`
   nodes by the field's probability.
2. node pairs (head, tail) between candidates of different fields, every order (the patent's equation 14:
   T(T-1) + 2T m (K-T) + m^2 (K-T)(K-T-1) pairs).
3. each pair -> [n_head ; xpath_head ; pos_head ; n_tail ; xpath_tail ; pos_tail] (equation 16) -> MLP -> softmax
   over {none-none, none-value, value-none, value-value}. n is the node-level module's comprehensive vector
   (`NodeNet.represent`, frozen), xpath an LSTM over the tag sequence of the node's XPath, pos an embedding of the
   node's position among the page's candidates (100 buckets of index / count).
4. decision (FIG. 12): a certain field keeps its node-level node; for an uncertain field, a candidate labelled
   "value" in at least one of its pairs becomes the field's value.

Where the patent leaves a choice open, we chose:
- "value" is relative to the field a node is a candidate for, so each side of a pair also carries an
  embedding of that field (the patent's r has none; without it a node that is top-m for two fields would get
  one verdict for both).
- several candidates of one uncertain field labelled "value": the one labelled so in the most pairs, then the
  one with the higher node-level probability.
- training pairs: the node-level model's certain and uncertain fields on the training pages are nearly always
  all certain (it fits its seed sites), so each field of a training page is made uncertain with probability
  one half (seeded), giving the pair network the top-m candidates it meets on new sites. Labels come from the
  gold classes (`training.label_nodes`): a side is "value" when its node's class is its field.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence

__all__ = ["PAIR_LABELS", "XPATH_TAGS", "Candidates", "RelationNet", "page_candidates", "candidate_pairs",
           "xpath_tag_ids", "position_ids", "decide"]

PAIR_LABELS = ("none-none", "none-value", "value-none", "value-value")   # index = 2 * head_value + tail_value
# XPath steps with their own embedding (0 = padding, 1 = any other tag)
XPATH_TAGS = ("<pad>", "<other>", "html", "body", "div", "span", "table", "tbody", "thead", "tr", "td", "th", "ul",
              "ol", "li", "dl", "dt", "dd", "p", "a", "b", "strong", "em", "i", "u", "font", "small", "big", "h1",
              "h2", "h3", "h4", "h5", "h6", "form", "label", "select", "option", "section", "article", "header",
              "footer", "nav", "main", "aside", "center", "blockquote", "cite", "br", "text()")
_XPATH_TAG_ID = {t: i for i, t in enumerate(XPATH_TAGS)}
MAX_XPATH = 24                # the last steps of an XPath that the LSTM reads (the ones near the text)
POSITIONS = 100               # position buckets: index among the page's candidate nodes / their count
_STEP = re.compile(r"\[\d+\]$|\[\d+\]#\d+$")      # a step's index, and a span's `#j` (nodes.spans_of)


def xpath_tag_ids(xpaths: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """(N, MAX_XPATH) tag ids of the last XPath steps, left-aligned and zero-padded, and the lengths (N,)."""
    ids = np.zeros((len(xpaths), MAX_XPATH), dtype=np.int64)
    lengths = np.ones(len(xpaths), dtype=np.int64)
    for i, xpath in enumerate(xpaths):
        steps = [_XPATH_TAG_ID.get(_STEP.sub("", s).lower(), 1) for s in xpath.split("/") if s][-MAX_XPATH:]
        ids[i, : len(steps)] = steps
        lengths[i] = max(len(steps), 1)
    return ids, lengths


def position_ids(rows: np.ndarray, n: int) -> np.ndarray:
    """Position bucket of the nodes at `rows` of a page of `n` nodes (the patent's scaled position, bucketed)."""
    return np.minimum(np.asarray(rows, dtype=np.int64) * POSITIONS // max(n, 1), POSITIONS - 1)


class RelationNet(nn.Module):
    """Pair logits over PAIR_LABELS from the two nodes' comprehensive vectors, XPaths, positions and fields."""

    def __init__(self, node_dim: int, n_fields: int, tag_dim: int = 16, xpath_hidden: int = 32, pos_dim: int = 8,
                 field_dim: int = 8, mlp: int = 64) -> None:
        super().__init__()
        self.config = {"tag_dim": tag_dim, "xpath_hidden": xpath_hidden, "pos_dim": pos_dim, "field_dim": field_dim,
                       "mlp": mlp}
        self.node_dim, self.n_fields = node_dim, n_fields
        self.tags = nn.Embedding(len(XPATH_TAGS), tag_dim, padding_idx=0)
        self.xpath = nn.LSTM(tag_dim, xpath_hidden, batch_first=True)
        self.positions = nn.Embedding(POSITIONS, pos_dim)
        self.fields = nn.Embedding(n_fields, field_dim)
        side = node_dim + xpath_hidden + pos_dim + field_dim
        self.mlp = nn.Sequential(nn.Linear(2 * side, mlp), nn.ReLU(), nn.Linear(mlp, len(PAIR_LABELS)))

    def sides(self, node_vectors: torch.Tensor, xpath_ids: torch.Tensor, xpath_lengths: torch.Tensor,
              positions: torch.Tensor) -> torch.Tensor:
        """(N, node_dim + xpath_hidden + pos_dim) per candidate node, without its field (added per pair)."""
        packed = pack_padded_sequence(self.tags(xpath_ids), xpath_lengths.cpu(), batch_first=True,
                                      enforce_sorted=False)
        _, (last, _) = self.xpath(packed)                              # (1, N, H): the state after the last step
        return torch.cat([node_vectors, last[0], self.positions(positions)], dim=1)

    def forward(self, sides: torch.Tensor, head: torch.Tensor, tail: torch.Tensor, head_field: torch.Tensor,
                tail_field: torch.Tensor) -> torch.Tensor:
        """(P, 4) logits for the pairs (sides[head], sides[tail]), each side a candidate of its field."""
        h = torch.cat([sides[head], self.fields(head_field)], dim=1)
        t = torch.cat([sides[tail], self.fields(tail_field)], dim=1)
        return self.mlp(torch.cat([h, t], dim=1))


@dataclass(frozen=True, slots=True)
class Candidates:
    """A page's candidates: node row and field of each, and which fields are certain."""

    node: np.ndarray          # (C,) row in the page's nodes
    field: np.ndarray         # (C,) field index
    certain: np.ndarray       # (K,) bool


def page_candidates(probs: np.ndarray, n_fields: int, m: int, uncertain: np.ndarray | None = None,
                    allowed: np.ndarray | None = None) -> Candidates:
    """Step 1: the node-level choice of each certain field, the top `m` nodes of each uncertain one.

    `uncertain` (K,) marks more fields uncertain (training); a field with no node of its class always is.
    `allowed` (N, K): the nodes that pass each field's value check (`checks.py`); the others are no
    candidates for it, so a field whose nodes of its class all fail is uncertain.
    """
    best = probs.argmax(axis=1) if len(probs) else np.zeros(0, dtype=np.int64)
    nodes, fields = [], []
    certain = np.zeros(n_fields, dtype=bool)
    for k in range(n_fields):
        ok = np.ones(len(probs), dtype=bool) if allowed is None else allowed[:, k]
        rows = np.flatnonzero((best == k) & ok)
        if len(rows) and (uncertain is None or not uncertain[k]):
            certain[k] = True
            nodes.append(int(rows[np.argmax(probs[rows, k])]))      # as decode.page_choices picks it
            fields.append(k)
        else:
            passing = np.flatnonzero(ok)
            top = passing[np.argsort(-probs[passing, k], kind="stable")[:m]]
            nodes += top.tolist()
            fields += [k] * len(top)
    return Candidates(np.array(nodes, dtype=np.int64), np.array(fields, dtype=np.int64), certain)


def candidate_pairs(candidates: Candidates) -> tuple[np.ndarray, np.ndarray]:
    """Step 2: (head, tail) indices into the candidates, every ordered pair of candidates of different fields."""
    c = len(candidates.field)
    head, tail = np.meshgrid(np.arange(c), np.arange(c), indexing="ij")
    keep = candidates.field[head] != candidates.field[tail]
    return head[keep], tail[keep]


def decide(candidates: Candidates, head: np.ndarray, tail: np.ndarray, pair_labels: np.ndarray,
           probs: np.ndarray) -> dict[int, int]:
    """Step 4: field -> node row for the uncertain fields that get a value (certain ones are left to the caller)."""
    votes = np.zeros(len(candidates.field), dtype=np.int64)
    np.add.at(votes, head, pair_labels >= 2)                     # value-none, value-value: the head is a value
    np.add.at(votes, tail, pair_labels % 2 == 1)                 # none-value, value-value: the tail is
    out: dict[int, int] = {}
    for k in np.flatnonzero(~candidates.certain):
        members = np.flatnonzero((candidates.field == k) & (votes > 0))
        if len(members):
            rows = candidates.node[members]
            best = max(range(len(members)), key=lambda j: (votes[members[j]], probs[rows[j], k], -j))
            out[int(k)] = int(rows[best])
    return out
