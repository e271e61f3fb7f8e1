"""The one adapter between Spark and every cleaning method: pages batches in, documents batches out.

It owns what all methods share: building the method once per Python worker (Spark reuses
workers, so the cache lives in this importable module, never in a job script), parsing each page
once, timing, the per-page deadline, turning every exception into a status, and returning
exactly one `documents` row per input row, in order, whatever happened.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import time
from collections.abc import Iterator
from typing import Any

import pandas as pd

from pagesieve.models.page import CleanResult, PageError, ParsedPage, one_line, parse_page
from pagesieve.models.registry import CleanMethod, build_method, method_class
from pagesieve.schemas import DOCUMENTS

from .deadline import PageTimeout, deadline

__all__ = ["PAGE_COLUMNS", "cached_method", "clean_pages", "clean_batches", "freeze", "task_gpu_overrides"]

log = logging.getLogger(__name__)

PAGE_COLUMNS = ["page_id", "url", "body", "charset_hint", "content_type"]
_warned: set[str] = set()


def freeze(overrides: dict[str, Any]) -> tuple:
    """Settings overrides as a hashable, ordered key for the per-worker cache."""
    def hashable(v: Any) -> Any:
        return tuple(hashable(x) for x in v) if isinstance(v, (list, tuple)) else v

    return tuple(sorted((k, hashable(v)) for k, v in overrides.items()))


@functools.lru_cache(maxsize=8)
def cached_method(name: str, frozen_overrides: tuple) -> CleanMethod:
    """The method, built on first use in this worker process and reused across batches and tasks."""
    log.info("building method %s with %s", name, dict(frozen_overrides))
    return build_method(name, dict(frozen_overrides))


def _warn_once(kind: str, message: str) -> None:
    if kind not in _warned:
        _warned.add(kind)
        log.warning("first %s in this worker: %s (further ones are only counted)", kind, message)


def _failure(exc: BaseException) -> CleanResult:
    status = getattr(exc, "status", "error")
    message = one_line(exc, 300)
    if not isinstance(exc, (PageError, PageTimeout)):
        _warn_once(type(exc).__name__, message)
    return CleanResult(status=status, error=message)


def _row(page: dict, method_id: str, result: CleanResult, elapsed_ms: float) -> dict:
    return {"page_id": page["page_id"], "url": page["url"], "method": method_id, "status": result.status,
            "error": result.error, "title": result.title, "text": result.text or None,
            "content_xpaths": list(result.content_xpaths), "language": result.language,
            "n_chars": result.n_chars, "n_words": result.n_words, "elapsed_ms": elapsed_ms}


def _parse(page: dict) -> ParsedPage:
    return parse_page(page["body"], url=page["url"], page_id=page["page_id"],
                      charset_hint=page["charset_hint"], content_type=page["content_type"])


def _one(method: CleanMethod, page: dict, timeout_s: float | None) -> tuple[CleanResult, float]:
    start = time.perf_counter()
    try:
        with deadline(timeout_s):
            result = method.process(_parse(page))
    except Exception as exc:  # noqa: BLE001 - every failure becomes a status row
        result = _failure(exc)
    return result, (time.perf_counter() - start) * 1000


def clean_pages(method: CleanMethod, pages: list[dict], timeout_s: float | None = None) -> list[dict]:
    """Clean a list of page dicts (PAGE_COLUMNS keys) -> one documents row dict per page, in order.

    Batched methods get one `process_batch` call for the pages that parsed (time shared equally),
    under a deadline of the page deadline times the pages; if that call fails or runs out of time,
    the batch is retried one page at a time so one bad page cannot mark its neighbours.
    """
    method_id = f"{method.name}/{method.version}"
    if not getattr(method, "batched", False):
        return [_row(p, method_id, *_one(method, p, timeout_s)) for p in pages]
    results: list[CleanResult | None] = [None] * len(pages)
    elapsed = [0.0] * len(pages)
    parsed: list[tuple[int, ParsedPage]] = []
    for i, page in enumerate(pages):
        start = time.perf_counter()
        try:
            parsed.append((i, _parse(page)))
        except Exception as exc:  # noqa: BLE001
            results[i] = _failure(exc)
        elapsed[i] = (time.perf_counter() - start) * 1000
    start = time.perf_counter()
    try:
        # the batch gets every page's allowance; when it runs out, the retry below gives each page its own
        with deadline(timeout_s * len(parsed) if timeout_s else None):
            batch = method.process_batch([p for _, p in parsed])
        share = (time.perf_counter() - start) * 1000 / max(len(parsed), 1)
        for (i, _), result in zip(parsed, batch, strict=True):
            results[i], elapsed[i] = result, elapsed[i] + share
    except Exception as exc:  # noqa: BLE001
        _warn_once("batch_failure", f"{type(exc).__name__}: {exc}; retrying page by page")
        for i, _ in parsed:
            results[i], elapsed[i] = _one(method, pages[i], timeout_s)
    return [_row(p, method_id, r, e) for p, r, e in zip(pages, results, elapsed, strict=True)]


def task_gpu_overrides(method_name: str, frozen_overrides: tuple, gpu_addresses: list[str] | None) -> tuple:
    """On a GPU executor, a method with a `device` setting left at "auto" runs on the GPU Spark gave this task
    (`spark.task.resource.gpu.amount`), not always on cuda:0."""
    if not gpu_addresses:
        return frozen_overrides
    settings = method_class(method_name).settings_class
    if "device" not in {f.name for f in dataclasses.fields(settings)}:
        return frozen_overrides
    overrides = dict(frozen_overrides)
    if overrides.get("device", settings.load().device) != "auto":
        return frozen_overrides
    return freeze({**overrides, "device": f"cuda:{gpu_addresses[0]}"})


def _task_gpus() -> list[str] | None:
    from pyspark import TaskContext

    context = TaskContext.get()
    gpu = context.resources().get("gpu") if context is not None else None
    return list(gpu.addresses) if gpu is not None else None


def clean_batches(method_name: str, frozen_overrides: tuple, timeout_s: float | None,
                  batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
    """mapInPandas body: `functools.partial(clean_batches, name, freeze(overrides), timeout_s)`."""
    method = cached_method(method_name, task_gpu_overrides(method_name, frozen_overrides, _task_gpus()))
    columns = DOCUMENTS.names
    for frame in batches:
        rows = clean_pages(method, frame[PAGE_COLUMNS].to_dict("records"), timeout_s)
        out = pd.DataFrame(rows, columns=columns)
        out["n_chars"] = out["n_chars"].astype("int32")
        out["n_words"] = out["n_words"].astype("int32")
        out["elapsed_ms"] = out["elapsed_ms"].astype("float32")
        yield out
