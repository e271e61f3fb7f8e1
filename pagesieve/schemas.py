"""The table contracts of DESIGN.md, defined once as Arrow schemas.

Jobs, UDFs and tests import these; Spark schemas are derived with `spark_schema()`. A column is
added, never renamed or retyped, without bumping the version below (it lands in every run report).
"""

from __future__ import annotations

import pyarrow as pa

__all__ = ["SCHEMA_VERSION", "PAGES", "READER_ROWS", "DOCUMENTS", "PAGE_STATUSES", "DOCUMENT_STATUSES",
           "spark_schema"]

SCHEMA_VERSION = 1

PAGE_STATUSES = ("ok", "truncated", "too_large", "bad_encoding")
DOCUMENT_STATUSES = ("ok", "empty", "not_html", "decode_error", "parse_error", "timeout", "error")

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
    ("n_chars", pa.int32()),
    ("n_words", pa.int32()),
    ("elapsed_ms", pa.float32()),
])


def spark_schema(schema: pa.Schema):
    """The Spark StructType of an Arrow schema (imports pyspark lazily: models never need it)."""
    from pyspark.sql.pandas.types import from_arrow_schema

    return from_arrow_schema(schema)
