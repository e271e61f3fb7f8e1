"""The two offline language detectors (`clean.language_detector`) side by side, in one run: speed on one core
and agreement with CLD2 on the real archive pages' text.

Texts: every HTML page of the archives in ../shared/data/warc (Common Crawl 2008 and 2024, ClueWeb09/12,
Internet Archive, Wget, Wayback), cleaned by cnr (the default method), kept when it has at least
`clean.language_min_chars` letters. Reference: CLD2 (pycld2), the detector behind Common Crawl's `languages-cld2`
line, on the same text (CC's own verdict exists for one page only; `scripts/eval/eval_language.py` checks that one).

    .venv/bin/python scripts/bench/bench_language.py                 # 5 rounds, pinned to CPU 0
    .venv/bin/python scripts/bench/bench_language.py --rounds 3 --method trafilatura
"""

from __future__ import annotations

import argparse
import collections
import logging
import os
import sys
import time
from pathlib import Path

from pagesieve.models.page.language import DETECTORS, LanguageID, build_detector, identify_language

# the pages and CLD2 reference shared with the language evaluations (scripts/eval/language_pages.py)
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "eval"))
from language_pages import archive_pages, cld2, clean_texts  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--method", default="cnr", help="the cleaner whose text is identified")
    ap.add_argument("--rounds", type=int, default=5, help="timed passes per detector (best one counts)")
    ap.add_argument("--cpu", type=int, default=0, help="CPU to pin to (-1: none)")
    ap.add_argument("--max-chars", default="1000,10000", help="clean.language_max_chars values to compare")
    args = ap.parse_args()
    logging.disable(logging.WARNING)  # the readers' notes on the quirky archives
    if args.cpu >= 0 and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {args.cpu})
    pages = archive_pages()
    texts = clean_texts(pages, args.method)
    probe = LanguageID()
    texts = [t for t in texts if identify_language(t, lambda s: ("en", 1.0), probe)[0]]  # enough letters
    reference = [cld2(t) for t in texts]
    print(f"{len(pages)} archive pages, {len(texts)} {args.method} texts with >= {probe.min_chars} letters "
          f"({sum(map(len, texts)) / len(texts):.0f} chars on average); CLD2 reliable on "
          f"{sum(r for _, r in reference)}")
    results, speed = {}, {}
    runs = [(name, int(m)) for m in args.max_chars.split(",") for name in DETECTORS]
    detectors = {}
    for name in DETECTORS:
        start = time.perf_counter()
        detectors[name] = build_detector(name)
        speed[name] = (time.perf_counter() - start, 0.0)
    for _ in range(args.rounds):  # rounds alternate between the runs, so a busy moment hits them alike
        for name, max_chars in runs:
            settings = LanguageID(name, probe.min_chars, max_chars)
            start = time.perf_counter()
            found = [identify_language(t, detectors[name], settings) for t in texts]
            took = time.perf_counter() - start
            key = f"{name}@{max_chars}"
            results[key] = [code for code, _ in found]
            speed[key] = (speed[name][0], min(speed.get(key, (0, float("inf")))[1], took))
    names = [f"{n}@{m}" for n, m in runs]
    base = speed[names[0]][1]
    print(f"\n{'detector@max_chars':<22} {'load s':>7} {'docs/s':>8} {'time ratio':>10} {'= CLD2':>14} "
          f"{'= CLD2 reliable':>16}")
    reliable = [i for i, (_, r) in enumerate(reference) if r]
    for name in names:
        load_s, best = speed[name]
        agree = sum(c == ref for c, (ref, _) in zip(results[name], reference, strict=True))
        agree_r = sum(results[name][i] == reference[i][0] for i in reliable)
        print(f"{name:<22} {load_s:>7.2f} {len(texts) / best:>8.0f} {best / base:>10.2f} "
              f"{agree:>5}/{len(texts)} {agree / len(texts):>5.1%} {agree_r:>5}/{len(reliable)} "
              f"{agree_r / len(reliable):>5.1%}")
    by_lang: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for i, (ref, _) in enumerate(reference):
        by_lang[ref or "none"]["n"] += 1
        for name in names:
            by_lang[ref or "none"][name] += results[name][i] == ref
    print(f"\nper CLD2 language: texts, then how many each gives the same code\n{'CLD2':<6} {'texts':>5} "
          + " ".join(f"{n:>18}" for n in names))
    for lang, c in sorted(by_lang.items(), key=lambda kv: (-kv[1]["n"], kv[0])):
        print(f"{lang:<6} {c['n']:>5} " + " ".join(f"{c[n]:>18}" for n in names))
    a, b = names[0], names[1]
    disagree = collections.Counter((ref or "none", results[a][i], results[b][i]) for i, (ref, _) in enumerate(reference)
                                   if not ref == results[a][i] == results[b][i])
    print(f"\ndisagreements (CLD2, {a}, {b}): " + ", ".join(f"{k}x{v}" for k, v in disagree.most_common()))


if __name__ == "__main__":
    main()
