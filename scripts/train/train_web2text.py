"""Train a Web2Text model (section 4.2) and write it where the package loads it from.

    .venv/bin/python scripts/train/train_web2text.py --recipe default    # models/web2text/weights/web2text-default.*
    .venv/bin/python scripts/train/train_web2text.py --recipe cleaneval  # models/web2text/weights/web2text-cleaneval.*

Data (../shared/data, read only); ids come from the dataset's `splits/` files or its whole `input/` folder:
- recipe `cleaneval`: CleanEval `web2text_train` (531 pages) to train, `web2text_validation` (58) for early
  stopping: the paper's setup, to compare with its Table 1 on `web2text_test` (148 pages, never read here).
- recipe `default`: the same plus all 24 Scrapinghub pages (modern news/blog articles; the only other data with
  gold main text): all the training data we have. Same validation split.
Blocks are labelled from the gold text by `label_blocks` (section 4.1, content iff >= 2/3 of its text aligns).

Training (section 4.2): the unary and pairwise CNNs are trained separately (own Adam, lr 1e-3, L2 1e-4 as Adam
weight decay) on the same mini-batches of 128 nine-block excerpts, drawn uniformly from all excerpt start
positions of the training pages (shorter pages: one padded excerpt). Every `--eval-every` steps each net's
classification error on the whole validation pages is measured; a net stops improving when its error has not
gone down for `--patience` steps (the paper: 5,000), training ends when both have, or at `--max-steps`; each net
keeps its lowest-validation-error weights. Seeds fix numpy and torch; one CPU thread by default, so a rerun on
this machine gives the same weights.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from torch.nn import functional as F

from pagesieve.data import data_root
from pagesieve.eval.datasets import GoldPage, iter_gold_pages
from pagesieve.eval.metrics import block_scores
from pagesieve.models.page import PageError, parse_page
from pagesieve.models.web2text import (
    EDGE_FEATURE_NAMES,
    FEATURE_NAMES,
    PairwiseCNN,
    UnaryCNN,
    fit_stats,
    label_blocks,
    page_blocks,
    page_features,
    standardise,
)
from pagesieve.models.web2text.model import PACKAGED_MODELS, Web2TextModel

log = logging.getLogger("train_web2text")

DATA = data_root()
WEIGHTS = Path(__file__).resolve().parents[2] / "models" / "web2text" / "weights"
# recipe -> (training sources, validation sources, excerpt weights by dataset); a source is (dataset folder,
# split or None for all pages). Drawing Scrapinghub's excerpts more often (--weight scrapinghub=8) raised
# held-out Scrapinghub F1 in scripts/eval/cv_web2text.py (0.844 -> 0.883) but the full model trained that way fell
# to block F1 0.871 on CleanEval's test split (0.886 without): the default keeps every excerpt equally likely.
POOLS = ("cleaneval", "scrapinghub", "l3s-gn1", "dragnet", "readability", "google-trends-2017")
RECIPES = {
    "cleaneval": ([("cleaneval", "web2text_train")], [("cleaneval", "web2text_validation")], {}),
    "default": ([("cleaneval", "web2text_train"), ("scrapinghub", None)], [("cleaneval", "web2text_validation")], {}),
    # every benchmark pool's `fit` part (conf/splits, scripts/train/make_splits.py), early stopping on their
    # `validation` parts; their `test` parts are never read
    "pools": ([(pool, "fit") for pool in POOLS], [(pool, "validation") for pool in POOLS], {}),
}
EXCERPT = 9        # section 4.2: "9-text-block long Web page excerpts"
BATCH = 128        # "mini-batch of 128"
LR = 1e-3
L2 = 1e-4          # section 3.4: "L2 regularization ... 10^-4"


@dataclass
class PageData:
    """One page's raw features and block labels (1 = content)."""

    page_id: str
    blocks: np.ndarray      # (n, 128)
    edges: np.ndarray       # (n-1, 25)
    labels: np.ndarray      # (n,) int64
    weight: float = 1.0     # relative chance of this page's excerpts being drawn (--weight)


def prepare(page: GoldPage) -> PageData | None:
    """Parse, segment, featurise and label one gold page; None when it has no blocks or does not parse."""
    try:
        blocks = page_blocks(parse_page(page.html, url=page.url, page_id=page.page_id))
    except PageError:
        return None
    if len(blocks) == 0:
        return None
    labels = np.asarray(label_blocks(blocks.text, page.gold), dtype=np.int64)
    return PageData(page.page_id, *page_features(blocks), labels)


def prepare_pages(gold: list[GoldPage], workers: int, what: str) -> list[PageData]:
    """`prepare` over processes; logs what was kept."""
    with ProcessPoolExecutor(max_workers=workers) as pool:
        pages = [p for p in pool.map(prepare, gold, chunksize=8) if p is not None]
    log.info("%s: %d pages (%d without blocks or unparsable), %d blocks, %.1f%% content", what, len(pages),
             len(gold) - len(pages), sum(len(p.labels) for p in pages),
             100 * np.mean(np.concatenate([p.labels for p in pages])))
    return pages


