"""Train BlockNet on the eight benchmark pools' `fit` and `validation` parts; write it where the package loads it from.

    .venv/bin/python scripts/train/train_blocknet.py          # models/blocknet/weights/blocknet-default.{npz,json}

Data (../shared/data, read only; ids from conf/splits/<pool>/): every pool's `fit` and `validation` parts
train; the `test` parts are never read. The default model also trains on the 21 listing pages of `listings/`
(`--add-pools`; eval/training_sources.py `ADDED_SOURCES`), their records' display strings as the gold: the
modern page types need supervision of their own, and leaving whole benchmarks out chose it
(docs/experiments.md#2026-11-29-listing-pages-records-in-training-a-change-of-the-data-left-out).
The recipe (epochs, width, dropout, learning rate, CleanEval's weight,
averaging, the fallback rule) was chosen on the validation parts
(docs/experiments.md#2026-11-23-how-blocknet-was-found; its script, scripts/exp_block_sequence.py, was deleted
after commit e4e8959) and then by 5-fold cross-validation over fit + validation
(scripts/eval/cv_blocknet_fallback.py); the shipped model then trains on all of those pages, since the
out-of-fold scores grow with the training pages (docs/experiments.md#2026-11-24-more-training-pages-fit-and-validation).
`--parts fit` trains on the fit parts alone and scores the validation parts after each epoch (mean BoW F1 per
pool, written to the `.json`), as the recipe's experiments did. Blocks are labelled from the gold text by
Web2Text's `label_blocks` (section 4.1: content iff >= 2/3 of its text aligns), or in trafilatura-eval (snippet
gold only) from its passages. The eight pools and the page-language stop words were chosen by leaving whole
benchmarks out (scripts/eval/lobo_blocknet.py; docs/experiments.md#2026-11-27-page-language-stop-words-left-out).

The default and blend models then train their gradient-boosted trees on the same pages (`--trees 150`;
models/blocknet/trees.py, LightGBM, deterministic on two threads) and carry them in the same `.npz`; where the
network is unsure of a block the method averages the two (docs/methods/blocknet.md#trees). Their rounds and gate
were chosen by leaving whole benchmarks out (scripts/eval/lobo_trees.py). `--trees 0` trains the network alone.

`--inputs blend` trains the `blend` method's model (models/blocknet/weights/blocknet-blend): the same network,
recipe and pools, whose inputs also hold the peers' votes per block (models/blocknet/peers.py); the peers run on
every training page first, in `--jobs` processes (about 0.3 s a page each). `--inputs blend-lite` trains
models/blocknet/weights/blocknet-blend-lite the same way on trafilatura's and resiliparse's votes only.

Training: pages in random order, 8 per mini-batch, each cut to a random window of at most 512 blocks; binary
cross-entropy per block, CleanEval's blocks weighted 0.3 (its 2007 gold keeps comments and link lists that the
modern pools' golds drop, and it has more pages than any other old pool); Adam (lr 1e-3, weight decay
1e-5); the shipped weights are an exponential moving average (0.995 per step) of the trained ones, after a
fixed number of epochs (9, chosen by cross-validation: scripts/eval/cv_blocknet_fallback.py). Seeds fix numpy and
torch, with one CPU thread, deterministic algorithms and CPU-independent kernels (models/reproducible.py): a
rerun writes byte-identical files on any x86-64 machine (`--native-kernels`: ~2.5x faster, byte-identical on
the same machine only).
"""

from __future__ import annotations

import argparse
import json
import logging
import multiprocessing
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from pagesieve.data import data_root
from pagesieve.eval.metrics import bag_of_words_prf
from pagesieve.eval.training_sources import ADDED_SOURCES, DEFAULT_ADDED_SOURCES, added_sources, source_pages
from pagesieve.models.blocknet import BlockNetModel, BlockNetSettings, page_inputs
from pagesieve.models.blocknet.features import STOPWORD_LISTS
from pagesieve.models.blocknet.method import content_blocks
from pagesieve.models.blocknet.model import INPUT_PEERS, INPUT_SETS, PACKAGED_MODELS, columns_read
from pagesieve.models.blocknet.peers import PeerVotes, with_votes
from pagesieve.models.blocknet.training import Recipe, TrainingPage, block_sizes, train
from pagesieve.models.blocknet.trees import TreeRecipe, train_trees
from pagesieve.models.page import PageError, parse_page
from pagesieve.models.reproducible import add_kernel_option, deterministic_torch
from pagesieve.models.web2text import Blocks, blocks_text, label_blocks, label_blocks_from_snippets

log = logging.getLogger("train_blocknet")

DATA = data_root()
WEIGHTS = Path(__file__).resolve().parents[2] / "models" / "blocknet" / "weights"
# the six pools of 2008-2019 and the two of 2025-26 (modern page types; non-English pages with snippet gold)
POOLS = ("cleaneval", "scrapinghub", "l3s-gn1", "dragnet", "readability", "google-trends-2017", "wcxb",
         "trafilatura-eval")
