"""Speed of `pagesieve dedup`: the signature UDF on one core, ours against Spark ML's MinHashLSH, and the whole
job at growing sizes on Spark local mode.

Documents are generated: words drawn (Zipf, exponent 1.1) from the vocabulary of the benchmark gold texts in
../shared/data, 100-400 words each. In every block of 100 documents, 88 are originals, 10 are near duplicates
of originals of the block (1.5 % of the words replaced, a date line added: shingle Jaccard about 0.85) and 2
are exact copies; so 12 % of the documents should come out with a dup_of.

    .venv/bin/python scripts/bench/bench_dedup.py udf --docs 2000          # one core: docs/s of the signature function
    .venv/bin/python scripts/bench/bench_dedup.py peer --docs 20000        # ours vs Spark ML MinHashLSH, same documents
    .venv/bin/python scripts/bench/bench_dedup.py scale --sizes 100000,1000000 --json scale.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd

from pagesieve.data import data_root

DATA = data_root()
WORK = Path(os.environ.get("BENCH_DEDUP_DIR", "/tmp/pagesieve-bench-dedup"))


def vocabulary() -> list[str]:
    """The distinct words of the gold texts, most frequent first."""
    counts: dict[str, int] = {}
    for name in ("l3s-gn1", "dragnet", "cleaneval"):
        for path in sorted((DATA / name / "gold").glob("*.txt")):
            for w in path.read_text("utf-8", errors="replace").split():
                counts[w] = counts.get(w, 0) + 1
    return sorted(counts, key=lambda w: (-counts[w], w))


def _original(i: int, words: np.ndarray, p: np.ndarray) -> list[str]:
    rng = np.random.default_rng(i)
    return list(words[rng.choice(len(words), size=int(rng.integers(100, 401)), p=p)])


def document_text(i: int, words: np.ndarray, p: np.ndarray) -> tuple[str, str]:
    """(text, kind) of document i: kind original, near (of i - 88 + ...) or exact."""
    slot, block = i % 100, i - i % 100
    if slot < 88:
        return " ".join(_original(i, words, p)), "original"
    if slot < 98:
        base = _original(block + slot - 88, words, p)
        rng = np.random.default_rng(10**9 + i)
        for pos in rng.choice(len(base), size=max(1, int(0.015 * len(base))), replace=False):
            base[pos] = words[int(rng.integers(len(words)))]
        return f"Updated {1 + i % 28} March 2024\n" + " ".join(base), "near"
    return " ".join(_original(block + slot - 88, words, p)), "exact"


def _zipf(n: int) -> np.ndarray:
    p = 1.0 / np.arange(1, n + 1) ** 1.1
    return p / p.sum()


def generate(spark, n: int, path: str, partitions: int) -> None:
    """Write n generated documents as a documents table at `path` (generated inside the Spark tasks)."""
    from pagesieve.schemas import DOCUMENTS, spark_schema

    words = np.array(vocabulary()[:50000])
    p = _zipf(len(words))

    def rows(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        for batch in batches:
            texts = [document_text(int(i), words, p)[0] for i in batch["id"]]
            yield pd.DataFrame({"page_id": [f"doc-{int(i):08d}" for i in batch["id"]],
                                "url": [f"http://bench/{int(i)}" for i in batch["id"]],
                                "method": "bench/1", "status": "ok", "text": texts,
                                "n_chars": [len(t) for t in texts], "n_words": [len(t.split()) for t in texts]})

    schema = spark_schema(DOCUMENTS)
    cols = ["page_id", "url", "method", "status", "text", "n_chars", "n_words"]
    gen = spark.range(n, numPartitions=partitions).mapInPandas(rows, schema.__class__(
        [schema[c] for c in cols]))
    from pyspark.sql import functions as F

    gen.select(*[F.col(c) if c in cols else F.lit(None).cast(schema[c].dataType).alias(c) for c in schema.names]) \
        .write.mode("overwrite").parquet(path)


def bench_udf(args) -> dict:
    """One process pinned to one CPU: the signature function the UDF runs, per document (datasketch MinHash
    with our crc32 shingle hash, and with datasketch's default sha1_hash32)."""
    from datasketch import MinHash

    from pagesieve.jobs.common import job_parser, load_config
    from pagesieve.udfs.dedup import signer_of

    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {args.cpu})
    words = np.array(vocabulary()[:50000])
    p = _zipf(len(words))
    texts = [document_text(i, words, p)[0] for i in range(args.docs)]
    settings = load_config(job_parser("dedup", "").parse_args([])).job("dedup")
    ours = signer_of(settings)
    sha1 = signer_of(settings)
    sha1._template = MinHash(num_perm=settings.num_perm, seed=settings.seed, scheme="affine32")
    out = {"docs": len(texts), "mean_words": float(np.mean([len(t.split()) for t in texts]))}
    for name, signer in (("crc32 (ours)", ours), ("sha1 (datasketch default)", sha1)):
        for t in texts[:100]:
            signer.sign(t)
        start = time.perf_counter()
        for t in texts:
            signer.sign(t)
        out[name] = round(len(texts) / (time.perf_counter() - start), 1)
    start = time.perf_counter()
    for t in texts:
        ours.shingles(t)
    out["normalise + shingles only"] = round(len(texts) / (time.perf_counter() - start), 1)
    print(json.dumps(out, indent=2))
    return out


def _truth_pairs(n: int) -> set[tuple[str, str]]:
    pairs = set()
    for i in range(n):
        slot, block = i % 100, i - i % 100
        if slot >= 88:
            pairs.add((f"doc-{block + slot - 88:08d}", f"doc-{i:08d}"))
    return pairs


