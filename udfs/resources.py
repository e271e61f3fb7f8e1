"""Attaching to each page the archived stylesheets it loads, for methods that render pages (VIPS).

Ingest keeps the stylesheets of an archive beside its pages (`<pages>/_resources/`, `schemas.RESOURCES`).
Here each page's stylesheet URLs (`<link rel=stylesheet>`, `@import` in `<style>`) are joined with that
table by `resource_key`, then the `@import`s of the stylesheets found, one level deeper, and the copies
are collected into a `resources` column (array of url, body, content_type structs; null for a page that
loads none of them), which the adapter hands to the method with the page (`PageInput.resources`).

A join, not a lookup table sent to every worker: a large crawl's stylesheets need not fit in a worker's
memory, and a page carries only its own. A URL archived more than once is served as its latest capture.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from pagesieve.models.page import css_imports, resource_key, stylesheet_urls

from .adapter import RESOURCES_COLUMN

__all__ = ["attach_stylesheets", "read_resources", "resources_path"]


def resources_path(pages_path: str) -> str:
    return f"{pages_path.rstrip('/')}/_resources"


def read_resources(spark, pages_path: str) -> Any:
    """The resources table kept beside a pages table, or None when ingest kept none there (a crawl's pages,
    an older pages table, an archive without stylesheets)."""
    import fsspec

    from pagesieve.schemas import RESOURCES, spark_schema

    path = resources_path(pages_path)
    fs, root = fsspec.core.url_to_fs(path)
    if not fs.exists(root) or not fs.glob(f"{root}/*.parquet"):
        return None
    return spark.read.schema(spark_schema(RESOURCES)).parquet(path)


def _page_stylesheets(body: pd.Series, url: pd.Series) -> pd.Series:
    return pd.Series([stylesheet_urls(b, u) for b, u in zip(body, url, strict=True)])


def _imports(body: pd.Series, url: pd.Series) -> pd.Series:
    return pd.Series([css_imports(b, u) if u else [] for b, u in zip(body, url, strict=True)])


def _keys(url: pd.Series) -> pd.Series:
    return pd.Series([resource_key(u) if u else None for u in url])


def attach_stylesheets(pages: Any, resources: Any) -> tuple[Any, Any]:
    """(pages with a `resources` column, per-page attachments (page_id, resources)); both lazy.

    The pages keep their number of partitions: a join would otherwise leave them in Spark's shuffle
    partitions, which adaptive execution may coalesce into one task for a small table.
    """
    from pyspark.sql import functions as F

    page_stylesheets = F.pandas_udf(_page_stylesheets, "array<string>")
    imports = F.pandas_udf(_imports, "array<string>")
    key_of = F.pandas_udf(_keys, "string")

    copy = F.struct("url", "body", "content_type")
    # the latest capture of each URL (ties: the larger offset, so the choice is the same on every run)
    latest = F.struct(F.coalesce("fetch_time", F.lit(0).cast("timestamp")), "source", "source_offset")
    archived = (resources.where(F.col("body").isNotNull()).withColumn("key", key_of("url"))
                .where(F.col("key").isNotNull()).groupBy("key").agg(F.max_by(copy, latest).alias("copy")))
    wanted = pages.select("page_id", F.explode(page_stylesheets("body", "url")).alias("key"))
    found = wanted.join(archived, "key")
    imported = (found.select("page_id", F.explode(imports(F.col("copy.body"), F.col("copy.url"))).alias("key"))
                .join(archived, "key"))
    attached = (found.unionByName(imported).dropDuplicates(["page_id", "key"])
                .groupBy("page_id").agg(F.collect_list("copy").alias(RESOURCES_COLUMN)))
    joined = pages.join(attached, "page_id", "left").repartition(pages.rdd.getNumPartitions())
    return joined, attached
