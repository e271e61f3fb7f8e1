"""The pages table is spread over the cores when Spark's file packing would leave a core idle (`read_pages`).

Spark packs small files into a partition by bytes plus a 4 MB open cost per file: the page files of one copy of
the shared WARCs (two of ~130 pages, nine of 1-25) were read as two partitions of 315 and 21 pages, and on two
cores the clean stage of `pagesieve run --method trafilatura` ran 94% of its pages on one of them.
"""

from __future__ import annotations

import math
from pathlib import Path

from pagesieve.archives.pages_writer import write_archive_pages
from pagesieve.jobs.common import TASKS_PER_CORE, read_pages, spread_partitions


def _makespan(rows: list[int], cores: int) -> int:
    """Pages on the busiest core when the tasks go in order, each to the first free core (Spark's local mode)."""
    busy = [0] * cores
    for n in rows:
        busy[busy.index(min(busy))] += n
    return max(busy)


def test_two_partitions_of_315_and_21_pages_are_spread() -> None:
    assert spread_partitions([315, 21], 2) == 2 * TASKS_PER_CORE


def test_partitions_that_keep_every_core_busy_are_kept() -> None:
    assert spread_partitions([170, 166], 2) == 0
    assert spread_partitions([1000, 900, 800, 700], 2) == 0
    assert spread_partitions([40] * 1000, 2) == 0      # a large table: many tasks, each small


def test_many_tasks_that_still_end_on_one_core_are_spread() -> None:
    # file packing sorts files by size: the large page files of ten WARC copies land in the first partition
    assert spread_partitions([2550, 400, 300, 110], 2) == 8


def test_a_table_smaller_than_the_cores_is_not_shuffled_for_nothing() -> None:
    assert spread_partitions([1], 2) == 0
    assert spread_partitions([], 2) == 0
    assert spread_partitions([3], 2) == 3          # one page per task at most
    assert spread_partitions([0, 0], 2) == 0


def test_one_partition_is_spread_over_the_cores() -> None:
    # the rule it replaces: a table read as one file ran on one core (min_partitions = 0: the default parallelism)
    assert spread_partitions([60], 2) == 2 * TASKS_PER_CORE
    assert spread_partitions([60], 8) == 8 * TASKS_PER_CORE
    assert spread_partitions([20], 8) == 20       # no more tasks than pages


def test_the_page_files_of_the_shared_warcs_run_on_both_cores(spark, shared_data: Path, tmp_path: Path) -> None:
    out = tmp_path / "pages"
    for name in ("ia-2008-archive-org-heritrix-warc017.warc.gz", "wayback-snapshots-nonconforming.warc.gz",
                 "wget-2024-sample-0000.warc.gz", "wget-2013-archive-org-urls.warc.gz", "warcio-example.warc.gz",
                 "cc-main-2024-22-whirlwind.warc.gz", "warcio-example-iana-chunked.warc"):
        write_archive_pages(str(shared_data / "warc" / name), str(out), max_body_bytes=20_000_000, rows_per_file=2000)
    as_read = spark.read.parquet(str(out))
    from pyspark.sql import functions as F

    def rows(df) -> list[int]:
        counted = dict(df.groupBy(F.spark_partition_id()).count().collect())
        return [counted.get(i, 0) for i in range(df.rdd.getNumPartitions())]

    n = sum(rows(as_read))
    assert _makespan(rows(as_read), 2) > 1.5 * n / 2       # the skew this is about, as Spark reads the files
    pages, count = read_pages(spark, str(out))
    spread = rows(pages)
    assert count == sum(spread) == n
    assert _makespan(spread, 2) <= 1.1 * math.ceil(n / 2)
    assert sorted(r.page_id for r in pages.select("page_id").collect()) == \
        sorted(r.page_id for r in as_read.select("page_id").collect())