def bench_peer(spark, args) -> dict:
    """Ours (the whole dedup build) against Spark ML's MinHashLSH approxSimilarityJoin on the same documents."""
    from pyspark.ml import Pipeline
    from pyspark.ml.feature import HashingTF, MinHashLSH, NGram, RegexTokenizer
    from pyspark.sql import functions as F

    from pagesieve.jobs import dedup
    from pagesieve.jobs.common import job_parser, load_config

    path = str(WORK / f"docs-{args.docs}")
    generate(spark, args.docs, path, 4)
    docs = spark.read.parquet(path).cache()
    docs.count()
    truth = _truth_pairs(args.docs)
    settings = load_config(job_parser("dedup", "").parse_args([])).job("dedup")
    start = time.perf_counter()
    result = dedup.build(docs, settings)
    rows = result.documents.select("page_id", "dup_cluster").where(F.col("dup_cluster").isNotNull()).collect()
    ours_s = time.perf_counter() - start
    cluster = {r.page_id: r.dup_cluster for r in rows}
    ours_found = sum(cluster.get(a) is not None and cluster.get(a) == cluster.get(b) for a, b in truth)
    out = {"docs": args.docs, "true_pairs": len(truth),
           "ours": {"seconds": round(ours_s, 1), "candidate_pairs": result.stats["candidate_pairs"],
                    "recall": ours_found / len(truth), "verified_pairs": result.stats["verified_pairs"]}}
    for tables in args.tables:
        features = Pipeline(stages=[
            RegexTokenizer(inputCol="text", outputCol="words", pattern="\\W+", toLowercase=True),
            NGram(n=5, inputCol="words", outputCol="shingles"),
            HashingTF(inputCol="shingles", outputCol="features", numFeatures=1 << 20, binary=True),
            MinHashLSH(inputCol="features", outputCol="hashes", numHashTables=tables, seed=1)])
        start = time.perf_counter()
        model = features.fit(docs)
        hashed = model.transform(docs.where(F.size(F.split("text", " ")) >= 5)).select("page_id", "features",
                                                                                        "hashes").cache()
        joined = model.stages[-1].approxSimilarityJoin(hashed, hashed, 1 - settings.threshold, "distance")
        found = {(r.a, r.b) for r in joined.select(F.col("datasetA.page_id").alias("a"),
                                                   F.col("datasetB.page_id").alias("b"))
                 .where(F.col("a") < F.col("b")).collect()}
        ml_s = time.perf_counter() - start
        keys = hashed.select("page_id", F.posexplode("hashes").alias("table", "h"))
        candidates = (keys.alias("x").join(keys.alias("y"), ["table", "h"])
                      .where(F.col("x.page_id") < F.col("y.page_id"))
                      .select("x.page_id", "y.page_id").distinct().count())
        hashed.unpersist()
        out[f"spark_ml_{tables}_tables"] = {"seconds": round(ml_s, 1), "candidate_pairs": candidates,
                                            "recall": len(found & truth) / len(truth), "pairs_found": len(found)}
    print(json.dumps(out, indent=2))
    return out


def bench_scale(spark, args) -> dict:
    """The whole job (read, sign, candidates, verify, components, write, report) at each size."""
    from pagesieve.jobs import dedup
    from pagesieve.jobs.common import Report, job_parser, load_config

    config = load_config(job_parser("dedup", "").parse_args([]))
    out = {}
    for n in args.sizes:
        path = str(WORK / f"docs-{n}")
        start = time.perf_counter()
        generate(spark, n, path, max(4, n // 25000))
        gen_s = time.perf_counter() - start
        report = Report("dedup", config)
        start = time.perf_counter()
        rows = dedup.run(spark, path, str(WORK / f"deduped-{n}"), config, report)
        seconds = time.perf_counter() - start
        out[n] = {"seconds": round(seconds, 1), "docs_per_s": round(rows / seconds, 1), "generate_s": round(gen_s, 1),
                  "by_outcome": report.data["by_outcome"], "dedup": report.data["dedup"],
                  "step_seconds": report.data["step_seconds"]}
        print(json.dumps({n: out[n]}), flush=True)
    sizes = sorted(out)
    for small, big in zip(sizes, sizes[1:], strict=False):
        out[f"growth_{small}_to_{big}"] = round(out[big]["seconds"] / out[small]["seconds"], 2)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("part", choices=["udf", "peer", "scale"])
    ap.add_argument("--docs", type=int, default=2000)
    ap.add_argument("--cpu", type=int, default=0, help="udf: the CPU to pin to")
    ap.add_argument("--tables", type=lambda s: [int(x) for x in s.split(",")], default=[5, 25],
                    help="peer: Spark ML numHashTables to try")
    ap.add_argument("--sizes", type=lambda s: [int(x) for x in s.split(",")], default=[100000, 1000000])
    ap.add_argument("--driver-memory", default="8g")
    ap.add_argument("--json", default=None, help="also write the figures here")
    args = ap.parse_args(argv)
    if args.part == "udf":
        figures = bench_udf(args)
    else:
        from pagesieve.jobs.common import spark_session

        # pagesieve's own Spark defaults (conf/spark.toml: 4 shuffle partitions), as `pagesieve dedup` runs
        spark = spark_session("bench-dedup", "local[2]", {"spark.ui.enabled": "false",
                                                          "spark.driver.memory": args.driver_memory})
        figures = bench_peer(spark, args) if args.part == "peer" else bench_scale(spark, args)
        spark.stop()
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
