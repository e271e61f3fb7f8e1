"""The table contracts (docs/schemas.md), defined once as Arrow schemas.

Jobs, UDFs and tests import these; Spark schemas are derived with `spark_schema()`. A column is
added, never renamed or retyped, without bumping the version below (it lands in every run report).
"""

from __future__ import annotations

import pyarrow as pa

__all__ = ["SCHEMA_VERSION", "PAGES", "READER_ROWS", "DOCUMENTS", "QUALITY_COLUMNS", "FILTERED_DOCUMENTS",
           "DEDUP_COLUMNS", "DEDUPED_DOCUMENTS", "RECORDS", "SEGMENTS", "RESOURCES", "FIELD", "BBOX", "PAGE_STATUSES",
           "DOCUMENT_STATUSES", "FIELD_ORIGINS", "PAGES_FILE_BYTES", "PAGES_ROW_GROUP_BYTES", "spark_schema"]

# 2: pages.source_languages, documents.language_score, and the records and segments tables.
# 3: the corpus stages' columns of documents: filter's quality_* and removed_by, dedup's dup_cluster and dup_of.
SCHEMA_VERSION = 3

PAGE_STATUSES = ("ok", "truncated", "too_large", "bad_encoding")
DOCUMENT_STATUSES = ("ok", "empty", "not_html", "decode_error", "parse_error", "timeout", "too_large", "error")
FIELD_ORIGINS = ("annotated", "inferred", "model", "voted")

# Writers of `pages` keep at most this many bytes of bodies in a Parquet row group (or one page), and at most
# PAGES_FILE_BYTES in a file (or one row group), not only a number of rows: Spark's vectorized reader fills a
# column batch from one row group, so 150 pages of 16 MB in one group (2.4 GB) failed `clean` with a JVM
# out-of-memory ("Cannot reserve 1008049014 bytes"). 64 MiB: half of Spark's default split
# (spark.sql.files.maxPartitionBytes, 128 MiB), and Spark's Arrow batch bound
# (spark.sql.execution.arrow.maxBytesPerBatch, conf/spark.toml).
PAGES_ROW_GROUP_BYTES = 64 * 1024 * 1024
PAGES_FILE_BYTES = 8 * PAGES_ROW_GROUP_BYTES
# Parquet codecs of the pages files ingest writes (`ingest.codec`): those Spark reads without an extra jar
# (brotli needs one). Time against disk per codec: docs/archives.md#page-file-codec.
PAGES_CODECS = ("zstd", "snappy", "lz4", "gzip", "none")

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

# The stylesheets archived beside the pages (`<pages>/_resources/`, written by ingest): what a renderer
# serves a page instead of the network (VIPS). Not pages (the records are counted as skipped non_html).
RESOURCES = pa.schema([PAGES.field(name) for name in ("url", "fetch_time", "http_status", "content_type", "body",
                                                      "source", "source_offset", "source_length")])

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

# What `pagesieve filter` adds to documents (models/quality: Gopher appendix A.1.1 and table A1, C4 section
# 2.2). Null for a document whose status is not ok (not judged). Counts are of normalised words (lower-cased,
# punctuation stripped); lines and paragraphs are the non-blank ones; fractions are in 0..1.
QUALITY_COLUMNS = pa.schema([
    ("quality_words", pa.int32()),                 # words with a letter or digit
    ("quality_mean_word_length", pa.float32()),    # characters per word
    ("quality_hash_ratio", pa.float32()),          # "#" per word
    ("quality_ellipsis_ratio", pa.float32()),      # "..." and "…" per word
    ("quality_bullet_lines", pa.float32()),        # share of lines starting with a bullet (•, -, *, ...)
    ("quality_ellipsis_lines", pa.float32()),      # share of lines ending in an ellipsis
    ("quality_alpha_words", pa.float32()),         # share of whitespace words with a letter
    ("quality_stop_words", pa.int32()),            # how many of the stop words occur (Gopher's 8 by default)
    ("quality_dup_para_frac", pa.float32()),       # share of paragraphs repeating an earlier one
    ("quality_dup_para_char_frac", pa.float32()),  # share of paragraph characters in those repeats
    ("quality_dup_line_frac", pa.float32()),       # the same for lines
    ("quality_dup_line_char_frac", pa.float32()),
    ("quality_top_2gram", pa.float32()),           # share of word characters covered by the most frequent n-gram
    ("quality_top_3gram", pa.float32()),
    ("quality_top_4gram", pa.float32()),
    ("quality_dup_5gram", pa.float32()),           # share of word characters in n-grams repeating an earlier one
    ("quality_dup_6gram", pa.float32()),
    ("quality_dup_7gram", pa.float32()),
    ("quality_dup_8gram", pa.float32()),
    ("quality_dup_9gram", pa.float32()),
    ("quality_dup_10gram", pa.float32()),
    ("quality_end_punct_lines", pa.float32()),     # share of lines ending in . ? ! " ' (not "...")
    ("quality_policy_lines", pa.float32()),        # share of lines naming a policy (cookies, terms of use, ...)
    ("quality_javascript_lines", pa.float32()),    # share of lines containing "javascript"
    ("quality_lorem_ipsum", pa.bool_()),           # "lorem ipsum" on a line C4 keeps
    ("quality_curly_bracket", pa.bool_()),         # "{" on a line C4 keeps
    ("quality_c4_sentences", pa.int32()),          # sentences on the lines C4 keeps
    ("removed_by", pa.string()),                   # first rule that removed the document; null: kept or not ok
])
FILTERED_DOCUMENTS = pa.schema(list(DOCUMENTS) + list(QUALITY_COLUMNS))

# What `dedup` adds to documents (docs/design.md#data-contracts: corpus stages add columns, never remove rows).
# dup_cluster: the smallest page_id of the document's cluster of exact or near duplicates, null for a document with no
# duplicate (and for one that did not take part: status not ok, or no words). dup_of: the page_id of the document kept
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
