"""Choose BlockNet's fallback rule (`min_words`, `fallback_margin`) by cross-validation, not on 4 pages.

    .venv/bin/python scripts/eval/cv_blocknet_fallback.py       # ~9 minutes on one core (3-4 with --native-kernels)

The rule decides what a page gets when the blocks above the threshold hold too few words. It was first chosen
on the pools' `validation` parts, where Google Trends has 4 pages and moved the choice alone. Here every page
of the `fit` and `validation` parts of the shipped model's pools (train_blocknet's POOLS and stop words; six
pools and 1,327 pages when the docs' figures were made, eight since 2026-11-27) gets a logit from a model that
did not train on it: 5 folds (by a hash of pool and page id), each model trained by
scripts/train/train_blocknet.py's recipe on the other four. Each rule is then applied by BlockNet's own
`content_blocks` to these out-of-fold logits and scored by mean BoW F1 per pool (train_blocknet's `pool_f1`);
the macro mean over the pools with gold text picks the rule (trafilatura-eval, snippet gold only, trains but is
not scored here).
The `test` parts are never read. Like the training script, it pins torch's CPU kernels (models/reproducible.py),
so its figures are the same on any x86-64 machine; `--native-kernels` runs ~2.5x faster, figures per machine.
"""

from __future__ import annotations

import argparse
import hashlib
import logging
import sys
from pathlib import Path

import numpy as np

from pagesieve.models.blocknet import BlockNetSettings
from pagesieve.models.reproducible import add_kernel_option, deterministic_torch

# the folds train with the shipped recipe itself: scripts/train/train_blocknet.py, imported from its folder
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "train"))
from train_blocknet import DATA, POOLS, load, pool_f1  # noqa: E402

from pagesieve.models.blocknet.training import Recipe, train  # noqa: E402

FOLDS = 5
MIN_WORDS = (0, 25, 50, 100, 200)
MARGINS = (1.0, 2.0, 3.0, 4.0, 5.0, 7.0)


def fold_of(pool: str, page_id: str) -> int:
    return int(hashlib.sha1(f"{pool}/{page_id}".encode()).hexdigest(), 16) % FOLDS


def out_of_fold_logits(pages: list, seed: int) -> list[np.ndarray]:
    logits: list[np.ndarray] = [np.zeros(0, dtype=np.float32)] * len(pages)
    folds = [fold_of(p.pool, p.page_id) for p in pages]
    for k in range(FOLDS):
        model, _ = train([p for p, f in zip(pages, folds, strict=True) if f != k], Recipe(), seed)
        held = [i for i, f in enumerate(folds) if f == k]
        for i, page_logits in zip(held, model.logits([pages[i].inputs for i in held]), strict=True):
            logits[i] = page_logits
        logging.info("fold %d: trained on %d pages, %d held out", k, len(pages) - len(held), len(held))
    return logits


def scores(pages: list, logits: list[np.ndarray], settings: BlockNetSettings) -> dict[str, float]:
    means = pool_f1(pages, logits, settings)
    return {"macro": float(np.mean(list(means.values()))), **means}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    add_kernel_option(ap)
    args = ap.parse_args(argv)
    deterministic_torch(args.native_kernels)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr)
    pages = [p for part in ("fit", "validation") for p in load(DATA, POOLS, part, keep_blocks=True) if len(p.labels)]
    logits = out_of_fold_logits(pages, args.seed)
    rules = [(0, 0.0)] + [(w, m) for w in MIN_WORDS[1:] for m in MARGINS]
    print(f"{len(pages)} pages, out-of-fold logits ({FOLDS} folds); mean BoW F1, rule = min_words / margin")
    scored = list(dict.fromkeys(p.pool for p in pages if p.gold is not None))     # pool_f1's pools, in order
    print(f"{'rule':<12} {'macro':>6} " + " ".join(f"{pool[:11]:>11}" for pool in scored))
    for min_words, margin in rules:
        row = scores(pages, logits, BlockNetSettings(min_words=min_words, fallback_margin=margin))
        name = "off" if min_words == 0 else f"{min_words} / {margin:g}"
        print(f"{name:<12} {row['macro']:>6.4f} " + " ".join(f"{row[pool]:>11.3f}" for pool in scored), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
