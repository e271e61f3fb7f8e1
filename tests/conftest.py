"""Shared fixtures: one local Spark session for the whole run, and paths to the real data.

Tiers: `pytest -m "not slow"` is the fast tier (no Spark, cluster, CLI subprocess or training);
every test that uses the `spark` fixture is marked slow here, the other slow ones in their files.

On several workers (`-n 2 --dist loadfile`, what scripts/test.sh runs) a test file is one unit of work, so its
module fixtures (a Spark job run once, asserted many times) run once. Files that build `dist/pagesieve.zip` may
run at the same time on two workers: builds take a lock and each caller gets its own copy
(tests/support/cluster_util.py `build_zip`). The files that take minutes are collected first (`LONGEST_FIRST`),
and test.sh keeps collection order (`--no-loadscope-reorder`), so a worker does not start one of them while the
other has nothing left.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from pagesieve.data import DATA_ENV, data_root

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = data_root()
SAMPLE_WARC = ROOT / "data" / "sample" / "sample.warc.gz"

TEST_SPARK_CONF = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.shuffle.partitions": "2",
    "spark.driver.memory": "2g",
}

# The files that take longest, longest first (sum of setup, call and teardown in `scripts/test.sh --durations=120`
# on 2 cores, 2026-12-03: 487 s down to 64 s). With --dist loadfile a file is one unit of work, handed out in
# collection order; xdist's default reorder (most tests first) started these few-test files last, and one worker ran
# them for minutes after the other had finished. Renaming one of them fails tests/test_suite_workers.py.
LONGEST_FIRST = (
    "tests/jobs/test_cluster.py",
    "tests/spiders/test_stream_from_crawl.py",
    "tests/jobs/test_run_e2e.py",
    "tests/test_quality.py",
    "tests/jobs/test_dedup_local.py",
    "tests/jobs/test_cluster_fault.py",
    "tests/jobs/test_run_corpus_stages.py",
    "tests/jobs/test_ingest_resume.py",
    "tests/jobs/test_atomic_rerun.py",
    "tests/spiders/test_crawl_local.py",
    "tests/jobs/test_filter_local.py",
    "tests/models/test_blocknet_training.py",
)


@pytest.hookimpl(tryfirst=True)  # before -m filters the items
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A test that uses the `spark` fixture (itself or through another fixture) is slow: `-m "not slow"` drops it.
    The files of `LONGEST_FIRST` move to the front, in its order; the rest keep theirs."""
    for item in items:
        if "spark" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)
    rank = {path: i for i, path in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))


@pytest.fixture(scope="session")
def load_script() -> Callable[[str], ModuleType]:
    """Import a script of scripts/ as a module, by its path there (`load_script("eval/lobo_blocknet.py")`); the
    module is registered under its file's stem while it runs, as its dataclasses need."""
    def load(relative: str) -> ModuleType:
        path = ROOT / "scripts" / relative
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        return module

    return load


@pytest.fixture(scope="session")
def spark():
    from pagesieve.jobs.common import spark_session

    session = spark_session("tests", "local[2]", TEST_SPARK_CONF)
    yield session
    session.stop()


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.fail(f"the data folder is missing: {SHARED_DATA} (set {DATA_ENV}; CI has shared/ beside the clone)")
    return SHARED_DATA
