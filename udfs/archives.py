"""mapInArrow body of the ingest job: archive paths in, reader rows (READER_ROWS) out.

One input row is one archive, and the job gives each archive its own partition, so one Spark
task reads one file. Rows are streamed out in bounded Arrow batches: an archive is never held
in memory whole.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pyarrow as pa

from pagesieve.jobs.readers import read_input
from pagesieve.schemas import READER_ROWS

__all__ = ["read_archives"]

log = logging.getLogger(__name__)

_MAX_BATCH_BYTES = 64 * 1024 * 1024


def read_archives(max_body_bytes: int, rows_per_batch: int,
                  batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """`functools.partial(read_archives, max_body_bytes, rows_per_batch)` for `mapInArrow`."""
    for batch in batches:
        for path in batch.column("path").to_pylist():
            rows: list[dict] = []
            size = 0
            for row in read_input(path, max_body_bytes=max_body_bytes):
                rows.append(row)
                size += len(row["body"] or b"")
                if len(rows) >= rows_per_batch or size >= _MAX_BATCH_BYTES:
                    yield pa.RecordBatch.from_pylist(rows, schema=READER_ROWS)
                    rows, size = [], 0
            if rows:
                yield pa.RecordBatch.from_pylist(rows, schema=READER_ROWS)
