"""False-positive and false-negative rates of `pagesieve dedup` on document pairs of known Jaccard similarity.

Each pair is one real article (the gold texts of the L3S-GN1, Dragnet and CleanEval benchmarks, one article per
pair) and a copy of it with a random share of its words replaced by words of another article; the pair's true
similarity is the Jaccard of the two shingle sets, computed exactly. All pairs go through the Spark job in one
documents table; a pair is "flagged" when both documents land in one cluster. Below the threshold a flagged pair
is a false positive, at or above it an unflagged pair is a false negative. The LSH stage alone (a shared band,
no verification; what DataTrove's and NeMo Curator's MinHash stages decide on) is reported beside it, with the
banding's theoretical candidate probability 1 - (1 - s^r)^b.

    .venv/bin/python scripts/eval/eval_dedup.py                       # 600 pairs, default settings
    .venv/bin/python scripts/eval/eval_dedup.py --pairs 300 --conf dedup.threshold=0.7 --json eval.json
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

from pagesieve.data import data_root

DATA = data_root()
BINS = [0.0, 0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0001]


def articles(min_words: int = 150) -> list[list[str]]:
    """Word lists of the benchmark gold texts with at least `min_words` words, in a fixed order."""
    out = []
    for name in ("l3s-gn1", "dragnet", "cleaneval"):
        for path in sorted((DATA / name / "gold").glob("*.txt")):
            words = path.read_text("utf-8", errors="replace").split()
            if len(words) >= min_words:
                out.append(words[:800])
    return out


def make_pairs(n: int, seed: int) -> list[tuple[str, str]]:
    """(original, edited) texts: the edit replaces a random 0-8 % of the word positions with other words."""
    rng = random.Random(seed)
    pool = articles()
    if len(pool) < n + 1:
        raise SystemExit(f"only {len(pool)} articles for {n} pairs")
    vocabulary = [w for words in pool[-200:] for w in words]
    pairs = []
    for words in pool[:n]:
        share = rng.uniform(0.0, 0.08)
        edited = list(words)
        for position in rng.sample(range(len(words)), int(share * len(words))):
            edited[position] = rng.choice(vocabulary)
        pairs.append((" ".join(words), " ".join(edited)))
    return pairs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=600)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--conf", action="append", default=[], metavar="dedup.KEY=VALUE")
    ap.add_argument("--json", default=None, help="also write the figures here")
    args = ap.parse_args(argv)

    import pyarrow as pa

    from pagesieve.jobs import dedup
    from pagesieve.jobs.common import job_parser, load_config, spark_session
    from pagesieve.schemas import DOCUMENTS, spark_schema
    from pagesieve.udfs.dedup import signer_of

    config = load_config(job_parser("dedup", "").parse_args([x for c in args.conf for x in ("--conf", c)]))
    settings = config.job("dedup")
    signer = signer_of(settings)
    pairs = make_pairs(args.pairs, args.seed)
    truth, lsh = [], []
    rows = []
    for i, (a, b) in enumerate(pairs):
        truth.append(_jaccard(signer.shingles(a), signer.shingles(b)))
        lsh.append(bool(set(enumerate(signer.sign(a)[1])) & set(enumerate(signer.sign(b)[1]))))
        rows += [{"page_id": f"p{i:04d}/a", "status": "ok", "text": a},
                 {"page_id": f"p{i:04d}/b", "status": "ok", "text": b}]
    spark = spark_session("eval-dedup", "local[2]", {"spark.ui.enabled": "false"})
    frame = spark.createDataFrame(pa.Table.from_pylist(rows, schema=DOCUMENTS).to_pandas(), spark_schema(DOCUMENTS))
    clusters = {r.page_id: r.dup_cluster for r in dedup.build(frame, settings).documents.collect()}
    flagged = [clusters[f"p{i:04d}/a"] is not None and clusters[f"p{i:04d}/a"] == clusters[f"p{i:04d}/b"]
               for i in range(len(pairs))]
    figures = _figures(truth, lsh, flagged, settings)
    print(_table(figures, settings))
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    spark.stop()
    return 0


def _jaccard(a: set[str], b: set[str]) -> float:
    from pagesieve.models.dedup import jaccard

    return jaccard(a, b)


def _figures(truth: list[float], lsh: list[bool], flagged: list[bool], settings) -> dict:
    from pagesieve.models.dedup import candidate_probability

    thr = settings.threshold
    bins = []
    for lo, hi in zip(BINS, BINS[1:], strict=False):
        idx = [i for i, s in enumerate(truth) if lo <= s < hi]
        if idx:
            mid = sum(truth[i] for i in idx) / len(idx)
            bins.append({"jaccard": f"[{lo:.2f}, {min(hi, 1.0):.2f}{')' if hi <= 1 else ']'}", "pairs": len(idx),
                         "lsh_candidate": sum(lsh[i] for i in idx) / len(idx),
                         "theory": candidate_probability(mid, settings.bands, settings.rows),
                         "flagged": sum(flagged[i] for i in idx) / len(idx)})
    below = [i for i, s in enumerate(truth) if s < thr]
    above = [i for i, s in enumerate(truth) if s >= thr]

    def rate(idx: list[int], hits: list[bool], want: bool) -> float | None:
        return sum(hits[i] != want for i in idx) / len(idx) if idx else None

    return {"threshold": thr, "bands": settings.bands, "rows": settings.rows, "pairs": len(truth),
            "pairs_below": len(below), "pairs_at_or_above": len(above),
            "dedup": {"false_positive_rate": rate(below, flagged, False),
                      "false_negative_rate": rate(above, flagged, True)},
            "lsh_alone": {"false_positive_rate": rate(below, lsh, False),
                          "false_negative_rate": rate(above, lsh, True)},
            "bins": bins}


def _table(f: dict, settings) -> str:
    lines = [f"{f['pairs']} pairs ({f['pairs_below']} below, {f['pairs_at_or_above']} at or above the threshold "
             f"{f['threshold']}); bands={f['bands']} rows={f['rows']} shingle_size={settings.shingle_size}",
             f"{'jaccard':<14}{'pairs':>6}{'LSH cand.':>11}{'theory':>8}{'dedup flagged':>15}"]
    for b in f["bins"]:
        lines.append(f"{b['jaccard']:<14}{b['pairs']:>6}{b['lsh_candidate']:>11.3f}{b['theory']:>8.3f}"
                     f"{b['flagged']:>15.3f}")
    for name in ("dedup", "lsh_alone"):
        r = f[name]
        lines.append(f"{name:<10} false positive rate {r['false_positive_rate']}, "
                     f"false negative rate {r['false_negative_rate']}")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
