"""dedup: `documents` -> the same documents plus `dup_cluster` and `dup_of` (exact and near duplicates).

    pagesieve dedup --documents out/documents --out out/documents-dedup
    spark-submit --py-files dist/pagesieve.zip jobs/dedup.py --documents out/documents --out out/documents-dedup

Only `ok` documents with words take part (and, in a table that `filter`
wrote, only those it kept). Exact duplicates share the hash of their normalised text; near
duplicates are found among one document per exact group by MinHash LSH (a signature per document in a pandas
UDF, its bands exploded to (band, bucket) keys and shuffled, every pair sharing a bucket a candidate), and a
candidate pair counts when the true Jaccard similarity of its shingle sets reaches `dedup.threshold`. Clusters are
the connected components of exact and verified pairs; one document per cluster is kept (`dedup.keep`). Every
input row is written: a removed document is one whose `dup_of` is set, and `export` leaves it out.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import Any

from pagesieve.jobs.common import (
    ConfigError,
    JobConfig,
    Report,
    counts_by,
    exit_on_config_error,
    job_parser,
    load_config,
    run_table_job,
)
from pagesieve.jobs.components import connected_components
from pagesieve.schemas import DEDUP_COLUMNS
from pagesieve.udfs.dedup import jaccard_udf, signature_udf

__all__ = ["Dedup", "build", "run", "main"]


@dataclass
class Dedup:
    """The deduplicated documents (lazy) and what the eager steps counted on the way."""

    documents: Any
    stats: dict[str, int] = field(default_factory=dict)
    removed: Any = None    # (page_id, kind) of every document with a dup_of, kind exact or near
    seconds: dict[str, float] = field(default_factory=dict)   # wall time of each eager step


def _candidate_pairs(signed, max_bucket_size: int):
    """Distinct (a, b), a < b, of documents sharing a band bucket: all pairs of a bucket, or its first member
    with each other one when the bucket holds more than `max_bucket_size` documents."""
    from pyspark.sql import functions as F

    buckets = (signed.select("page_id", F.posexplode("bands").alias("band", "bucket"))
               .groupBy("band", "bucket").agg(F.sort_array(F.collect_list("page_id")).alias("ids"))
               .where(F.size("ids") > 1))
    last_first = F.when(F.size("ids") > max_bucket_size, F.lit(0)).otherwise(F.size("ids") - 2)
    pairs = F.flatten(F.transform(F.sequence(F.lit(0), last_first), lambda i: F.transform(
        F.slice("ids", i + 2, F.size("ids") - i - 1), lambda b: F.struct(F.col("ids")[i].alias("a"), b.alias("b")))))
    oversized = buckets.where(F.size("ids") > max_bucket_size)
    return buckets.select(F.explode(pairs).alias("p")).select("p.a", "p.b").distinct(), oversized


def build(documents, settings) -> Dedup:
    """Add `dup_cluster` and `dup_of` to a documents DataFrame. Runs the Spark jobs of the candidate and
    component steps (eager); the returned documents frame is lazy.

    Args:
        documents: a documents DataFrame with unique page_ids (extra columns pass through; existing dup_*
            columns are replaced).
        settings: `DedupSettings`.

    Returns:
        Dedup with the documents, stats (documents signed, exact_groups, candidate_pairs, verified_pairs,
        oversized_buckets, clusters, component_rounds) and the removed documents by kind.
    """
    from pyspark import StorageLevel
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    documents = documents.drop(*DEDUP_COLUMNS.names)
    stats: dict[str, int] = {}
    seconds: dict[str, float] = {}
    clock = [time.perf_counter()]

    def lap(step: str) -> None:
        now = time.perf_counter()
        seconds[step] = round(now - clock[0], 2)
        clock[0] = now
    takes_part = (F.col("status") == "ok") & F.col("text").isNotNull()
    if "removed_by" in documents.columns:       # filtered first: what a rule removed cannot be a cluster's keeper
        takes_part &= F.col("removed_by").isNull()
    signed = (documents.where(takes_part)
              .select("page_id", F.length("text").alias("length"), signature_udf(settings)("text").alias("s"))
              .select("page_id", "length", "s.text_hash", "s.bands").where(F.col("text_hash").isNotNull())
              .persist(StorageLevel.MEMORY_AND_DISK))
    stats["signed"] = signed.count()
    lap("sign")
    groups = signed.groupBy("text_hash").agg(F.min("page_id").alias("rep"))
    stats["exact_groups"] = groups.count()
    with_rep = signed.join(groups, "text_hash")
    exact = with_rep.where(F.col("page_id") != F.col("rep")).select(F.col("page_id").alias("src"),
                                                                    F.col("rep").alias("dst"))
    reps = with_rep.where(F.col("page_id") == F.col("rep")).select("page_id", "bands")
    pairs, oversized = _candidate_pairs(reps, settings.max_bucket_size)
    pairs = pairs.persist(StorageLevel.MEMORY_AND_DISK)
    stats["candidate_pairs"] = pairs.count()
    stats["oversized_buckets"] = oversized.count()
    lap("candidates")
    texts = documents.select("page_id", "text")
    scored = (pairs.join(texts.withColumnRenamed("page_id", "a").withColumnRenamed("text", "text_a"), "a")
              .join(texts.withColumnRenamed("page_id", "b").withColumnRenamed("text", "text_b"), "b")
              .select("a", "b", jaccard_udf(settings)("text_a", "text_b").alias("jaccard")))
    near = scored.where(F.col("jaccard") >= settings.threshold).select(F.col("a").alias("src"),
                                                                       F.col("b").alias("dst")).localCheckpoint()
    stats["verified_pairs"] = near.count()
    lap("verify")
    labels, stats["component_rounds"] = connected_components(exact.union(near), settings.max_rounds)
    lap("components")
    order = ([F.col("length").desc()] if settings.keep == "longest" else []) + [F.col("page_id").asc()]
    members = labels.join(signed.select(F.col("page_id").alias("id"), "length", "text_hash"), "id")
    members = members.withColumnRenamed("id", "page_id")
    kept = F.first("page_id").over(Window.partitionBy("label").orderBy(*order))
    assigned = (members.withColumn("kept", kept).withColumn("kept_hash", F.first("text_hash").over(
        Window.partitionBy("label").orderBy(*order))).localCheckpoint())
    stats["clusters"] = assigned.select("label").distinct().count()
    lap("keep")
    removed = assigned.where(F.col("page_id") != F.col("kept")).select(
        "page_id", F.when(F.col("text_hash") == F.col("kept_hash"), "exact").otherwise("near").alias("kind"))
    dup = assigned.select("page_id", F.col("label").alias("dup_cluster"),
                          F.when(F.col("page_id") != F.col("kept"), F.col("kept")).alias("dup_of"))
    out = documents.join(dup, "page_id", "left").select(*documents.columns, "dup_cluster", "dup_of")
    return Dedup(out, stats, removed, seconds)


def _check_unique_page_ids(documents) -> None:
    from pyspark.sql import functions as F

    repeated = documents.groupBy("page_id").count().where(F.col("count") > 1)
    first = repeated.orderBy("page_id").limit(3).collect()
    if first:
        names = ", ".join(f"{r['page_id']} ({r['count']} times)" for r in first)
        raise ConfigError(f"dedup: {repeated.count()} page_id(s) occur more than once, e.g. {names}: dedup one "
                          "method's documents at a time; nothing was written")


def run(spark, documents_path: str, out: str, config: JobConfig, report: Report) -> int:
    """Deduplicate the documents at `documents_path` into `out`; fills `report`; returns the rows written."""
    from pyspark.sql import functions as F

    settings = config.job("dedup")
    documents = spark.read.parquet(documents_path)
    n_documents = documents.count()
    _check_unique_page_ids(documents)
    wanted = settings.min_partitions or spark.sparkContext.defaultParallelism
    if documents.rdd.getNumPartitions() < min(wanted, n_documents):
        documents = documents.repartition(min(wanted, n_documents))
    result = build(documents, settings)
    result.documents.write.mode("overwrite").parquet(out)
    written = spark.read.parquet(out)
    outcome = F.when(F.col("status") != "ok", "not_ok")
    eligible = documents.where(F.col("status") == "ok")
    if "removed_by" in documents.columns:
        outcome = outcome.when(F.col("removed_by").isNotNull(), "filtered")
        eligible = eligible.where(F.col("removed_by").isNull())
    outcome = (outcome.when(F.col("dup_of").isNotNull(), "duplicate")
               .when(F.col("dup_cluster").isNotNull(), "kept").otherwise("unique"))
    by_outcome = counts_by(written.withColumn("outcome", outcome), "outcome")
    removed = counts_by(result.removed, "kind")
    if by_outcome.pop("duplicate", 0) != sum(removed.values()):
        raise RuntimeError(f"dedup: the output's duplicates do not match the clusters' removed documents {removed}")
    by_outcome.update({f"duplicate_{k}": v for k, v in removed.items()})
    no_words = eligible.count() - result.stats["signed"]
    if no_words:   # ok documents whose text is null or normalises to nothing did not take part
        by_outcome["no_words"] = no_words
        by_outcome["unique"] = by_outcome.get("unique", 0) - no_words
    report.check_accounting(n_documents, by_outcome, "documents")
    n_out = sum(by_outcome.values())
    report.set(input=documents_path, input_rows=n_documents, output=out, by_outcome=by_outcome,
               by_status=counts_by(written, "status"), dedup=result.stats,
               step_seconds=result.seconds)
    return n_out


def main(argv: list[str] | None = None) -> int:
    ap = job_parser("dedup", "Mark exact and near-duplicate documents: documents -> documents + dup_cluster, dup_of.")
    ap.add_argument("--documents", required=True, help="folder of the documents table")
    ap.add_argument("--out", required=True, help="output folder: the documents with dup_cluster and dup_of")
    args = ap.parse_args(argv)
    config = load_config(args)
    return run_table_job("dedup", args, config, args.documents, "--documents", run)


if __name__ == "__main__":
    sys.exit(exit_on_config_error(main))