STOPWORDS = "page-language"        # the shipped models' stop-word inputs (STOPWORD_LISTS), chosen left-out
_peer_votes: PeerVotes | None = None        # one per process of the peers' pool


@dataclass
class PageData(TrainingPage):
    gold: str | None = None         # None in a pool with snippet gold only
    blocks: Blocks | None = None    # kept for validation pages, to score their text


def _peer_outputs(page: tuple[str, str | None, str, tuple[str, ...]]) -> list[str] | None:
    global _peer_votes
    if _peer_votes is None or _peer_votes.peers != page[3]:
        _peer_votes = PeerVotes(page[3])
    try:
        return _peer_votes.outputs(parse_page(page[0], url=page[1], page_id=page[2]))
    except PageError:
        return None


def load(data: Path, pools: tuple[str, ...], part: str, keep_blocks: bool,
         stopwords: str = STOPWORDS, inputs_kind: str = "blocknet", jobs: int = 1) -> list[PageData]:
    """The pages of `part` of each pool with their inputs and labels: from the gold text (Web2Text's alignment)
    or, in a pool with snippet gold only (trafilatura-eval), from its passages (the blocks they quote; the
    others weigh 0). Pages with an empty gold (WCXB's JavaScript shells) are left out. With an `inputs_kind` of
    INPUT_PEERS ("blend", "blend-lite") the inputs also hold its peers' votes, the peers run in `jobs` processes."""
    peers = INPUT_PEERS.get(inputs_kind)
    columns = columns_read(inputs_kind)
    pages = []
    for pool in pools:
        n = 0
        golds = [g for g in source_pages(data, pool, part) if g.gold is None or g.gold.strip()]
        votes: list[list[str] | None] = [None] * len(golds)
        if peers:
            with multiprocessing.get_context("spawn").Pool(jobs) as mp:
                votes = mp.map(_peer_outputs, [(g.html, g.url, g.page_id, peers) for g in golds], chunksize=8)
        for gold, outputs in zip(golds, votes, strict=True):
            try:
                blocks, inputs = page_inputs(parse_page(gold.html, url=gold.url, page_id=gold.page_id),
                                             stopwords=stopwords)
            except PageError:
                continue
            if peers:
                inputs = with_votes(inputs, blocks.text, outputs or [""] * len(peers))
            if columns is not None:     # the model's own columns (INPUT_SETS) of what the pipeline computes
                inputs = inputs[:, columns]
            weights = None
            if gold.gold is not None:
                labels = np.asarray(label_blocks(blocks.text, gold.gold), dtype=np.float32)
            else:
                labels, weights = (np.asarray(v, dtype=np.float32) for v in label_blocks_from_snippets(
                    blocks.text, gold.snippets.with_, gold.snippets.without))
            pages.append(PageData(pool, gold.page_id, inputs, labels, weights, block_sizes(blocks.text), gold=gold.gold,
                                  blocks=blocks if keep_blocks else None))
            n += 1
        log.info("%s/%s: %d pages", pool, part, n)
    return pages


def pool_f1(pages: list[PageData], logits: list[np.ndarray], settings: BlockNetSettings) -> dict[str, float]:
    """Mean BoW F1 per pool of the text that BlockNet's rule (`content_blocks` under `settings`) keeps, given
    each page's logits."""
    scores: dict[str, list[float]] = {}
    for p, page_logits in zip(pages, logits, strict=True):
        if p.gold is None:
            continue                    # snippet gold: scored by scripts/eval/lobo_blocknet.py, not here
        text = blocks_text(p.blocks, content_blocks(p.blocks, page_logits, settings)) if len(p.labels) else ""
        scores.setdefault(p.pool, []).append(bag_of_words_prf(text, p.gold).f1)
    return {pool: float(np.mean(v)) for pool, v in scores.items()}


def validation_f1(model: BlockNetModel, pages: list[PageData]) -> dict[str, float]:
    """`pool_f1` of the validation pages by the method's default rule (threshold 0 and the fallback)."""
    logits = model.logits([p.inputs for p in pages])
    return {pool: round(f1, 4) for pool, f1 in pool_f1(pages, logits, BlockNetSettings()).items()}


