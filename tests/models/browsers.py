"""This test process's Chromium processes, read from /proc: which browsers a test started, and that none is left."""

from __future__ import annotations

import os
import time
from pathlib import Path

__all__ = ["browser_pids", "chromium_pids", "assert_no_chromium_left"]


def _ppid(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("PPid:")))


def _is_descendant(pid: int, root: int) -> bool:
    while pid > 1:
        if pid == root:
            return True
        pid = _ppid(pid)
    return pid == root


def chromium_pids(*, browsers_only: bool = False) -> list[int]:
    """Chromium processes below this one; `browsers_only`: not its renderers and helpers (they have a --type)."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
            if not cmdline[0].endswith(b"/chromium") or not _is_descendant(_ppid(int(entry)), os.getpid()):
                continue
        except (OSError, StopIteration):   # it ended while we looked
            continue
        if not (browsers_only and any(a.startswith(b"--type=") for a in cmdline)):
            pids.append(int(entry))
    return pids


def browser_pids() -> list[int]:
    """This process's Chromium browser processes."""
    return chromium_pids(browsers_only=True)


def assert_no_chromium_left(before: set[int], wait_s: float = 5.0) -> None:
    """No Chromium process below this one that was not there `before` (its helpers get `wait_s` to exit)."""
    deadline = time.monotonic() + wait_s
    while (left := set(chromium_pids()) - before) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not left, f"Chromium processes left behind: {sorted(left)}"
