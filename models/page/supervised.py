"""The supervised guard (`guard = "process"`): the method runs in a child process that the parent kills
when a page overruns its deadline, then restarts.

The in-process alarm (`guard.py`) cannot stop one long C call (a huge libxml2 parse, a regex gone
quadratic inside a C extension) or a browser that hangs; killing a process stops anything. The parent
never builds the method: the child builds it once and keeps it across pages and batches, so a kill costs
one rebuild. A child that dies (a segfault, the kernel's OOM killer) is treated like a timeout: the page
it was on gets an `error` row, the child is restarted, and the remaining pages go on.

Pages go to the child in one message per batch and outcomes come back one message per page, so the
deadline is per page as with the alarm. A batch goes in one message too, and the child keeps each of its pages
to its own deadline with the alarm (`run_pages`); the parent kills the child only when the whole batch takes
longer than BATCH_BACKSTOP times the pages' deadlines (a C call the alarm cannot stop), then retries it page
by page. Linux `fork`: the child starts with the parent's imports and
leaves with `os._exit`, so it never flushes buffers it inherited (a Spark worker's socket to the JVM).
"""

from __future__ import annotations

import logging
import multiprocessing
import time
from collections.abc import Sequence
from typing import Any

from .errors import one_line
from .method import Method
from .runner import Outcome, PageInput, run_page, run_pages

__all__ = ["SupervisedRunner"]

log = logging.getLogger(__name__)

# The child builds the method before it answers: a model or a browser can take a while to load.
START_TIMEOUT_S = 600.0
# A batch the child runs under per-page alarms takes at most about: every page's own stage, two stopped shared
# stages (each up to the pages' deadlines) and the page-by-page fallback, i.e. < 4 x n x the deadline.
BATCH_BACKSTOP = 4


class _Stopped(Exception):
    """The child overran its deadline (`died` False) or is gone (`died` True)."""

    def __init__(self, died: bool, detail: str) -> None:
        super().__init__(detail)
        self.died = died


def _serve(conn: Any, method_class: type[Method], settings: Any, timeout_s: float | None = None) -> None:
    """The child's loop: build the method once, then answer ("pages" | "batch", pages) until None."""
    try:
        method = method_class(settings)
    except Exception as exc:  # noqa: BLE001 - reported to the parent, which raises it
        conn.send(("failed", one_line(exc)))
        return
    conn.send(("ready", method.batches()))     # the instance decides (BlockNet batches only on CUDA)
    try:
        while (message := conn.recv()) is not None:
            what, pages = message
            if what == "batch":
                conn.send(run_pages(method, pages, timeout_s))
            else:
                for page in pages:
                    conn.send(run_page(method, page))
    finally:
        method.close()


class SupervisedRunner:
    """Runs `method_class(settings)` in a child process; the same `run`/`close` as `InlineRunner`."""

    def __init__(self, method_class: type[Method], settings: Any, timeout_s: float | None = None) -> None:
        self.method_class = method_class
        self.settings = settings
        self.timeout_s = timeout_s
        self.method_id = f"{method_class.name}/{method_class.version}"
        self.kind = method_class.kind()
        self.restarts = 0
        self._failure = method_class.result_type.failure
        self._batched = False    # the child's method says, when it is built (`Method.batches()`)
        self._context = multiprocessing.get_context("fork")
        self._process: Any = None
        self._conn: Any = None

    def _start(self) -> None:
        parent_end, child_end = self._context.Pipe()
        process = self._context.Process(target=_serve,
                                        args=(child_end, self.method_class, self.settings, self.timeout_s),
                                        name=f"pagesieve-{self.method_class.name}", daemon=True)
        process.start()
        child_end.close()
        self._process, self._conn = process, parent_end
        try:
            status, detail = self._receive(START_TIMEOUT_S)
        except _Stopped as exc:
            self._kill()
            raise RuntimeError(f"building {self.method_id} in a child process: {exc}") from None
        if status != "ready":
            self._kill()
            raise RuntimeError(f"building {self.method_id} in a child process failed: {detail}")
        self._batched = detail

    def _receive(self, timeout_s: float | None) -> Any:
        if not self._conn.poll(timeout_s):
            raise _Stopped(False, "page deadline exceeded (worker process killed)")
        try:
            return self._conn.recv()
        except (EOFError, OSError):
            self._process.join(1)
            raise _Stopped(True, f"worker process died (exit code {self._process.exitcode})") from None

    def _kill(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.join()
            self._conn.close()
            self._process = self._conn = None

    def _send(self, message: Any) -> None:
        if self._process is None:
            self._start()
        self._conn.send(message)

    def run(self, pages: Sequence[PageInput]) -> list[Outcome]:
        """One outcome per page, in order; a batch that fails or overruns is retried page by page."""
        pages = list(pages)
        if pages and self._process is None:
            self._start()            # before the choice: the built method says whether it batches
        if self._batched and pages:
            self._send(("batch", pages))
            try:
                outcomes = self._receive(BATCH_BACKSTOP * self.timeout_s * len(pages) if self.timeout_s else None)
                if len(outcomes) == len(pages):
                    return outcomes
            except _Stopped as exc:
                log.warning("%s: batch of %d pages stopped (%s); retrying page by page",
                            self.method_id, len(pages), exc)
                self._restart()
        return self._one_by_one(pages)

    def _one_by_one(self, pages: list[PageInput]) -> list[Outcome]:
        outcomes: list[Outcome] = []
        while len(outcomes) < len(pages):
            self._send(("pages", pages[len(outcomes):]))
            while len(outcomes) < len(pages):
                start = time.perf_counter()
                try:
                    outcomes.append(self._receive(self.timeout_s))
                except _Stopped as exc:
                    status = "error" if exc.died else "timeout"
                    outcomes.append(Outcome(self._failure(status, str(exc)), (time.perf_counter() - start) * 1000))
                    self._restart()
                    break
        return outcomes

    def _restart(self) -> None:
        self.restarts += 1
        self._kill()        # the next _send starts a fresh child

    def close(self) -> None:
        """Ask the child to close its method and leave; kill it if it does not within 10 s."""
        if self._process is None:
            return
        try:
            self._conn.send(None)
            self._process.join(10)
        except (OSError, ValueError):
            pass
        self._kill()
