"""The per-page runner: parse once, time, guard, and turn every exception into a status.

Every caller that runs a method over pages goes through here: the UDF adapter, the evaluation harness,
the memory probe and the benchmark scripts. The runner returns exactly one `Outcome` per page, in order,
whatever happened; a failure is a result of the method's own kind with its status (`not_html`,
`parse_error`, `timeout`, `error`, ...), never an exception.

    runner = InlineRunner(CNR(), timeout_s=30)
    outcomes = runner.run([PageInput(body, url=url)])

Batches: a method that batches (`batched`) or needs the pages of a site together (`group_by`) gets its batch
in two stages (`Method.batch_inputs`, `Method.batch_results`), and every page keeps its own deadline and its
own time (a batch of n pages used to get n x the deadline: one page ran 17 s under a 5 s deadline, and its
`elapsed_ms` was the batch's average, which hid it):

- its own stage, `batch_inputs` (parsing the blocks, building the features), runs page by page, each under the
  page deadline and timed apart; a page that overruns gets `timeout` (or its exception's status) and leaves the
  batch;
- the shared stage, `batch_results` (one forward pass), is timed as a whole and its time split between the pages
  by `batch_weight` (blocknet and web2text: the page's blocks, which the forward pass is linear in). It may run
  until the first page would pass its deadline with its share: min over pages of (deadline - own stage) x total
  weight / page weight. If it is stopped there, that page gets `timeout`, charged its own stage plus its share
  of the stopped pass (its deadline), and the rest of the batch is redone without it from the inputs already
  built; a second stop, or any exception, falls back to one page at a time (`process`, each under its own
  deadline), so one bad page cannot mark its neighbours.

A page's `elapsed_ms` is its decoding and parsing, its own stage and its share of the shared stage that gave its
result; the time of a stopped pass beyond the stopped page's share is lost work that no page is charged. A method
that does not split its batch (the default `batch_inputs` returns the page; FreeDOM, whose pages of a site are
compared together) has only the shared stage, split equally: it runs under n x the deadline as before, and a stop
falls back to one page at a time, since no page can be told to be the slow one.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from .errors import PageError, one_line
from .guard import PageTimeout, deadline
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


@dataclass(slots=True)
class _Staged:
    """A page of a batch after its own stage: its index, `batch_inputs` value, that stage's ms and its weight."""

    index: int
    inputs: Any
    ms: float
    weight: float


def _own_stages(method: Method, prepared: Sequence[Prepared], timeout_s: float | None,
                outcomes: list[Outcome | None]) -> list[_Staged]:
    """`batch_inputs` of each parsed page under its own deadline; a page that fails or is already decided gets
    its outcome here and is left out of the batch."""
    staged = []
    for i, p in enumerate(prepared):
        if p.page is None:
            outcomes[i] = Outcome(run_prepared(method, p).result, p.ms)
            continue
        start = time.perf_counter()
        try:
            with deadline(timeout_s):
                inputs = method.batch_inputs(p.page)
        except Exception as exc:  # noqa: BLE001 - every failure becomes a status row
            outcomes[i] = Outcome(method.result_type.failure(*failure_of(exc)),
                                  p.ms + (time.perf_counter() - start) * 1000)
            continue
        ms = (time.perf_counter() - start) * 1000
        if isinstance(inputs, method.result_type):      # decided by its own stage (too_large)
            outcomes[i] = Outcome(inputs, p.ms + ms)
        else:
            staged.append(_Staged(i, inputs, ms, max(float(method.batch_weight(inputs)), 0.0)))
    if staged and sum(s.weight for s in staged) <= 0:   # no weights to go by: equal shares
        for s in staged:
            s.weight = 1.0
    return staged


def _allowance(staged: Sequence[_Staged], timeout_s: float | None) -> tuple[float | None, int]:
    """How long the shared stage may run before the first page's share would pass its deadline, and that page."""
    if not timeout_s:
        return None, -1
    total = sum(s.weight for s in staged)
    return min(((timeout_s - s.ms / 1000) * total / s.weight, k) for k, s in enumerate(staged) if s.weight > 0)


def run_pages(method: Method, pages: Sequence[PageInput], timeout_s: float | None = None) -> list[Outcome]:
    """One outcome per page, in order (see the module docstring for batches, their deadlines and times)."""
    if not method.batches():
        return [run_page(method, p, timeout_s) for p in pages]
    prepared = [prepare(p) for p in pages]
    outcomes: list[Outcome | None] = [None] * len(pages)
    staged = _own_stages(method, prepared, timeout_s, outcomes)
    splits = type(method).batch_inputs is not Method.batch_inputs
    stops = 0
    while staged:
        allowance, slowest = _allowance(staged, timeout_s)
        start = time.perf_counter()
        try:
            if allowance is not None and allowance <= 0:
                raise PageTimeout("page deadline exceeded")
            with deadline(allowance):
                batch = method.batch_results([s.inputs for s in staged])
            if len(batch) != len(staged):
                raise RuntimeError(f"batch_results returned {len(batch)} results for {len(staged)} pages")
        except PageTimeout as exc:
            stops += 1
            if splits and stops == 1:       # the page whose share ran out leaves; the rest is redone without it
                s = staged.pop(slowest)
                share = (time.perf_counter() - start) * 1000 * s.weight / sum(x.weight for x in staged + [s])
                outcomes[s.index] = Outcome(method.result_type.failure(*failure_of(exc)),
                                            prepared[s.index].ms + s.ms + share)
                continue
            _one_by_one(method, prepared, staged, timeout_s, outcomes, exc)
            break
        except Exception as exc:  # noqa: BLE001
            _one_by_one(method, prepared, staged, timeout_s, outcomes, exc)
            break
        spent, total = (time.perf_counter() - start) * 1000, sum(s.weight for s in staged)
        for s, result in zip(staged, batch, strict=True):
            outcomes[s.index] = Outcome(result, prepared[s.index].ms + s.ms + spent * s.weight / total)
        break
    return [o for o in outcomes if o is not None]


def _one_by_one(method: Method, prepared: Sequence[Prepared], staged: Sequence[_Staged], timeout_s: float | None,
                outcomes: list[Outcome | None], exc: BaseException) -> None:
    """The fallback: the batch's remaining pages one at a time (`process`), each under its own deadline."""
    _warn_once("batch_failure", f"{one_line(exc)}; retrying page by page")
    for s in staged:
        outcome = run_prepared(method, prepared[s.index], timeout_s)
        outcomes[s.index] = Outcome(outcome.result, prepared[s.index].ms + outcome.elapsed_ms)


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
