"""The per-page runner: parse once, time, guard, and turn every exception into a status.

Every caller that runs a method over pages goes through here: the UDF adapter, the evaluation harness,
the memory probe and the benchmark scripts. The runner returns exactly one `Outcome` per page, in order,
whatever happened; a failure is a result of the method's own kind with its status (`not_html`,
`parse_error`, `timeout`, `error`, ...), never an exception.

    runner = InlineRunner(CNR(), timeout_s=30)
    outcomes = runner.run([PageInput(body, url=url)])

Batches: a method that batches (`batched`) or needs the pages of a site together (`group_by`) gets one
`process_batch` call for the pages that parsed, under the page deadline times their number; if that call
fails or runs out of time, the batch is retried one page at a time, so one bad page cannot mark its
neighbours.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from .errors import PageError, one_line
from .guard import deadline
from .method import Method
from .parse import ParsedPage, decode_page, page_from_decoded
from .resources import SubResource
from .result import Result

__all__ = ["PageInput", "Prepared", "Outcome", "Runner", "InlineRunner", "prepare", "run_prepared", "run_page",
           "run_pages", "failure_of", "build_runner", "charged_ms"]

log = logging.getLogger(__name__)

# Longest `error` message kept in an output row.
ERROR_CHARS = 300

_warned: set[str] = set()


@dataclass(frozen=True, slots=True)
class PageInput:
    """One page as the runner takes it: raw bytes plus the HTTP metadata that decoding needs."""

    body: bytes | None
    url: str | None = None
    page_id: str | None = None
    charset_hint: str | None = None
    content_type: str | None = None
    resources: tuple[SubResource, ...] = ()

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> PageInput:
        """From a `pages` row (extra columns are ignored), with its `resources` (url, body, content_type
        structs) when a job attached them."""
        resources = tuple(SubResource(r["url"], r["body"], r["content_type"]) for r in row.get("resources") or ())
        return cls(row.get("body"), row.get("url"), row.get("page_id"), row.get("charset_hint"),
                   row.get("content_type"), resources)


@dataclass(frozen=True, slots=True)
class Prepared:
    """A page decoded and parsed, or the status and error that stopped it, with the time each step took."""

    page: ParsedPage | None
    status: str | None = None
    error: str | None = None
    decode_ms: float = 0.0
    parse_ms: float = 0.0

    @property
    def ms(self) -> float:
        return self.decode_ms + self.parse_ms


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one method made of one page, and the milliseconds it took (decode + parse + method)."""

    result: Result
    elapsed_ms: float


class Runner(Protocol):
    """Runs one method over pages (in this process, or in a supervised child)."""

    method_id: str
    kind: str

    def run(self, pages: Sequence[PageInput]) -> list[Outcome]: ...

    def close(self) -> None: ...


def _warn_once(kind: str, message: str) -> None:
    if kind not in _warned:
        _warned.add(kind)
        log.warning("first %s in this worker: %s (further ones are only counted)", kind, message)


def failure_of(exc: BaseException) -> tuple[str, str]:
    """(status, one-line error) of an exception; an unexpected one is logged once per kind per worker."""
    message = one_line(exc, ERROR_CHARS)
    if not isinstance(exc, PageError):
        _warn_once(type(exc).__name__, message)
    return getattr(exc, "status", "error"), message


def prepare(page: PageInput) -> Prepared:
    """Check, decode and parse a page, timing decoding and parsing apart; never raises."""
    start = time.perf_counter()
    decoded_at = None
    try:
        decoded = decode_page(page.body, charset_hint=page.charset_hint, content_type=page.content_type)
        decoded_at = time.perf_counter()
        parsed = page_from_decoded(decoded, url=page.url, page_id=page.page_id, resources=page.resources)
    except Exception as exc:  # noqa: BLE001 - every failure becomes a status
        now = time.perf_counter()
        status, error = failure_of(exc)
        decoded_at = decoded_at or now
        return Prepared(None, status, error, (decoded_at - start) * 1000, (now - decoded_at) * 1000)
    return Prepared(parsed, decode_ms=(decoded_at - start) * 1000, parse_ms=(time.perf_counter() - decoded_at) * 1000)


