"""Shared fixtures: one local Spark session for the whole run, and paths to the real data.

Tiers: `pytest -m "not slow"` is the fast tier (no Spark, cluster, CLI subprocess or training);
every test that uses the `spark` fixture is marked slow here, the other slow ones in their files.

On several workers (`-n 2 --dist loadfile`, what scripts/test.sh runs) a test file is one unit of work, so its
module fixtures (a Spark job run once, asserted many times) run once. Files that build `dist/pagesieve.zip` may
run at the same time on two workers: builds take a lock and each caller gets its own copy
(tests/support/cluster_util.py `build_zip`).
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


@pytest.hookimpl(tryfirst=True)  # before -m filters the items
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A test that uses the `spark` fixture (itself or through another fixture) is slow: `-m "not slow"` drops it."""
    for item in items:
        if "spark" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)


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
