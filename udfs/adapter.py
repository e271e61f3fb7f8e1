"""The one adapter between Spark and every method: pages batches in, the kind's table batches out.

It owns what all methods share: building the method once per Python worker (Spark reuses workers, so
the cache lives in this importable module, never in a job script), running it through the per-page
runner of `models/page` (parse once, time, the page deadline, exceptions turned into statuses, the
batch-then-page-by-page fallback), and handing the outcomes to the row builder of the method's kind
(`udfs/rows.py`). Only the row builder and the output schema vary with the kind.

Arrow in, Arrow out (`mapInArrow`; `applyInArrow` for methods that need the pages of a site together):
a page may yield zero or more rows of its table, and no pandas conversion sits between Spark and the
method.
"""

from __future__ import annotations

import atexit
import dataclasses
import functools
import importlib
import logging
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from pagesieve.models.page import PageInput, Runner, build_runner
from pagesieve.models.page.language import LanguageID
from pagesieve.models.registry import load_settings, method_traits, resolve
from pagesieve.schemas import spark_schema
from pagesieve.settings import Settings

from .rows import TABLES, OutputTable, label_languages

__all__ = ["PAGE_COLUMNS", "RESOURCES_COLUMN", "SITE_COLUMN", "MethodSpec", "apply_method", "cached_runner",
           "close_runners", "method_batches", "site_batch", "run_spec", "task_spec"]

log = logging.getLogger(__name__)

PAGE_COLUMNS = ["page_id", "url", "body", "charset_hint", "content_type"]
SITE_COLUMN = "site"
SITE_PART_COLUMN = "site_part"
# the archived stylesheets a job attached to each page for a method that renders pages (`udfs/resources.py`)
RESOURCES_COLUMN = "resources"
# Methods kept alive per worker; one evicted is closed (its browser shut, its child process ended).
CACHE_SIZE = 4


@dataclass(frozen=True, slots=True)
class MethodSpec:
    """What a worker needs to build and run a method. Frozen and hashable: it is the per-worker cache key.

    Attributes:
        path: the method class as `module:Class`.
        kind: cleaner, extractor or segmenter (picks the output table).
        settings: the method's frozen settings, checked on the driver.
        timeout_s: the page deadline (None or 0: none).
        guard: "alarm" or "process" (see `models/page/guard.py`).
        language: how a cleaner's documents get `language` (`clean.language_*`); None: left as the method set it.
        max_site_pages: for a method that needs a site's pages together, at most this many go to one call
            (0: a whole site, however large, in one call and in one worker's memory).
    """

    path: str
    kind: str
    settings: Settings
    timeout_s: float | None = None
    guard: str = "alarm"
    language: LanguageID | None = None
    max_site_pages: int = 0
    traits: tuple[str, str | None] | None = None   # (needs, group_by) known without importing the class

    @property
    def needs(self) -> str:
        """What the method reads from a page (its class's `needs`), without importing the class when known."""
        return (self.traits or self._class_traits())[0]

    @property
    def group_by(self) -> str | None:
        """The method's `group_by` ("site" or None), without importing the class when known."""
        return (self.traits or self._class_traits())[1]

    def _class_traits(self) -> tuple[str, str | None]:
        cls = self.method_class()
        return cls.needs, cls.group_by

    @classmethod
    def of(cls, method: str, overrides: dict[str, Any] | None = None, *, kind: str | None = None,
           timeout_s: float | None = None, guard: str = "alarm", language: LanguageID | None = None,
           max_site_pages: int = 0) -> MethodSpec:
        """Resolve a registered name or dotted path and check its settings (ConfigError on any problem)."""
        entry = resolve(method, kind)
        # the driver learns what it needs of the class from the registry when it can: importing a neural
        # method's class imports torch into the driver, which never runs it
        spec = cls(entry.path, entry.kind, load_settings(method, overrides, kind), timeout_s or None, guard,
                   language if entry.kind == "cleaner" else None, max_site_pages, method_traits(entry))
        if spec.needs == "rendered" and guard != "process":
            # a browser lives in the supervised child, never in the Spark worker itself: a worker that kept a
            # browser (and Playwright's event loop) from a vips task hung a later task of another method (CI)
            spec = dataclasses.replace(spec, guard="process")
        return spec

    @property
    def table(self) -> OutputTable:
        return TABLES[self.kind]

    def method_class(self) -> type:
        module, _, attr = self.path.partition(":")
        return getattr(importlib.import_module(module), attr)


_runners: OrderedDict[MethodSpec, Runner] = OrderedDict()


