"""The table contracts of DESIGN.md, defined once as Arrow schemas.

Jobs, UDFs and tests import these; Spark schemas are derived with `spark_schema()`. A column is
added, never renamed or retyped, without bumping the version below (it lands in every run report).
"""

from __future__ import annotations

import pyarrow as pa

__all__ = ["SCHEMA_VERSION", "PAGES", "READER_ROWS", "DOCUMENTS", "RECORDS", "SEGMENTS", "FIELD", "BBOX",
           "DEDUP_COLUMNS", "DEDUPED_DOCUMENTS", "PAGE_STATUSES", "DOCUMENT_STATUSES", "FIELD_ORIGINS", "spark_schema"]

# 2: pages.source_languages, documents.language_score, and the records and segments tables.
SCHEMA_VERSION = 2

PAGE_STATUSES = ("ok", "truncated", "too_large", "bad_encoding")
DOCUMENT_STATUSES = ("ok", "empty", "not_html", "decode_error", "parse_error", "timeout", "error")
FIELD_ORIGINS = ("annotated", "inferred", "model", "voted")

PAGES = pa.schema([
    ("page_id", pa.string()),
    ("url", pa.string()),
    ("fetch_time", pa.timestamp("us", tz="UTC")),
    ("http_status", pa.int32()),
    ("content_type", pa.string()),
    ("charset_hint", pa.string()),
    ("http_headers", pa.map_(pa.string(), pa.string())),
    ("body", pa.binary()),
    ("source", pa.string()),
    ("source_offset", pa.int64()),
    ("source_length", pa.int64()),
    ("source_profile", pa.string()),
    ("ingest_status", pa.string()),
    # the archive's own language verdict (Common Crawl's `languages-cld2` JSON), null where it has none
    ("source_languages", pa.string()),
])

# What an archive reader emits: one row for *every* record it sees. Records that are not pages
# carry a skip_reason (non_html, request, revisit, warcinfo, read_error, ...) and are split off
# before `pages` is written, so the run report can count every input record exactly once.
READER_ROWS = PAGES.append(pa.field("skip_reason", pa.string())).append(pa.field("error", pa.string()))

DOCUMENTS = pa.schema([
    ("page_id", pa.string()),
    ("url", pa.string()),
    ("method", pa.string()),
    ("status", pa.string()),
    ("error", pa.string()),
    ("title", pa.string()),
    ("text", pa.string()),
    ("content_xpaths", pa.list_(pa.string())),
    ("language", pa.string()),
    ("language_score", pa.float32()),
    ("n_chars", pa.int32()),
    ("n_words", pa.int32()),
    ("elapsed_ms", pa.float32()),
])

# What `dedup` adds to documents (DESIGN.md: corpus stages add columns, never remove rows). dup_cluster: the
# smallest page_id of the document's cluster of exact or near duplicates, null for a document with no duplicate
# (and for one that did not take part: status not ok, or no words). dup_of: the page_id of the document kept
# for the cluster, null for the kept one; `export` leaves out the documents whose dup_of is set.
DEDUP_COLUMNS = pa.schema([
    ("dup_cluster", pa.string()),
    ("dup_of", pa.string()),
])
DEDUPED_DOCUMENTS = pa.schema(list(DOCUMENTS) + list(DEDUP_COLUMNS))

# One extracted attribute of a record. origin: annotated, inferred, model or voted (FIELD_ORIGINS).
FIELD = pa.struct([
    ("name", pa.string()),
    ("value", pa.string()),
    ("xpath", pa.string()),
    ("origin", pa.string()),
    ("score", pa.float32()),
])

# Zero or more rows per page and extraction method; a page with no record gets one row with status
# empty (and a failing page one row with its status), so every page is accounted for.
RECORDS = pa.schema([
    ("page_id", pa.string()),
    ("url", pa.string()),
    ("method", pa.string()),
    ("schema", pa.string()),
    ("record_index", pa.int32()),
    ("record_xpath", pa.string()),
    ("fields", pa.list_(FIELD)),
    ("status", pa.string()),
    ("error", pa.string()),
])

BBOX = pa.struct([("x", pa.float32()), ("y", pa.float32()), ("w", pa.float32()), ("h", pa.float32())])

# The visual block tree of a page (VIPS), one row per block; a page with no block gets one row with its
# status and null block columns.
SEGMENTS = pa.schema([
    ("page_id", pa.string()),
    ("url", pa.string()),
    ("block_id", pa.string()),
    ("parent_id", pa.string()),
    ("doc", pa.int8()),
    ("bbox", BBOX),
    ("xpaths", pa.list_(pa.string())),
    ("text", pa.string()),
    ("is_main", pa.bool_()),
    ("status", pa.string()),
    ("error", pa.string()),
])


def spark_schema(schema: pa.Schema):
    """The Spark StructType of an Arrow schema (imports pyspark lazily: models never need it)."""
    from pyspark.sql.pandas.types import from_arrow_schema

    return from_arrow_schema(schema)
