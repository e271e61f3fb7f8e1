"""Pick CNR's seed threshold (conf/cnr.toml `top_fraction`) on a training split.

The paper leaves "the top rated nodes" open. This sweeps the share of text-holding nodes that
seed Algorithm 2 and prints mean bag-of-words F1 per value on the given split.

    .venv/bin/python scripts/train/tune_cnr.py --dataset ../shared/data/cleaneval --split web2text_train
"""

from __future__ import annotations

import argparse
import statistics

from pagesieve.eval import bag_of_words_prf, iter_gold_pages
from pagesieve.models.cnr import CNR, CNRSettings
from pagesieve.models.page import PageInput, prepare, run_prepared


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", default="../shared/data/cleaneval")
    ap.add_argument("--split", default="web2text_train")
    ap.add_argument("--fractions", default="0.02,0.05,0.1,0.2,0.3,0.5")
    ap.add_argument("--adjust", type=int, default=0)
    args = ap.parse_args()
    gold_pages = iter_gold_pages(args.dataset, args.split or None)
    pages = [(prepare(PageInput(gp.html, url=gp.url)), gp.gold) for gp in gold_pages]
    for fraction in (float(f) for f in args.fractions.split(",")):
        method = CNR(CNRSettings.load({"top_fraction": fraction, "adjust": args.adjust}))
        scores = [bag_of_words_prf(run_prepared(method, page).result.text, gold) for page, gold in pages]
        print(f"top_fraction={fraction:<5} pages={len(scores)} "
              f"P={statistics.mean(s.precision for s in scores):.3f} "
              f"R={statistics.mean(s.recall for s in scores):.3f} "
              f"F1={statistics.mean(s.f1 for s in scores):.3f} "
              f"median F1={statistics.median(s.f1 for s in scores):.3f}")


if __name__ == "__main__":
    main()
