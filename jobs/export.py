"""export: `documents` -> JSONL in the Pyserini/Anserini JsonCollection layout, and/or Parquet; or
`records` -> JSONL of one object per record, and/or Parquet.

    pagesieve export --documents out/documents --out out/export --format jsonl,parquet --gzip
    python -m pyserini.index.lucene --collection JsonCollection --input out/export/jsonl ...
    pagesieve export --records out/records --out out/records-export --format jsonl,parquet

Documents JSONL: `<out>/jsonl/docs-00000.jsonl[.gz]`, one `{"id": page_id, "contents": ...}` per line,
only documents with status ok. Records JSONL: `<out>/jsonl/records-00000.jsonl[.gz]`, one
`{"page_id", "url", "method", "schema", "record_index", "record_xpath", "fields": {name: value}}` per
record (the first value of a name wins), only rows with status ok. Parquet: `<out>/parquet/`, every
row and column of the input table, less the documents a corpus stage removed.

What a corpus stage removes is what the export leaves out (docs/design.md#data-contracts), from both
formats: documents that `pagesieve filter` removed (`removed_by` set) and the duplicates that `pagesieve dedup` marked
(`dup_of` set). The report's `left_out` says why each document was not exported, and the counts add up to the input:
`not_ok` (status), `removed_by` (per rule), `duplicate` (a duplicate that no rule removed).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from functools import partial

import pyarrow as pa

from pagesieve.jobs.common import (
    ConfigError,
    Report,
    counts_by,
    exit_on_config_error,
    job_parser,
    load_config,
    run_table_job,
)

__all__ = ["DuplicateIdError", "build_jsonl", "check_unique_ids", "record_objects", "run", "run_records", "main"]


def build_jsonl(documents, include_title: bool = True):
    """(id, contents) rows of the ok documents; contents = title, blank line, text (title optional)."""
    from pyspark.sql import functions as F

    ok = documents.filter(F.col("status") == "ok")
    if include_title:
        contents = F.when(F.col("title").isNotNull() & ~F.col("text").startswith(F.coalesce("title", F.lit(""))),
                          F.concat_ws("\n\n", "title", "text")).otherwise(F.col("text"))
    else:
        contents = F.col("text")
    return ok.select(F.col("page_id").alias("id"), contents.alias("contents"))


class DuplicateIdError(ValueError):
    """The export would write one document id twice (Pyserini would index duplicate docids)."""


def check_unique_ids(docs, shown: int = 3) -> None:
    """Raise DuplicateIdError, before anything is written, if an `id` occurs more than once.

    Args:
        docs: the (id, contents) DataFrame of `build_jsonl`.
        shown: how many repeated ids the message names.

    Raises:
        DuplicateIdError: one line with the number of repeated ids and the first few (ids sorted).
    """
    from pyspark.sql import functions as F

    repeated = docs.groupBy("id").count().filter(F.col("count") > 1)
    first = repeated.orderBy("id").limit(shown).collect()
    if first:
        n = repeated.count()
        names = ", ".join(f"{r['id']} ({r['count']} times)" for r in first)
        raise DuplicateIdError(f"export: {n} document id(s) occur more than once, e.g. {names}; the same page was "
                               "cleaned twice (an archive ingested twice, or two methods in one documents table); "
                               "nothing was written")


def record_objects(records: list[dict]) -> list[str]:
    """JSON lines of ok `records` rows: the fields as one flat object, the first value of a name winning."""
    lines = []
    for r in records:
        if r["status"] != "ok":
            continue
        fields: dict[str, str | None] = {}
        for f in r["fields"] or []:
            fields.setdefault(f["name"], f["value"])
        lines.append(json.dumps({"page_id": r["page_id"], "url": r["url"], "method": r["method"], "schema": r["schema"],
                                 "record_index": r["record_index"], "record_xpath": r["record_xpath"],
                                 "fields": fields}, ensure_ascii=False))
    return lines


def _record_lines(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    for batch in batches:
        yield pa.RecordBatch.from_pydict({"value": record_objects(batch.to_pylist())},
                                         schema=pa.schema([("value", pa.string())]))


def _rename_parts(spark, folder: str, extension: str, stem: str = "docs") -> list[str]:
    """part-*.json -> docs-00000.jsonl, then drop _SUCCESS and .crc files (Anserini would read them),
    through Hadoop's FileSystem so that any URI works."""
    jvm = spark.sparkContext._jvm
    Path = jvm.org.apache.hadoop.fs.Path
    path = Path(folder)
    fs = path.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())
    if jvm.java.lang.Class.forName("org.apache.hadoop.fs.ChecksumFileSystem").isInstance(fs):
        # its checksummed layer hides .crc files from listStatus and re-creates them on rename
        fs = fs.getRawFileSystem()

    def names() -> list[str]:
        return sorted(str(s.getPath().getName()) for s in fs.listStatus(path))

    parts = [n for n in names() if n.startswith("part-")]
    renamed = [f"{stem}-{i:05d}{extension}" for i in range(len(parts))]
    for name, target in zip(parts, renamed, strict=True):
        fs.rename(Path(path, name), Path(path, target))
    for name in names():
        if name == "_SUCCESS" or name.endswith(".crc"):
            fs.delete(Path(path, name), False)
    return renamed