def load_pages(sources: list[tuple[str, str | None]], data: Path, limit: int | None, workers: int,
               weights: dict[str, float] | None = None) -> list[PageData]:
    pages = []
    for folder, split in sources:
        prepared = prepare_pages(list(iter_gold_pages(data / folder, split))[:limit], workers,
                                 f"{folder}/{split or 'all'}")
        for p in prepared:
            p.weight = (weights or {}).get(folder, 1.0)
        pages += prepared
    return pages


class Excerpts:
    """Uniformly drawn nine-block excerpts of the training pages, as padded tensors."""

    def __init__(self, pages: list[PageData], model: Web2TextModel) -> None:
        self.x = np.concatenate([standardise(p.blocks, model.block_stats) for p in pages]).astype(np.float32)
        self.e = np.concatenate([standardise(p.edges, model.edge_stats) for p in pages]
                                + [np.zeros((1, len(EDGE_FEATURE_NAMES)))]).astype(np.float32)
        self.y = np.concatenate([p.labels for p in pages])
        starts, lengths, edge_starts, weights = [], [], [], []
        offset = edge_offset = 0
        for p in pages:
            n = len(p.labels)
            k = max(n - EXCERPT + 1, 1)
            starts.append(offset + np.arange(k))
            edge_starts.append(edge_offset + np.arange(k))
            lengths.append(np.full(k, min(n, EXCERPT)))
            weights.append(np.full(k, p.weight))
            offset, edge_offset = offset + n, edge_offset + n - 1
        self.starts, self.edge_starts = np.concatenate(starts), np.concatenate(edge_starts)
        self.lengths = np.concatenate(lengths)
        w = np.concatenate(weights)
        self.p = None if np.all(w == w[0]) else w / w.sum()     # None: uniform (rng.integers, as before weights)

    def __len__(self) -> int:
        return len(self.starts)

    def batch(self, rng: np.random.Generator, size: int = BATCH) -> dict[str, torch.Tensor]:
        pick = rng.integers(0, len(self.starts), size) if self.p is None else rng.choice(len(self.p), size, p=self.p)
        lengths = self.lengths[pick]                                       # (B,)
        pos = np.arange(EXCERPT)
        valid = pos[None, :] < lengths[:, None]                            # (B, 9)
        idx = np.where(valid, self.starts[pick, None] + pos, 0)            # (B, 9) padding reads row 0, masked
        edge_valid = pos[None, :-1] < lengths[:, None] - 1                 # (B, 8)
        edge_idx = np.where(edge_valid, self.edge_starts[pick, None] + pos[:-1], 0)
        y = np.where(valid, self.y[idx], 0)
        y_pair = 2 * y[:, :-1] + y[:, 1:]                                   # (B, 8) channel 2*l_i + l_{i+1}
        return {"x": torch.from_numpy(self.x[idx] * valid[..., None]), "e": torch.from_numpy(
                    self.e[edge_idx] * edge_valid[..., None]), "lengths": torch.from_numpy(lengths),
                "y": torch.from_numpy(np.where(valid, y, -100)),
                "y_pair": torch.from_numpy(np.where(edge_valid, y_pair, -100))}