def run_prepared(method: Method, prepared: Prepared, timeout_s: float | None = None) -> Outcome:
    """`method.process` on an already prepared page; `elapsed_ms` counts the method's own time only."""
    if prepared.page is None:
        return Outcome(method.result_type.failure(prepared.status or "error", prepared.error), 0.0)
    start = time.perf_counter()
    try:
        with deadline(timeout_s):
            result = method.process(prepared.page)
    except Exception as exc:  # noqa: BLE001 - every failure becomes a status row
        result = method.result_type.failure(*failure_of(exc))
    return Outcome(result, (time.perf_counter() - start) * 1000)


def charged_ms(method: Method, prepared: Prepared, outcome: Outcome) -> float:
    """A method's time on a page as the evaluation and the benchmarks count it: decoding, plus our parse
    when the method reads our tree (`needs == "tree"`), plus its own work. A peer that parses the markup
    itself (`needs == "markup"`) pays its own parse inside its work instead."""
    return prepared.decode_ms + (prepared.parse_ms if method.needs == "tree" else 0.0) + outcome.elapsed_ms


def run_page(method: Method, page: PageInput, timeout_s: float | None = None) -> Outcome:
    """Prepare and process one page under one deadline; `elapsed_ms` = decode + parse + method."""
    start = time.perf_counter()
    try:
        with deadline(timeout_s):
            prepared = prepare(page)
            outcome = run_prepared(method, prepared)
        result = outcome.result
    except Exception as exc:  # noqa: BLE001 - the deadline can fire between the two steps
        result = method.result_type.failure(*failure_of(exc))
    return Outcome(result, (time.perf_counter() - start) * 1000)


def run_pages(method: Method, pages: Sequence[PageInput], timeout_s: float | None = None) -> list[Outcome]:
    """One outcome per page, in order (see the module docstring for batches and their fallback)."""
    if not (method.batched or method.group_by):
        return [run_page(method, p, timeout_s) for p in pages]
    prepared = [prepare(p) for p in pages]
    outcomes: list[Outcome | None] = [None] * len(pages)
    parsed = []
    for i, p in enumerate(prepared):
        if p.page is None:
            outcomes[i] = Outcome(run_prepared(method, p).result, p.ms)
        else:
            parsed.append(i)
    start = time.perf_counter()
    try:
        # the batch gets every page's allowance; when it runs out, the retry below gives each page its own
        with deadline(timeout_s * len(parsed) if timeout_s else None):
            batch = method.process_batch([prepared[i].page for i in parsed])
        if len(batch) != len(parsed):
            raise RuntimeError(f"process_batch returned {len(batch)} results for {len(parsed)} pages")
        share = (time.perf_counter() - start) * 1000 / max(len(parsed), 1)
        for i, result in zip(parsed, batch, strict=True):
            outcomes[i] = Outcome(result, prepared[i].ms + share)
    except Exception as exc:  # noqa: BLE001
        _warn_once("batch_failure", f"{one_line(exc)}; retrying page by page")
        for i in parsed:
            outcome = run_prepared(method, prepared[i], timeout_s)
            outcomes[i] = Outcome(outcome.result, prepared[i].ms + outcome.elapsed_ms)
    return [o for o in outcomes if o is not None]


class InlineRunner:
    """Runs a built method in this process, under the SIGALRM deadline (`guard = "alarm"`)."""

    def __init__(self, method: Method, timeout_s: float | None = None) -> None:
        self.method = method
        self.timeout_s = timeout_s
        self.method_id = method.method_id
        self.kind = method.kind()

    def run(self, pages: Sequence[PageInput]) -> list[Outcome]:
        return run_pages(self.method, pages, self.timeout_s)

    def close(self) -> None:
        self.method.close()


def build_runner(method_class: type[Method], settings: Any, timeout_s: float | None = None,
                 guard: str = "alarm") -> Runner:
    """A runner for `method_class(settings)` under the given guard ("alarm" or "process", see GUARDS)."""
    if guard == "process":
        from .supervised import SupervisedRunner

        return SupervisedRunner(method_class, settings, timeout_s)
    if guard != "alarm":
        raise ValueError(f"unknown guard {guard!r}; known: alarm, process")
    return InlineRunner(method_class(settings), timeout_s)