def _lightgbm_version() -> str:
    import lightgbm

    return lightgbm.__version__


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA, help="folder holding the pools")
    ap.add_argument("--out", type=Path, default=None,
                    help="file stem to write (default: the packaged model of --inputs, under models/blocknet/weights)")
    ap.add_argument("--inputs", choices=tuple(INPUT_SETS), default="blocknet",
                    help="blocknet (the default model), blend (also the three peers' votes) or blend-lite "
                         "(trafilatura's and resiliparse's votes)")
    ap.add_argument("--jobs", type=int, default=2, help="processes that run the peers for --inputs blend")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--limit-pools", default=None,
                    help="comma-separated pools (smoke tests), with no added source unless --add-pools says; "
                         "default all eight")
    ap.add_argument("--add-pools", default=None,
                    help=f"comma-separated training-only sources ({', '.join(ADDED_SOURCES)}): pages with content "
                         "labels that are not a benchmark's main text, all of them in part fit (default: listings for "
                         "the default model, none for blend and blend-lite, as each was selected; '' for none)")
    ap.add_argument("--cleaneval-weight", type=float, default=Recipe().pool_weights["cleaneval"],
                    help="weight of CleanEval's blocks in the loss (experiments; the shipped model uses the default)")
    ap.add_argument("--f1-loss", type=float, default=Recipe().f1_loss,
                    help="weight of the soft bag-of-words F1 term beside the cross-entropy (Recipe.f1_loss; "
                         "experiments: the shipped model uses the default, 0)")
    ap.add_argument("--parts", default="fit,validation",
                    help="comma-separated parts that train (default: fit,validation, the shipped model; `fit` alone "
                         "also scores the validation parts after each epoch)")
    ap.add_argument("--trees", type=int, default=None,
                    help="rounds of the gradient-boosted trees averaged with the network (models/blocknet/trees.py; "
                         f"default: {TreeRecipe().rounds} for the default and blend models, as shipped; 0 = none, "
                         "blend-lite's)")
    ap.add_argument("--stopwords", choices=STOPWORD_LISTS, default=STOPWORDS,
                    help="the stop words Web2Text's stop-word inputs count (the shipped model: the page's language's)")
    add_kernel_option(ap)
    args = ap.parse_args(argv)
    parts = tuple(dict.fromkeys(args.parts.split(",")))     # in the order given, each once
    if not set(parts) <= {"fit", "validation"}:
        ap.error(f"--parts takes fit and/or validation (the test parts never train), not {args.parts!r}")
    deterministic_torch(args.native_kernels)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr)
    pools = tuple(args.limit_pools.split(",")) if args.limit_pools else POOLS
    if not set(pools) <= set(POOLS):
        ap.error(f"unknown pools: {', '.join(sorted(set(pools) - set(POOLS)))}")
    if args.add_pools is None:
        args.add_pools = ",".join(DEFAULT_ADDED_SOURCES) if args.inputs == "blocknet" and not args.limit_pools else ""
    try:
        pools += added_sources(args.add_pools)
    except ValueError as e:
        ap.error(str(e))
    out = args.out or WEIGHTS / PACKAGED_MODELS["default" if args.inputs == "blocknet" else args.inputs]
    recipe = Recipe(pool_weights={"cleaneval": args.cleaneval_weight}, f1_loss=args.f1_loss)
    kw = {"stopwords": args.stopwords, "inputs_kind": args.inputs, "jobs": args.jobs}
    training = [p for part in parts for p in load(args.data, pools, part, keep_blocks=False, **kw)
                if len(p.labels) and (p.weights is None or p.weights.any())]
    validation = [] if "validation" in parts else load(args.data, pools, "validation", keep_blocks=True, **kw)
    start = time.perf_counter()
    model, history = train(training, recipe, args.seed,
                           after_epoch=(lambda m: validation_f1(m, validation)) if validation else None,
                           stopwords=args.stopwords, inputs=args.inputs)
    rounds = args.trees if args.trees is not None else (TreeRecipe().rounds if args.inputs != "blend-lite" else 0)
    tree_recipe = TreeRecipe(rounds=rounds)
    if rounds:
        tree_start = time.perf_counter()
        model.trees = train_trees(training, tree_recipe, args.seed, recipe.pool_weights, recipe.crop)
        log.info("trees: %d rounds in %.0fs", rounds, time.perf_counter() - tree_start)
        if validation:
            history[-1] |= {f"with_trees/{k}": v for k, v in validation_f1(model, validation).items()}
    summary = {"epochs": recipe.epochs, "train_seconds": round(time.perf_counter() - start, 1),
               "validation_bow_f1": history[-1] if validation else None}
    record = {"summary": summary, "history": {k: [row.get(k) for row in history] for k in history[0]}}
    model.meta = {"trained_on": [f"{pool}/{part}" for part in parts for pool in pools
                                 if pool not in ADDED_SOURCES or part == "fit"],
                  "scored_on": [f"{pool}/validation" for pool in pools if pool not in ADDED_SOURCES]
                  if validation else [],
                  "train_pages": len(training), "train_blocks": int(sum(len(p.labels) for p in training)),
                  "seed": args.seed,
                  "recipe": recipe.card(),
                  "trees": tree_recipe.card() if rounds else None,
                  "lightgbm": _lightgbm_version() if rounds else None,
                  "torch": torch.__version__, "kernels": "native" if args.native_kernels else "pinned", **record}
    npz, meta = model.save(out)
    print(json.dumps({"model": str(npz), "meta": str(meta), **record["summary"]}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