def _write_jsonl(spark, lines, target: str, stem: str, gzip: bool) -> dict[str, int]:
    """Write a one-column (`value`) DataFrame of JSON lines as `<stem>-NNNNN.jsonl[.gz]` files."""
    lines.write.mode("overwrite").option("compression", "gzip" if gzip else "none").text(target)
    files = _rename_parts(spark, target, ".jsonl.gz" if gzip else ".jsonl", stem=stem)
    return {"jsonl": spark.read.text(target).count() if files else 0, "jsonl_files": len(files)}


def _corpus_removed(documents):
    """The condition "a corpus stage removed this document" for the columns the table has, or None."""
    from pyspark.sql import functions as F

    removed = None
    for column in ("removed_by", "dup_of"):
        if column in documents.columns:
            removed = F.col(column).isNotNull() if removed is None else removed | F.col(column).isNotNull()
    return removed


def _left_out(documents) -> dict:
    """Why documents are not exported: not_ok, removed_by (per rule, first), duplicate (not removed by a rule)."""
    from pyspark.sql import functions as F

    out: dict = {"not_ok": documents.filter(F.col("status") != "ok").count()}
    ok = documents.filter(F.col("status") == "ok")
    if "removed_by" in documents.columns:
        out["removed_by"] = counts_by(ok.filter(F.col("removed_by").isNotNull()), "removed_by")
        ok = ok.filter(F.col("removed_by").isNull())
    if "dup_of" in documents.columns:
        out["duplicate"] = ok.filter(F.col("dup_of").isNotNull()).count()
    return out


def run(spark, documents_path: str, out: str, config, report: Report, formats: list[str],
        gzip: bool = False) -> int:
    """Export the documents at `documents_path` under `out`; returns the number of JSONL lines written."""
    from pyspark.sql import functions as F

    settings = config.job("export")
    documents = spark.read.parquet(documents_path)
    n_documents = documents.count()
    exported: dict[str, int] = {}
    left_out = _left_out(documents)
    if (removed := _corpus_removed(documents)) is not None:
        documents = documents.filter(~removed)
    n_kept = n_documents - left_out.get("duplicate", 0) - sum(left_out.get("removed_by", {}).values())
    if "jsonl" in formats:
        docs = build_jsonl(documents, settings.include_title)
        check_unique_ids(docs)
        docs = docs.repartition(settings.shards).sortWithinPartitions("id")
        lines = docs.select(F.to_json(F.struct("id", "contents")).alias("value"))
        exported.update(_write_jsonl(spark, lines, f"{out.rstrip('/')}/jsonl", "docs", gzip))
        exported["not_exported"] = n_documents - exported["jsonl"]
        if exported["jsonl"] != n_kept - left_out["not_ok"]:
            raise RuntimeError(f"export: {exported['jsonl']} documents written, but the counts {left_out} of "
                               f"{n_documents} leave {n_kept - left_out['not_ok']}")
    if "parquet" in formats:
        documents.write.mode("overwrite").parquet(f"{out.rstrip('/')}/parquet")
        exported["parquet"] = n_kept
    report.set(input=documents_path, input_rows=n_documents, output=out, exported=exported, left_out=left_out)
    return exported.get("jsonl", exported.get("parquet", 0))


def run_records(spark, records_path: str, out: str, config, report: Report, formats: list[str],
                gzip: bool = False) -> int:
    """Export the records table at `records_path` under `out`; returns the number of JSONL lines written."""
    records = spark.read.parquet(records_path)
    n_rows = records.count()
    exported: dict[str, int] = {}
    if "jsonl" in formats:
        lines = (records.repartition(config.job("export").shards).sortWithinPartitions("page_id", "record_index")
                 .mapInArrow(_record_lines, "value string"))
        exported.update(_write_jsonl(spark, lines, f"{out.rstrip('/')}/jsonl", "records", gzip))
        exported["not_exported"] = n_rows - exported["jsonl"]
    if "parquet" in formats:
        records.write.mode("overwrite").parquet(f"{out.rstrip('/')}/parquet")
        exported["parquet"] = n_rows
    report.set(input=records_path, input_rows=n_rows, output=out, exported=exported)
    return exported.get("jsonl", exported.get("parquet", 0))


def main(argv: list[str] | None = None) -> int:
    ap = job_parser("export", "Write documents (Pyserini/Anserini JsonCollection) or records as JSONL and/or Parquet.")
    table = ap.add_mutually_exclusive_group(required=True)
    table.add_argument("--documents", help="folder of the documents table")
    table.add_argument("--records", help="folder of the records table")
    ap.add_argument("--out", required=True, help="output folder")
    ap.add_argument("--format", default="jsonl", help="jsonl, parquet, or both comma-separated (default jsonl)")
    ap.add_argument("--gzip", action="store_true", help="gzip the JSONL files (docs-NNNNN.jsonl.gz)")
    args = ap.parse_args(argv)
    formats = [f.strip() for f in args.format.split(",") if f.strip()]
    if unknown := set(formats) - {"jsonl", "parquet"}:
        raise ConfigError(f"--format: unknown format(s) {', '.join(sorted(unknown))}; known: jsonl, parquet")
    config = load_config(args)
    flag, path = ("--documents", args.documents) if args.documents else ("--records", args.records)
    export = run if args.documents else run_records
    return run_table_job("export", args, config, path, flag, partial(export, formats=formats, gzip=args.gzip))


if __name__ == "__main__":
    sys.exit(exit_on_config_error(main))
