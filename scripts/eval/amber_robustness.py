"""AMBER's robustness and learning studies (paper section 6.1 "Robustness", Figure 17; section 6.4, Tables
1-2) on generated listing pages (pagesieve.eval.listing_generator), where the truth is exact.

1. Gazetteer cut: the LOCATION gazetteer (conf/amber/gazetteers/uk_locations.txt) cut to 100/75/50/25% of
   its terms (a seeded random sample, written to a temp folder with a copy of the real_estate schema that
   points at it); per cut, LOCATION precision/recall, the share of true locations the cut gazetteer misses,
   and record-level P/R/F1.
2. Learning curve: from a seed gazetteer (a cut), rounds of Algorithm 5 (models/amber/learning.py) over the
   pages; per round the paper's columns: LE locations extracted, CE correct, PE/RE precision/recall, LL
   terms learned, CL of them true locations, plus terms dropped; then the final gazetteer on held-out pages.

LOCATION scoring: a predicted location (a `location` field of any predicted record) is correct when its
record matches a truth record (`score_records`' matching on the records' subtrees) and its value equals the
truth value; recall is over every truth record's location. "node" P/R also accept a value that holds the
true location (an inferred node "12 High Street, Witney" for Witney): the paper's node-level view.

    .venv/bin/python scripts/eval/amber_robustness.py                       # 90 pages, seed 0
    .venv/bin/python scripts/eval/amber_robustness.py --pages 150 --rounds 8 --learn-from 0.2,0.25,1 --json out.json
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from pagesieve.eval.listing_generator import GeneratedPage, all_locations, generate_pages, shipped_locations
from pagesieve.eval.listings import Counts, record_views, score_records
from pagesieve.models.amber import Amber, AmberSettings
from pagesieve.models.amber.learning import Evidence, load_learned, page_evidence, save_learned, term_key
from pagesieve.models.page import ParsedPage, parse_page


@dataclass
class PassScore:
    """One pass of AMBER over the pages: record counts and LOCATION counts, summed."""

    records: Counts
    location: Counts
    location_node: Counts            # correct when the predicted text holds the true location (node level)
    missed_by_gazetteer: float       # share of true locations the gazetteer does not hold


def cut_schema(folder: Path, fraction: float, seed: int) -> tuple[str, tuple[str, ...]]:
    """A real_estate schema copy whose location gazetteer keeps `fraction` of the shipped terms (seeded);
    returns its path and the kept terms."""
    terms = list(shipped_locations())
    kept = tuple(sorted(random.Random(f"cut:{seed}:{fraction}").sample(terms, round(fraction * len(terms)))))
    name = f"uk_locations_{round(fraction * 100)}.txt"
    (folder / name).write_text("# cut by scripts/eval/amber_robustness.py\n" + "\n".join(kept) + "\n", encoding="utf-8")
    text = resources.files("pagesieve.conf").joinpath("amber", "real_estate.toml").read_text("utf-8")
    if 'gazetteers = ["uk_locations"]' not in text:
        raise SystemExit("conf/amber/real_estate.toml no longer names uk_locations: update this script")
    schema = folder / f"real_estate_{round(fraction * 100)}.toml"
    schema.write_text(text.replace('gazetteers = ["uk_locations"]', f'gazetteers = ["{name}"]'), encoding="utf-8")
    return str(schema), kept


def run_pass(amber: Amber, pages: list[GeneratedPage], parsed: list[ParsedPage], known: set[str],
             evidence: Evidence | None = None) -> PassScore:
    """AMBER over every page, scored; adds each page's learning evidence to `evidence` when given."""
    records, location, node, gold, missed = Counts(), Counts(), Counts(), 0, 0
    for page, tree in zip(pages, parsed, strict=True):
        result = amber.process(tree)
        score = score_records(result.records, page.truth, views=record_views(result.records, page.html))
        records += score.records
        predicted = [next((f.value for f in r.fields if f.name == "location" and f.value), None)
                     for r in result.records]
        tp = sum(1 for p, g in score.matches if predicted[p] is not None
                 and predicted[p] == page.truth.records[g].attributes.get("location"))
        holds = sum(1 for p, g in score.matches if predicted[p] is not None
                    and page.truth.records[g].attributes.get("location", "\0") in predicted[p])
        truth = [r.attributes["location"] for r in page.truth.records if "location" in r.attributes]
        location += Counts(tp, sum(v is not None for v in predicted), len(truth))
        node += Counts(holds, sum(v is not None for v in predicted), len(truth))
        gold += len(truth)
        missed += sum(term_key(t) not in known for t in truth)
        if evidence is not None:
            evidence += page_evidence(amber, tree, result)
    return PassScore(records, location, node, missed / gold if gold else 0.0)


