"""Peak memory of a child command's whole process tree (driver, JVM, Python workers), sampled from /proc.

Shared by `scripts/bench/mem_tree.py` (one command) and `scripts/bench/bench_pipeline.py` (every system of the
pipeline benchmark). RSS sums what each process has resident, so pages shared by forked Python workers count
once per process; PSS splits those pages between the processes sharing them, which is the figure to compare with
the machine's memory. Linux only.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = ["TreePeak", "process_kind", "process_tree", "run_watched", "process_sizes", "watch"]


@dataclass
class TreePeak:
    """What `watch` saw of one process tree, sizes in KiB.

    Attributes:
        returncode: the root process's exit status.
        wall_s: from start to exit, as the watcher saw it.
        rss_kib / pss_kib: the peak of the tree's summed RSS / PSS.
        processes: the most processes the tree had at once.
        pss_by_kind_kib: at the moment of the PSS peak, PSS by kind of process (`process_kind`).
    """

    returncode: int
    wall_s: float
    rss_kib: int = 0
    pss_kib: int = 0
    processes: int = 0
    pss_by_kind_kib: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict:
        mib = {k: round(v / 1024) for k, v in self.pss_by_kind_kib.items()}
        return {"returncode": self.returncode, "wall_s": round(self.wall_s, 2),
                "peak_rss_mib": round(self.rss_kib / 1024),
                "peak_pss_mib": round(self.pss_kib / 1024), "processes": self.processes, "pss_by_kind_mib": mib}


def _processes() -> dict[int, tuple[int, int]]:
    """{pid: (parent pid, session id)} of every process /proc shows now."""
    out: dict[int, tuple[int, int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", encoding="ascii", errors="replace") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            out[int(name)] = (int(fields[1]), int(fields[3]))
        except (OSError, IndexError, ValueError):
            continue
    return out


def process_tree(root: int, session: bool = False) -> list[int]:
    """`root` and every process below it (children, grandchildren, ...), as /proc shows them now; with `session`,
    also every process of the session `root` leads, which catches helpers that were orphaned and re-parented to
    init (DataTrove's extractor starts a forkserver that outlives its task)."""
    procs = _processes()
    kids: dict[int, list[int]] = {}
    for pid, (ppid, _) in procs.items():
        kids.setdefault(ppid, []).append(pid)
    found, stack = set(), [root]
    if session:
        stack += [pid for pid, (_, sid) in procs.items() if sid == root]
    while stack:
        pid = stack.pop()
        if pid not in found:
            found.add(pid)
            stack.extend(kids.get(pid, []))
    return sorted(found)


def process_sizes(pid: int) -> tuple[int, int]:
    """(RSS, PSS) of one process in KiB, (0, 0) when it is gone."""
    rss = pss = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Rss:"):
                    rss = int(line.split()[1])
                elif line.startswith("Pss:"):
                    pss = int(line.split()[1])
    except OSError:
        pass
    return rss, pss


def process_kind(pid: int, root: int) -> str:
    """What a process of a `pagesieve run` tree is: "jvm" (Spark's Java), "python-workers" (PySpark's daemon and
    the workers it forks), "driver" (the root), or "other" (e.g. a method's guard child, DataTrove's workers)."""
    if pid == root:
        return "driver"
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            cmd = fh.read().replace(b"\0", b" ")
    except OSError:
        return "other"
    if b"java" in cmd.split(b" ", 1)[0]:
        return "jvm"
    if b"pyspark.daemon" in cmd or b"pyspark.worker" in cmd:
        return "python-workers"
    return "other"


def watch(proc: subprocess.Popen, interval: float = 0.1, session: bool = False) -> TreePeak:
    """Sample `proc`'s tree every `interval` seconds until it exits; the peaks it reached. With `session` (`proc`
    was started with start_new_session=True), processes of its session count too, and those still alive when it
    exits are ended (SIGTERM), so that a run leaves nothing behind to weigh on the next one."""
    start = time.perf_counter()
    peak = TreePeak(returncode=0, wall_s=0.0)
    while proc.poll() is None:
        pids = process_tree(proc.pid, session)
        sizes = {p: process_sizes(p) for p in pids}
        rss, pss = sum(r for r, _ in sizes.values()), sum(p for _, p in sizes.values())
        peak.rss_kib = max(peak.rss_kib, rss)
        peak.processes = max(peak.processes, len(pids))
        if pss > peak.pss_kib:
            peak.pss_kib = pss
            by_kind: dict[str, int] = {}
            for p, (_, size) in sizes.items():
                kind = process_kind(p, proc.pid)
                by_kind[kind] = by_kind.get(kind, 0) + size
            peak.pss_by_kind_kib = by_kind
        time.sleep(interval)
    peak.returncode = proc.returncode
    peak.wall_s = time.perf_counter() - start
    if session:
        for pid in process_tree(proc.pid, session=True):
            if pid != proc.pid:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGTERM)
    return peak


def run_watched(command: Sequence[str], interval: float = 0.1, session: bool = True, **popen) -> TreePeak:
    """Run `command` (keyword arguments go to `subprocess.Popen`) in a session of its own and watch its tree
    until it exits (`watch`)."""
    return watch(subprocess.Popen(list(command), start_new_session=session, **popen), interval, session)
