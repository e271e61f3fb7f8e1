"""filter: `documents` -> the same documents plus quality signals and `removed_by` (Gopher and C4 rules).

    pagesieve filter --documents out/documents --out out/filtered
    pagesieve filter --documents out/documents --out out/filtered --split      # out/filtered/{kept,removed}
    spark-submit --py-files dist/pagesieve.zip jobs/filter.py --documents out/documents --out out/filtered

No row is dropped: `removed_by` names the first rule that removed a document (null: kept), and the export
leaves those out. A document whose status is not ok is passed through unjudged (null signals and
`removed_by`) and counted under `not_ok` in the report. With `--split` the same rows are written as two
tables, `kept/` (removed_by null, the not-ok ones included) and `removed/`.
"""

from __future__ import annotations

import sys
from functools import partial

from pagesieve.jobs.common import (
    JobConfig,
    Report,
    exit_on_config_error,
    job_parser,
    load_config,
    run_table_job,
)
from pagesieve.models.quality import QualityRules
from pagesieve.udfs.quality import add_quality_columns

__all__ = ["build", "run", "count_outcomes", "main"]


def build(documents, rules: QualityRules):
    """The filtered documents DataFrame for a documents DataFrame (lazy)."""
    return add_quality_columns(documents, rules)


def count_outcomes(filtered) -> dict[str, dict[str, int]]:
    """{"kept": {"ok": n}, "removed_by": {rule: n}, "not_ok": {status: n}} of a filtered table, one groupBy."""
    from pyspark.sql import functions as F

    outcome = {"kept": {}, "removed_by": {}, "not_ok": {}}
    rows = filtered.groupBy((F.col("status") == "ok").alias("ok"), "status", "removed_by").count().collect()
    for row in rows:
        if not row["ok"]:
            bucket, key = "not_ok", "null" if row["status"] is None else row["status"]
        elif row["removed_by"] is None:
            bucket, key = "kept", "ok"
        else:
            bucket, key = "removed_by", row["removed_by"]
        outcome[bucket][key] = outcome[bucket].get(key, 0) + row["count"]
    return outcome


def run(spark, documents_path: str, out: str, config: JobConfig, report: Report, split: bool = False) -> int:
    """Filter the documents at `documents_path` into `out` (or `out/kept` and `out/removed` with `split`);
    fills `report`; returns the rows written."""
    from pyspark.sql import functions as F

    settings = config.job("filter")
    documents = spark.read.parquet(documents_path)
    n_documents = documents.count()
    wanted = settings.min_partitions or spark.sparkContext.defaultParallelism
    if documents.rdd.getNumPartitions() < min(wanted, n_documents):
        documents = documents.repartition(min(wanted, n_documents))
    filtered = build(documents, settings.rules_only())
    if split:
        # one pass of the UDF: the whole table is written once, then split by a plain read
        whole = f"{out.rstrip('/')}/_all"
        filtered.write.mode("overwrite").parquet(whole)
        written = spark.read.parquet(whole)
        written.filter(F.col("removed_by").isNull()).write.mode("overwrite").parquet(f"{out.rstrip('/')}/kept")
        written.filter(F.col("removed_by").isNotNull()).write.mode("overwrite").parquet(f"{out.rstrip('/')}/removed")
        _remove(spark, whole)
        written = spark.read.parquet(f"{out.rstrip('/')}/kept").unionByName(
            spark.read.parquet(f"{out.rstrip('/')}/removed"))
    else:
        filtered.write.mode("overwrite").parquet(out)
        written = spark.read.parquet(out)
    outcome = count_outcomes(written)
    buckets = {f"{bucket}/{key}": n for bucket, counts in outcome.items() for key, n in counts.items()}
    report.check_accounting(n_documents, buckets, "documents")
    report.set(input=documents_path, input_rows=n_documents, output=out, kept=sum(outcome["kept"].values()),
               removed_by=outcome["removed_by"], not_ok=outcome["not_ok"], rules=list(settings.rules),
               split=split)
    return sum(buckets.values())


def _remove(spark, path: str) -> None:
    """Delete a folder through Hadoop's FileSystem, so that any URI works."""
    jvm = spark.sparkContext._jvm
    target = jvm.org.apache.hadoop.fs.Path(path)
    target.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration()).delete(target, True)


def main(argv: list[str] | None = None) -> int:
    ap = job_parser("filter", "Quality signals and the Gopher/C4 rules: documents -> documents + signals + "
                              "removed_by (no row dropped).")
    ap.add_argument("--documents", required=True, help="folder of the documents table")
    ap.add_argument("--out", required=True, help="output folder of the filtered documents table")
    ap.add_argument("--split", action="store_true",
                    help="write OUT/kept and OUT/removed (same columns) instead of one table")
    args = ap.parse_args(argv)
    config = load_config(args)
    return run_table_job("filter", args, config, args.documents, "--documents", partial(run, split=args.split))


if __name__ == "__main__":
    sys.exit(exit_on_config_error(main))
