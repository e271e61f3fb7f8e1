"""Web2Text's default recipe on modern pages it has not seen: K-fold cross-validation over Scrapinghub.

The shipped default model trains on all 24 Scrapinghub pages, so its Scrapinghub score is in-sample. This
trains the default recipe (CleanEval web2text_train + Scrapinghub, early stopping on CleanEval
web2text_validation) K times, each time without one fold of Scrapinghub (page i of the id order is in fold
i % K), and scores each model on its held-out fold next to the peers, through the evaluation harness. The
folds train in parallel processes (one torch thread each).

    .venv/bin/python scripts/eval/cv_web2text.py --folds 2 --out report/cv_web2text
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import torch

# the folds train with the shipped recipes themselves: scripts/train/train_web2text.py, imported from its folder
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "train"))
from train_web2text import DATA, RECIPES, load_pages, prepare_pages, train  # noqa: E402

from pagesieve.eval import iter_gold_pages  # noqa: E402
from pagesieve.eval.harness import build_methods, evaluate_pages  # noqa: E402
from pagesieve.eval.report import write_report  # noqa: E402

log = logging.getLogger("cv_web2text")


def train_fold(fold: int, folds: int, data: Path, seed: int, max_steps: int, patience: int, eval_every: int,
               out: Path, weight: float) -> Path:
    logging.basicConfig(level=logging.INFO, format=f"%(asctime)s fold {fold}: %(message)s", stream=sys.stderr,
                        force=True)  # a forked worker inherits the parent's handler
    torch.set_num_threads(1)
    train_sources, val_sources, _ = RECIPES["default"]
    cleaneval = [s for s in train_sources if s[0] != "scrapinghub"]
    held_in = [p for i, p in enumerate(iter_gold_pages(data / "scrapinghub")) if i % folds != fold]
    held_in = prepare_pages(held_in, 1, f"scrapinghub without fold {fold}")
    for page in held_in:
        page.weight = weight
    pages = load_pages(cleaneval, data, None, 1) + held_in
    model, record = train(pages, load_pages(val_sources, data, None, 1), seed=seed, max_steps=max_steps,
                          patience=patience, eval_every=eval_every)
    model.meta = {"recipe": f"default without scrapinghub fold {fold} of {folds}", "seed": seed,
                  "scrapinghub_weight": weight, **record["summary"]}
    npz, _ = model.save(out / f"fold{fold}")
    return npz


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--folds", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-steps", type=int, default=40_000)
    ap.add_argument("--patience", type=int, default=5_000)
    ap.add_argument("--eval-every", type=int, default=50)
    ap.add_argument("--peers", default="trafilatura,resiliparse,cnr")
    ap.add_argument("--weight", type=float, default=RECIPES["default"][2].get("scrapinghub", 1.0),
                    help="draw Scrapinghub excerpts K times as often (default: the default recipe's)")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr)
    args.out.mkdir(parents=True, exist_ok=True)
    with ProcessPoolExecutor(max_workers=args.folds) as pool:
        models = list(pool.map(train_fold, range(args.folds), [args.folds] * args.folds, [args.data] * args.folds,
                               [args.seed] * args.folds, [args.max_steps] * args.folds,
                               [args.patience] * args.folds, [args.eval_every] * args.folds,
                               [args.out] * args.folds, [args.weight] * args.folds))
    pages = list(iter_gold_pages(args.data / "scrapinghub"))
    peers, skipped = build_methods(args.peers.split(","))
    scores = []
    for fold, model in enumerate(models):
        held_out = [p for i, p in enumerate(pages) if i % args.folds == fold]
        methods = {**build_methods(["web2text"], {"web2text": {"model": str(model)}})[0], **peers}
        scores += evaluate_pages("scrapinghub", held_out, methods, warmup=0, blocks=True)
    data = write_report(scores, args.out, skipped=skipped, plots=False,
                        config={"folds": args.folds, "seed": args.seed, "scrapinghub_weight": args.weight,
                                "models": [str(m) for m in models]})
    print((args.out / "report.md").read_text(encoding="utf-8"))
    log.info("report: %s", json.dumps({m: v["bag_of_words"]["mean"]["f1"]
                                       for m, v in data["datasets"]["scrapinghub"].items()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
