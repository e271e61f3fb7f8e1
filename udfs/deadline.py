"""A per-page deadline enforced from outside the method (SIGALRM), so a runaway page becomes a
`timeout` row instead of a stuck task. Python handlers run between bytecodes: a single long C
call (one huge lxml parse) finishes before the alarm is seen."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["PageTimeout", "deadline"]


class PageTimeout(Exception):
    status = "timeout"


def _raise_timeout(signum, frame):  # noqa: ARG001 - signal handler signature
    raise PageTimeout("page deadline exceeded")


@contextmanager
def deadline(seconds: float | None) -> Iterator[None]:
    """Raise PageTimeout in the block after `seconds`; a no-op off the main thread or when None/0."""
    if not seconds or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGALRM, _raise_timeout)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
