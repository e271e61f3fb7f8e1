"""The Spark defaults that keep `pagesieve run` under 1 GB (cnr) and 1.5 GB (blocknet) of process tree per core on
2 cores (docs/memory.md): a 1g driver heap, and one pool of Python workers for ingest and clean."""

from __future__ import annotations

import pytest

from pagesieve.settings import load_defaults


def test_driver_heap_is_sized_to_a_two_core_job() -> None:
    assert load_defaults("spark")["spark.driver.memory"] == "1g"


def test_ingest_and_clean_share_one_pool_of_python_workers() -> None:
    # SPARK_SIMPLIFIED_TRACEBACK=1 in the Arrow stage's worker environment made Spark start a second daemon
    assert load_defaults("spark")["spark.sql.execution.pyspark.udf.simplifiedTraceback.enabled"] == "false"


@pytest.mark.slow
def test_a_session_gets_the_defaults() -> None:
    from pagesieve.jobs.common import spark_session

    spark = spark_session("memory-defaults", "local[1]", {"spark.ui.enabled": "false"})
    assert spark.conf.get("spark.sql.execution.pyspark.udf.simplifiedTraceback.enabled") == "false"