def cached_runner(spec: MethodSpec) -> Runner:
    """The spec's runner, built on first use in this worker process and reused across batches and tasks."""
    runner = _runners.pop(spec, None)
    if runner is None:
        log.info("building %s (%s guard) with %s", spec.path, spec.guard, spec.settings)
        runner = build_runner(spec.method_class(), spec.settings, spec.timeout_s, spec.guard)
    _runners[spec] = runner
    while len(_runners) > CACHE_SIZE:
        _, evicted = _runners.popitem(last=False)
        evicted.close()
    return runner


def close_runners() -> None:
    """Close every cached method (at worker exit, and in tests)."""
    while _runners:
        _, runner = _runners.popitem()
        runner.close()


atexit.register(close_runners)


def task_spec(spec: MethodSpec, gpu_addresses: list[str] | None) -> MethodSpec:
    """On a GPU executor, a method with a `device` setting left at "auto" runs on the GPU Spark gave this task
    (`spark.task.resource.gpu.amount`), not always on cuda:0."""
    if not gpu_addresses or getattr(spec.settings, "device", None) != "auto":
        return spec
    return dataclasses.replace(spec, settings=dataclasses.replace(spec.settings, device=f"cuda:{gpu_addresses[0]}"))


def _task_gpus() -> list[str] | None:
    from pyspark import TaskContext

    context = TaskContext.get()
    gpu = context.resources().get("gpu") if context is not None else None
    return list(gpu.addresses) if gpu is not None else None


def run_spec(spec: MethodSpec, rows: list[dict]) -> list[dict]:
    """The output rows of the method for page rows (dicts with PAGE_COLUMNS), in page order."""
    runner = cached_runner(spec)
    pages = [PageInput.from_row(r) for r in rows]
    outcomes = runner.run(pages)
    out = [row for page, outcome in zip(pages, outcomes, strict=True)
           for row in spec.table.rows(page, runner.method_id, outcome)]
    if spec.language is not None:  # every cleaner's documents, here and nowhere else
        label_languages(out, spec.language)
    return out


def method_batches(spec: MethodSpec, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """mapInArrow body: `functools.partial(method_batches, spec)`."""
    spec = task_spec(spec, _task_gpus())
    for batch in batches:
        yield spec.table.batch(run_spec(spec, batch.to_pylist()))


def site_batch(spec: MethodSpec, pages: pa.Table) -> pa.Table:
    """applyInArrow body for a method with `group_by = "site"`: all the pages of one site in one call."""
    spec = task_spec(spec, _task_gpus())
    rows = run_spec(spec, pages.select(PAGE_COLUMNS).to_pylist())
    return pa.Table.from_batches([spec.table.batch(rows)])


def _site_udf(spec: MethodSpec):
    # applyInArrow tells its UDF type from the function's type hints, which a functools.partial lacks
    # (pyspark 4.3 then fails with UnboundLocalError): a closure with hints instead
    def apply(pages: pa.Table) -> pa.Table:
        return site_batch(spec, pages)

    return apply


def apply_method(pages: Any, spec: MethodSpec) -> Any:
    """The method's output DataFrame for a pages DataFrame (lazy).

    A method that needs the pages of a site together (`group_by = "site"`) gets them grouped by the host
    of their URL (pages without one form one group), a large site cut, in page_id order, into groups of
    `spec.max_site_pages`; any other method gets Spark's Arrow batches.
    """
    schema = spark_schema(spec.table.schema)
    if spec.group_by == "site":
        from pyspark.sql import Window
        from pyspark.sql import functions as F

        site = F.coalesce(F.expr("parse_url(url, 'HOST')"), F.lit(""))
        grouped = pages.select(*PAGE_COLUMNS).withColumn(SITE_COLUMN, site)
        keys = [SITE_COLUMN]
        if spec.max_site_pages > 0:
            # a site of a million pages would otherwise be one call holding all its pages (and their nodes)
            rank = F.row_number().over(Window.partitionBy(SITE_COLUMN).orderBy("page_id")) - 1
            grouped = grouped.withColumn(SITE_PART_COLUMN, F.floor(rank / spec.max_site_pages))
            keys.append(SITE_PART_COLUMN)
        return grouped.groupBy(*keys).applyInArrow(_site_udf(spec), schema)
    extra = [RESOURCES_COLUMN] if RESOURCES_COLUMN in pages.columns else []
    return pages.select(*PAGE_COLUMNS, *extra).mapInArrow(functools.partial(method_batches, spec), schema)
