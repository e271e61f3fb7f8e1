"""Small archives share a Spark task (a task costs more than reading a small archive); each still commits alone."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest

from pagesieve.jobs import ingest
from pagesieve.jobs.common import TASKS_PER_CORE, Report, counts_by, job_parser, load_config
from pagesieve.schemas import PAGES, spark_schema

MB = 1_000_000


def test_every_archive_is_read_once_by_one_task():
    sizes = [5 * MB, None, 1, 0, 70 * MB, *[MB] * 40]
    groups = ingest.group_archives(sizes, cores=2, task_bytes=64 * MB)
    assert sorted(i for group in groups for i in group) == list(range(len(sizes)))
    assert all(group == sorted(group) for group in groups)   # in the order given, within a task


def test_small_archives_share_tasks_but_every_core_gets_several():
    groups = ingest.group_archives([MB] * 308, cores=2, task_bytes=64 * MB)
    assert len(groups) == 2 * TASKS_PER_CORE                 # 308 MB is 5 tasks of 64 MB: too few to balance 2 cores
    assert max(len(g) for g in groups) - min(len(g) for g in groups) <= 1


def test_large_inputs_get_a_task_per_task_bytes_and_a_large_archive_a_task_of_its_own():
    sizes = [1000 * MB] * 3 + [10 * MB] * 100
    groups = ingest.group_archives(sizes, cores=2, task_bytes=64 * MB)
    assert len(groups) == 63                                  # ceil(4,000 MB / 64 MB)
    for big in range(3):
        assert [big] in groups


def test_few_archives_or_task_bytes_zero_give_one_task_per_archive():
    assert ingest.group_archives([MB, 2 * MB, 3 * MB], cores=16, task_bytes=64 * MB) == [[2], [1], [0]]
    assert ingest.group_archives([MB] * 20, cores=2, task_bytes=0) == [[i] for i in range(20)]
    assert ingest.group_archives([], cores=2, task_bytes=64 * MB) == []


def test_a_negative_task_bytes_is_refused():
    from pagesieve.jobs.common import ConfigError

    with pytest.raises(ConfigError, match="task_bytes"):
        load_config(job_parser("ingest", "").parse_args(["--conf", "ingest.task_bytes=-1"]))


@pytest.mark.slow
def test_grouped_tasks_write_the_same_pages_and_report_as_one_task_per_archive(spark, shared_data, tmp_path):
    archives = sorted(str(p) for p in (shared_data / "warc").glob("*.warc*"))
    reports, tasks = {}, {}
    for task_bytes in (64 * MB, 0):
        config = load_config(job_parser("ingest", "").parse_args(["--conf", f"ingest.task_bytes={task_bytes}"]))
        report = Report("ingest", config)
        out = tmp_path / f"pages-{task_bytes}"
        spark.sparkContext.setJobGroup(f"ingest-{task_bytes}", "ingest")
        ingest.run(spark, archives, str(out), config, report)
        tracker = spark.sparkContext.statusTracker()
        job = min(tracker.getJobIdsForGroup(f"ingest-{task_bytes}"))     # the first job reads the archives
        tasks[task_bytes] = sum(tracker.getStageInfo(s).numTasks for s in tracker.getJobInfo(job).stageIds)
        reports[task_bytes] = report.data
        written = counts_by(spark.read.schema(spark_schema(PAGES)).parquet(str(out)), "ingest_status")
        assert report.data["ingest_status"] == written          # the markers' counts are what was written
        assert len(list(out.glob("_done/*.json"))) == len(archives)   # each archive committed on its own
    assert tasks[0] == len(archives) and tasks[64 * MB] == 2 * TASKS_PER_CORE
    keys = ("pages", "skipped", "ingest_status", "input_records", "bytes_skipped")
    assert {k: reports[0][k] for k in keys} == {k: reports[64 * MB][k] for k in keys}
    ids = {b: sorted(pq.read_table(tmp_path / f"pages-{b}", columns=["page_id"]).column(0).to_pylist())
           for b in (0, 64 * MB)}
    assert ids[0] == ids[64 * MB] and len(ids[0]) == reports[0]["pages"]