def nll(logp: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Mean negative log-likelihood over the positions whose target is not -100 (padding)."""
    return F.nll_loss(logp.reshape(-1, logp.shape[-1]), target.reshape(-1), ignore_index=-100)


@torch.inference_mode()
def validation_errors(model: Web2TextModel, pages: list[PageData]) -> dict[str, float]:
    """Unary block error, pairwise pair error (argmax of each net) and Viterbi block scores on whole pages."""
    model.unary.eval(), model.pairwise.eval()
    unary, pair, lengths = model.potentials([p.blocks for p in pages], [p.edges for p in pages])
    wrong_u = wrong_p = n_u = n_p = 0
    for i, p in enumerate(pages):
        n = len(p.labels)
        y = torch.from_numpy(p.labels)
        wrong_u += int((unary[i, :n].argmax(-1) != y).sum())
        wrong_p += int((pair[i, : n - 1].argmax(-1) != 2 * y[:-1] + y[1:]).sum())
        n_u, n_p = n_u + n, n_p + n - 1
    predicted = model.predict([p.blocks for p in pages], [p.edges for p in pages])
    scores = block_scores(np.concatenate(predicted), np.concatenate([p.labels for p in pages]).astype(bool))
    return {"unary_error": wrong_u / n_u, "pairwise_error": wrong_p / max(n_p, 1),
            **{f"viterbi_{k}": scores[k] for k in ("accuracy", "precision", "recall", "f1")}}


def train(train_pages: list[PageData], val_pages: list[PageData], *, seed: int, max_steps: int, patience: int,
          eval_every: int) -> tuple[Web2TextModel, dict]:
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    model = Web2TextModel(UnaryCNN(), PairwiseCNN(),
                          fit_stats(np.concatenate([p.blocks for p in train_pages]), FEATURE_NAMES),
                          fit_stats(np.concatenate([p.edges for p in train_pages]), EDGE_FEATURE_NAMES))
    excerpts = Excerpts(train_pages, model)
    nets = {"unary": model.unary, "pairwise": model.pairwise}
    optims = {k: torch.optim.Adam(n.parameters(), lr=LR, weight_decay=L2) for k, n in nets.items()}
    best = {k: (float("inf"), 0, {n: t.clone() for n, t in net.state_dict().items()}) for k, net in nets.items()}
    history = []
    start = time.perf_counter()
    step = 0
    for step in range(1, max_steps + 1):
        b = excerpts.batch(rng)
        model.unary.train(), model.pairwise.train()
        losses = {"unary": nll(model.unary(b["x"], b["lengths"]), b["y"]),
                  "pairwise": nll(model.pairwise(b["e"], (b["lengths"] - 1).clamp(min=0)), b["y_pair"])}
        for k, loss in losses.items():
            optims[k].zero_grad()
            loss.backward()
            optims[k].step()
        if step % eval_every and step != max_steps:
            continue
        errors = validation_errors(model, val_pages)
        history.append({"step": step, **{f"train_{k}_loss": round(v.item(), 5) for k, v in losses.items()},
                        **{k: round(v, 5) for k, v in errors.items()}})
        for k, net in nets.items():
            if errors[f"{k}_error"] < best[k][0]:
                best[k] = (errors[f"{k}_error"], step, {n: t.clone() for n, t in net.state_dict().items()})
        log.info("step %d  unary %.4f (best %.4f @%d)  pairwise %.4f (best %.4f @%d)  viterbi F1 %.4f  %.0fs", step,
                 errors["unary_error"], best["unary"][0], best["unary"][1], errors["pairwise_error"],
                 best["pairwise"][0], best["pairwise"][1], errors["viterbi_f1"], time.perf_counter() - start)
        if all(step - best[k][1] >= patience for k in nets):
            break
    for k, net in nets.items():
        net.load_state_dict(best[k][2])
    final = validation_errors(model, val_pages)
    summary = {"steps_run": step, "best_step": {k: best[k][1] for k in nets}, "validation_scores": final,
               "train_seconds": round(time.perf_counter() - start, 1), "excerpt_starts": len(excerpts)}
    columns = {k: [row[k] for row in history] for k in history[0]} if history else {}   # one JSON line per curve
    return model, {"summary": summary, "history": columns}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--recipe", choices=sorted(RECIPES), default="default")
    ap.add_argument("--data", type=Path, default=DATA, help="folder holding cleaneval/ and scrapinghub/")
    ap.add_argument("--out", type=Path, default=None, help="file stem to write (default: the packaged one)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-steps", type=int, default=40_000)
    ap.add_argument("--patience", type=int, default=5_000, help="steps without validation improvement (paper: 5000)")
    ap.add_argument("--eval-every", type=int, default=50)
    ap.add_argument("--limit", type=int, default=None, help="first N pages of each source (smoke runs)")
    ap.add_argument("--threads", type=int, default=1, help="torch CPU threads (1 = reproducible on this machine)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes for feature extraction")
    ap.add_argument("--weight", action="append", default=[], metavar="FOLDER=K",
                    help="draw the excerpts of a training dataset K times as often (default: the recipe's)")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr)
    torch.set_num_threads(args.threads)
    train_sources, val_sources, weights = RECIPES[args.recipe]
    started = time.perf_counter()
    weights = weights | {folder: float(k) for folder, _, k in (w.partition("=") for w in args.weight)}
    train_pages = load_pages(train_sources, args.data, args.limit, args.workers, weights)
    val_pages = load_pages(val_sources, args.data, args.limit, args.workers)
    prepared_s = time.perf_counter() - started
    model, record = train(train_pages, val_pages, seed=args.seed, max_steps=args.max_steps, patience=args.patience,
                          eval_every=args.eval_every)
    model.meta = {
        "recipe": args.recipe, "train": [f"{f}/{s or 'all'}" for f, s in train_sources],
        "validation": [f"{f}/{s or 'all'}" for f, s in val_sources],
        "train_pages": len(train_pages), "train_blocks": int(sum(len(p.labels) for p in train_pages)),
        "validation_pages": len(val_pages), "limit": args.limit, "seed": args.seed, "max_steps": args.max_steps,
        "patience": args.patience, "eval_every": args.eval_every, "weights": weights, "batch": BATCH,
        "excerpt": EXCERPT, "lr": LR, "l2": L2, "torch": torch.__version__, "prepare_seconds": round(prepared_s, 1),
        **record["summary"], "history": record["history"],
    }
    stem = args.out or WEIGHTS / PACKAGED_MODELS[args.recipe]
    npz, meta = model.save(stem)
    log.info("wrote %s (%d bytes) and %s; validation %s", npz, npz.stat().st_size, meta,
             json.dumps(record["summary"]["validation_scores"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
