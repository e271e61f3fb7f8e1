"""pagesieve.eval.tree_memory: peak memory of a real process tree, orphaned helpers included and ended."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from pagesieve.eval.tree_memory import process_tree, run_watched

# a child that holds 120 MB in a grandchild for a second (the root itself holds next to nothing)
GRANDCHILD = """
import subprocess, sys
subprocess.run([sys.executable, "-c", "x = bytearray(120_000_000); import time; time.sleep(1.0)"], check=True)
"""

# the root forks a helper that forks again and exits: the grandchild, orphaned and re-parented to init (as
# DataTrove's forkserver is), holds 100 MB and would sleep for a minute; the root exits after 1.5 s
ORPHAN = """
import os, sys, time
if os.fork() == 0:
    if os.fork() == 0:
        x = bytearray(100_000_000)
        open(sys.argv[1], "w").write(str(os.getpid()))
        time.sleep(60)
    os._exit(0)
time.sleep(1.5)
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_peak_counts_the_whole_tree() -> None:
    peak = run_watched([sys.executable, "-c", GRANDCHILD], interval=0.05)
    assert peak.returncode == 0
    assert peak.processes >= 2
    assert peak.pss_kib > 110_000   # the grandchild's buffer, which the root alone never holds
    assert peak.rss_kib >= peak.pss_kib
    assert sum(peak.pss_by_kind_kib.values()) == peak.pss_kib
    assert peak.as_dict()["peak_pss_mib"] == round(peak.pss_kib / 1024)


def test_orphaned_helper_is_counted_and_ended(tmp_path: Path) -> None:
    pid_file = tmp_path / "orphan.pid"
    peak = run_watched([sys.executable, "-c", ORPHAN, str(pid_file)], interval=0.05)
    orphan = int(pid_file.read_text())
    deadline = time.time() + 5
    while _alive(orphan) and time.time() < deadline:
        time.sleep(0.05)
    assert not _alive(orphan), "the orphaned grandchild outlived the run"
    assert peak.pss_kib > 90_000    # counted through the session, though no longer below the root


def test_tree_without_session_misses_an_orphan() -> None:
    """What `session` is for: the parent chain alone loses a re-parented process."""
    me = os.getpid()
    assert me in process_tree(me)
    assert 1 not in process_tree(me, session=False)
