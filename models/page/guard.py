"""The in-process page deadline (SIGALRM).

Python runs signal handlers between bytecodes, so the alarm stops runaway *Python* work (a loop over
a huge DOM) but not a single long C call (one huge libxml2 parse) or a hung browser: for those use the
supervised guard (`models/page/supervised.py`), which runs the method in a child process and kills it.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from .errors import PageError

__all__ = ["GUARDS", "PageTimeout", "deadline"]

# "alarm": SIGALRM in the worker process (no overhead; cannot stop a C call);
# "process": the method runs in a supervised child process, killed and restarted on a timeout.
GUARDS = ("alarm", "process")


class PageTimeout(PageError):
    status = "timeout"


# After the deadline the alarm fires again every REFIRE_S until the block ends: a PageTimeout raised where it is
# swallowed (a library's `except Exception`, or a finalizer that runs at that moment: Python reports an exception
# from a garbage-collected py4j object's callback as "unraisable" and carries on) does not let the page run on.
REFIRE_S = 0.05


def _raise_timeout(signum, frame):  # noqa: ARG001 - signal handler signature
    raise PageTimeout("page deadline exceeded")


@contextmanager
def deadline(seconds: float | None) -> Iterator[None]:
    """Raise PageTimeout in the block after `seconds` (and again every REFIRE_S until the block ends); a no-op off
    the main thread or when None/0."""
    if not seconds or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGALRM, _raise_timeout)
    signal.setitimer(signal.ITIMER_REAL, seconds, REFIRE_S)
    try:
        yield
    finally:
        _disarm(previous)


def _disarm(previous) -> None:
    """Stop the alarm and restore the previous handler; a re-fire that lands in here is caught and the stop redone,
    so no alarm outlives its block."""
    while True:
        try:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
            return
        except PageTimeout:
            continue
