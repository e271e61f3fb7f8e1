"""Score a FreeDOM model on sites with SWDE's page-level F1 (per field, macro over fields, then over sites),
node stage alone, with the relation stage (when the model has one), with XPath voting, and with both; each with
the decision's value checks on, off, or both (`--value-checks`).

    python scripts/eval/eval_freedom.py --model models/freedom/weights/freedom-book --sites 'booksamillion[200-399]'
    python scripts/eval/eval_freedom.py --model book --sites synthetic:20-29
"""

from __future__ import annotations

import argparse
import json
import sys

from pagesieve.eval.freedom import score_sites, sites_of
from pagesieve.eval.swde import SWDE_ROOT


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="book", help="packaged name or <stem> of a trained model")
    ap.add_argument("--sites", required=True, help="test sites, as train_freedom.py's --seed-sites")
    ap.add_argument("--vertical", default="book")
    ap.add_argument("--fields", default="author,isbn_13,publication_date,publisher,title")
    ap.add_argument("--swde", default=SWDE_ROOT)
    ap.add_argument("--synthetic-pages", type=int, default=30)
    ap.add_argument("--data-seed", type=int, default=0)
    ap.add_argument("--value-checks", choices=("on", "off", "both"), default="on",
                    help="the decision's value checks (freedom.value_checks); both: off, then on")
    ap.add_argument("--json", default=None, help="also write the scores here")
    args = ap.parse_args(argv)
    fields = args.fields.split(",")
    sites = sites_of(args.sites, args.vertical, fields, args.swde, args.synthetic_pages, args.data_seed)
    report = {}
    stages = {"node": (False, False), "relation": (True, False), "vote": (False, True), "relation+vote": (True, True)}
    checks = {"on": [True], "off": [False], "both": [False, True]}[args.value_checks]
    runs = {(f"{name}+checks" if on and args.value_checks == "both" else name): (relation, vote, on)
            for on in checks for name, (relation, vote) in stages.items()}
    for name, (relation, vote, on) in runs.items():
        scores = score_sites(args.model, sites, fields, vote, relation=relation, value_checks=on)
        report[name] = scores
        print(f"== {name} (value checks {'on' if on else 'off'}): mean page-level F1 {scores['mean']['f1']:.3f} "
              f"over {len(sites)} sites; per field "
              + " ".join(f"{f}={scores['mean']['fields'][f]:.3f}" for f in fields))
        for site in sites:
            per = scores[site.name]["fields"]
            print(f"  {site.name:16s} {scores[site.name]['f1']:.3f}  "
                  + " ".join(f"{f}={per[f]['f1']:.2f}" for f in fields))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(report, out, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
