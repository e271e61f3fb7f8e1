"""scripts/test.sh (README command 2, CI) runs the suite on several pytest workers with a test file as one unit of
work, so that a module fixture (a Spark job or a cluster started once, asserted many times) runs once. Checked by
running pytest as test.sh does over generated files: xdist's `--dist loadgroup` silently stopped grouping under
pytest 9 (every test scheduled alone, module fixtures run on every worker) and nothing else noticed."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

MODULE = '''
import pytest

@pytest.fixture(scope="module")
def started():
    with open({log!r}, "a") as fh:
        fh.write("setup\\n")
    return 1
''' + "".join(f"\ndef test_{i}(started):\n    assert started\n" for i in range(8))


@pytest.mark.slow    # pytest and two xdist workers in a subprocess
def test_a_test_file_is_one_unit_of_work_on_the_suites_workers(tmp_path):
    dist = re.search(r"pytest -n \S+ --dist (\w+)", (ROOT / "scripts" / "test.sh").read_text()).group(1)
    log = tmp_path / "setups.log"
    (tmp_path / "test_module.py").write_text(MODULE.format(log=str(log)))
    for i in range(4):                                    # other work, so both workers are busy
        (tmp_path / f"test_other_{i}.py").write_text("def test_other():\n    pass\n")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-n", "2", "--dist", dist, "-q", "-p", "no:cacheprovider",
                           str(tmp_path)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "12 passed" in proc.stdout
    assert log.read_text().splitlines() == ["setup"], f"the module fixture ran on several workers (--dist {dist})"