def learning_curve(pages: list[GeneratedPage], parsed: list[ParsedPage], held_out: tuple[list, list],
                   schema: str, seed_terms: tuple[str, ...], rounds: int, folder: Path) -> dict[str, Any]:
    """Rounds of Algorithm 5 from the schema's (cut) gazetteer; one row per round, then held-out scores."""
    learned = folder / f"learned_{Path(schema).stem}.json"
    universe = {term_key(t) for t in all_locations()}
    rows = []
    for rnd in range(1, rounds + 1):
        amber = Amber(AmberSettings(schema=schema, learned=str(learned)))
        state = load_learned(learned, amber.schema)
        known = {term_key(t) for t in state.terms(amber.schema)["location"]}
        evidence = Evidence()
        score = run_pass(amber, pages, parsed, known, evidence)
        report = state.update(evidence, amber.schema, replace=True)
        save_learned(state, learned)
        added, dropped = report.added.get("location", ()), report.dropped.get("location", ())
        loc = score.location
        rows.append({"round": rnd, "LE": loc.predicted, "CE": loc.tp, "PE": loc.precision, "RE": loc.recall,
                     "F1": loc.f1, "LL": len(added), "CL": sum(term_key(t) in universe for t in added),
                     "dropped": len(dropped), "dropped_true": sum(term_key(t) in universe for t in dropped),
                     "gazetteer": len(known), "missed_by_gazetteer": score.missed_by_gazetteer,
                     "record_f1": score.records.f1})
        if not report.changed:
            break
    amber = Amber(AmberSettings(schema=schema, learned=str(learned)))
    final = load_learned(learned, amber.schema)
    known = {term_key(t) for t in final.terms(amber.schema)["location"]}
    held = run_pass(amber, *held_out, known)
    wrong = sorted(t for t in final.added.get("location", ()) if term_key(t) not in universe)
    return {"seed_terms": len(seed_terms), "rounds": rows,
            "held_out": {"PE": held.location.precision, "RE": held.location.recall, "F1": held.location.f1,
                         "record_f1": held.records.f1},
            "learned_not_locations": wrong[:30], "learned_file": str(learned)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=90, help="generated pages (templates in turn)")
    ap.add_argument("--held-out", type=int, default=45, help="pages of another seed to score the final gazetteer")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--fractions", default="1,0.75,0.5,0.25", help="gazetteer cuts for the robustness table")
    ap.add_argument("--learn-from", default="0.25,1", help="seed gazetteer cuts the learning curves start from")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--json", default=None, help="write every figure to this file")
    args = ap.parse_args()

    pages = generate_pages(args.pages, args.seed)
    parsed = [parse_page(p.html.encode()) for p in pages]
    held_pages = generate_pages(args.held_out, args.seed + 1)
    held_out = (held_pages, [parse_page(p.html.encode()) for p in held_pages])
    out: dict[str, Any] = {"pages": len(pages), "seed": args.seed,
                           "records": sum(p.truth.record_count for p in pages), "cuts": [], "learning": {}}
    with tempfile.TemporaryDirectory(prefix="amber-robustness-") as tmp:
        folder = Path(tmp)
        print(f"{len(pages)} generated pages, {out['records']} records, seed {args.seed}\n")
        print("gazetteer  terms  missed   LOCATION P      R     F1   node P      R    records P      R     F1")
        for fraction in (float(x) for x in args.fractions.split(",")):
            schema, kept = cut_schema(folder, fraction, args.seed)
            score = run_pass(Amber(AmberSettings(schema=schema)), pages, parsed, {term_key(t) for t in kept})
            loc, node, rec = score.location, score.location_node, score.records
            print(f"{fraction:>8.0%}  {len(kept):>5}  {score.missed_by_gazetteer:>6.1%}   {loc.precision:>10.3f}"
                  f" {loc.recall:>6.3f} {loc.f1:>6.3f} {node.precision:>8.3f} {node.recall:>6.3f}"
                  f" {rec.precision:>10.3f} {rec.recall:>6.3f} {rec.f1:>6.3f}")
            out["cuts"].append({"fraction": fraction, "terms": len(kept), "missed_by_gazetteer":
                                score.missed_by_gazetteer, "location": _prf(loc), "location_node": _prf(node),
                                "records": _prf(rec)})
        for fraction in (float(x) for x in args.learn_from.split(",")):
            schema, kept = cut_schema(folder, fraction, args.seed)
            curve = learning_curve(pages, parsed, held_out, schema, kept, args.rounds, folder)
            out["learning"][f"{fraction:g}"] = {k: v for k, v in curve.items() if k != "learned_file"}
            print(f"\nlearning from {fraction:.0%} of the gazetteer ({len(kept)} terms), Θlearn from the schema")
            print("rnd   gaz  missed     LE    CE      PE      RE      F1    LL   CL  dropped(true)  record F1")
            for r in curve["rounds"]:
                print(f"{r['round']:>3} {r['gazetteer']:>5} {r['missed_by_gazetteer']:>6.1%} {r['LE']:>6} {r['CE']:>5}"
                      f" {r['PE']:>7.2%} {r['RE']:>7.2%} {r['F1']:>7.2%} {r['LL']:>5} {r['CL']:>4}"
                      f" {r['dropped']:>6} ({r['dropped_true']}) {r['record_f1']:>10.3f}")
            h = curve["held_out"]
            print(f"held-out pages (seed {args.seed + 1}): PE {h['PE']:.2%} RE {h['RE']:.2%} F1 {h['F1']:.2%}, "
                  f"record F1 {h['record_f1']:.3f}")
            if curve["learned_not_locations"]:
                print("learned terms that are no location:", ", ".join(curve["learned_not_locations"]))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))


def _prf(c: Counts) -> dict[str, Any]:
    return {"tp": c.tp, "predicted": c.predicted, "gold": c.gold, "precision": round(c.precision, 4),
            "recall": round(c.recall, 4), "f1": round(c.f1, 4)}


if __name__ == "__main__":
    main()
