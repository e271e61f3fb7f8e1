"""Fault tolerance on a real standalone cluster: tests/support/cluster_fault.py kills a worker and its
executors during the clean UDF stage; the job must still write exactly one row per page."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow  # a standalone cluster


def test_killing_a_worker_mid_job_loses_and_duplicates_nothing():
    proc = subprocess.run([sys.executable, str(ROOT / "tests" / "support" / "cluster_fault.py"), "--copies", "4",
                           "--kill-after", "3"], capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    result = json.loads(proc.stdout[: proc.stdout.rindex("}") + 1])
    assert result["worker_killed_while_job_running"] and result["job_exit_code"] == 0
    # 4 copies of every CleanEval (737) and Scrapinghub (103 since 2026-11-26, 24 before) page
    assert result["documents"] == result["distinct_page_ids"] == result["pages"] == 4 * (737 + 103)
    assert result["udf_tasks_failed"] >= 1 and result["failure_reasons"] == ["ExecutorLostFailure"]
