"""A job that fails half-way leaves no `.staging-*` folder beside its output (hostile pass, item 7).

Spark removes the folder of a write that fails, so the folder stayed when a job failed after its first write.
The bad table here: two documents files whose extra column `x` has two types. The JSONL export reads only
page_id, title, text and status and is written; the Parquet export then reads `x` and fails.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pagesieve.jobs import cli


def _documents_with_a_bad_column(folder: Path) -> str:
    folder.mkdir()
    for i, x in enumerate([pa.array([1], pa.int64()), pa.array(["one"], pa.string())]):
        pq.write_table(pa.table({"page_id": [f"p{i}"], "url": [f"http://x/{i}"], "title": ["T"],
                                 "text": ["some words"], "status": ["ok"], "x": x}),
                       folder / f"part-0000{i}.parquet")
    return str(folder)


def test_a_job_failing_after_its_first_write_leaves_no_staging_folder(spark, tmp_path):
    documents = _documents_with_a_bad_column(tmp_path / "documents")
    out = tmp_path / "export"
    with pytest.raises(Exception, match="x"):   # Spark's own error: what failed is not this test's point
        cli.main(["export", "--documents", documents, "--out", str(out), "--format", "jsonl,parquet", "--quiet"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["documents"]
