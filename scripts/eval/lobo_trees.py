"""Leave-one-benchmark-out runs of BlockNet's trees (models/blocknet/trees.py), the second model family averaged with
the network's logits (issue 40; docs/experiments.md, "gradient-boosted trees per block").

    .venv/bin/python scripts/eval/lobo_trees.py run TREES_DIR --cache C [--rounds 150 --at 50,100]
    .venv/bin/python scripts/eval/lobo_trees.py blend NET_LOGITS TREES_DIR/k150 OUT_DIR [--gate 3]
    .venv/bin/python scripts/eval/lobo_blocknet.py ensemble --cache C --name trees --out R.json OUT_DIR

`run`: for each pool left out, the trees train (`train_trees`, the shipped recipe `TreeRecipe` but for `--rounds`)
on the `fit` and `validation` parts of the other pools and the listing pages, as `lobo_blocknet.py run --extra stop
--add-pools listings` trains the network, and their raw scores of the left-out pool's blocks are written as
`TREES_DIR/k<R>/<pool>.npz`, laid out as `run --logits` writes the network's, after R rounds for every R of `--at`
and `--rounds` (the first R trees of one model are the model R rounds would train); the fold's model is
`TREES_DIR/<pool>.txt`. `--extra` and `--add-pools` choose the inputs and training-only sources as `lobo_blocknet.py
run` does (`--extra stop,peers --add-pools ''`: the blend method's set-up). `blend`: the network's left-out logits
(`lobo_blocknet.py run --logits`) with their gated mean with the trees' (`gated_mean`, what the method runs), as a
folder that `lobo_blocknet.py ensemble` scores.
About 1-2 minutes a fold on two threads at 150 rounds.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lobo_blocknet import POOLS, CachedPool  # noqa: E402

from pagesieve.eval.training_sources import DEFAULT_ADDED_SOURCES  # noqa: E402
from pagesieve.models.blocknet.training import Recipe, TrainingPage, block_sizes  # noqa: E402
from pagesieve.models.blocknet.trees import (  # noqa: E402
    TreeRecipe,
    context_inputs,
    gated_mean,
    train_trees,
    unsure_blocks,
)

PARTS = ("fit", "validation")


def fold(cache: Path, left_out: str, out: Path, recipe: TreeRecipe, at: list[int], seed: int,
         extras: tuple[str, ...] = ("stop",), added: tuple[str, ...] = DEFAULT_ADDED_SOURCES) -> None:
    pages = []
    for name in (*POOLS, *added):
        if name == left_out:
            continue
        pool = CachedPool(cache, name, extras)
        for i in pool.indices(PARTS):
            x, y, w = pool.page(i)
            if w.sum() > 0:
                sizes = block_sizes(pool.rows[i]["texts"]) if recipe.f1_loss else None
                pages.append(TrainingPage(name, pool.rows[i]["id"], x, y, w, sizes))
    start = time.perf_counter()
    network = Recipe()
    trees = train_trees(pages, recipe, seed, network.pool_weights, network.crop)
    (out / f"{left_out}.txt").write_text(trees.text)
    pool = CachedPool(cache, left_out, extras)
    scored = pool.indices(PARTS)
    inputs = [pool.page(i)[0] for i in scored]
    x = np.concatenate([context_inputs(page) for page in inputs])
    header = {"ids": np.array([pool.rows[i]["id"] for i in scored]), "offsets": np.cumsum([0] + list(map(len, inputs)))}
    for rounds in at:
        (out / f"k{rounds}").mkdir(exist_ok=True)
        scores = trees.booster.predict(x, raw_score=True, num_iteration=rounds, num_threads=recipe.threads)
        np.savez(out / f"k{rounds}" / f"{left_out}.npz", **header, logits=scores.astype(np.float32))
    print(f"{left_out}: {len(pages)} training pages, {time.perf_counter() - start:.0f} s", flush=True)


def blend(network: Path, trees: Path, out: Path, gate: float) -> None:
    out.mkdir(parents=True, exist_ok=True)
    read = evaluated = 0
    for pool in POOLS:
        a, b = np.load(network / f"{pool}.npz"), np.load(trees / f"{pool}.npz")
        if not (np.array_equal(a["ids"], b["ids"]) and np.array_equal(a["offsets"], b["offsets"])):
            raise SystemExit(f"{pool}: the two folders scored other pages or blocks; use runs of one cache")
        unsure = unsure_blocks(a["logits"], gate)
        evaluated += int(unsure.sum())
        read += len(unsure)
        np.savez(out / f"{pool}.npz", ids=a["ids"], offsets=a["offsets"],
                 logits=gated_mean(a["logits"], unsure, b["logits"][unsure]).astype(np.float32))
    print(f"gate {gate:g}: the trees read {evaluated / read:.3f} of {read} blocks")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=("run", "blend"))
    ap.add_argument("dirs", nargs="+", type=Path, help="run: TREES_DIR; blend: NET_LOGITS TREES_LOGITS OUT_DIR")
    ap.add_argument("--cache", type=Path, default=Path(__file__).resolve().parents[3] / "lobo-cache")
    ap.add_argument("--pools", default=",".join(POOLS))
    ap.add_argument("--rounds", type=int, default=TreeRecipe().rounds)
    ap.add_argument("--at", default="", help="run: comma-separated smaller round counts to score as well")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--f1-loss", type=float, default=TreeRecipe().f1_loss,
                    help="run: weight of each page's soft F1 term beside the cross-entropy (TreeRecipe.f1_loss)")
    ap.add_argument("--extra", default="stop",
                    help="run: the inputs, as lobo_blocknet.py run --extra (stop,peers: blend's model)")
    ap.add_argument("--add-pools", default=",".join(DEFAULT_ADDED_SOURCES),
                    help="run: training-only sources, as lobo_blocknet.py run --add-pools ('' for none, as blend)")
    ap.add_argument("--gate", type=float, default=TreeRecipe().gate)
    args = ap.parse_args(argv)
    if args.command == "blend":
        if len(args.dirs) != 3:
            ap.error("blend takes NET_LOGITS TREES_LOGITS OUT_DIR")
        blend(*args.dirs, args.gate)
        return 0
    if len(args.dirs) != 1:
        ap.error("run takes one TREES_DIR")
    out = args.dirs[0]
    out.mkdir(parents=True, exist_ok=True)
    at = sorted({int(r) for r in args.at.split(",") if r} | {args.rounds})
    for pool in args.pools.split(","):
        fold(args.cache, pool, out, TreeRecipe(rounds=args.rounds, f1_loss=args.f1_loss), at, args.seed,
             tuple(e for e in args.extra.split(",") if e), tuple(p for p in args.add_pools.split(",") if p))
    return 0


if __name__ == "__main__":
    sys.exit(main())
