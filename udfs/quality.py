"""The quality signals and the first failing rule as columns of documents, over Arrow batches.

Every input row comes out once, with every input column as it was, plus `QUALITY_COLUMNS`. A document
whose status is not ok is not judged: its quality columns and `removed_by` are null.
"""

from __future__ import annotations

from collections.abc import Iterator

import pyarrow as pa

from pagesieve.models.quality import QualityRules, compute_signals, first_failing_rule
from pagesieve.schemas import QUALITY_COLUMNS, spark_schema

__all__ = ["add_quality_columns", "quality_batch"]

_PREFIX = "quality_"


def quality_batch(batch: pa.RecordBatch, rules: QualityRules) -> pa.RecordBatch:
    """`batch` (with `status` and `text` columns) plus the quality columns, row for row."""
    values: dict[str, list] = {field.name: [] for field in QUALITY_COLUMNS}
    signal_columns = [(name, name.removeprefix(_PREFIX)) for name in QUALITY_COLUMNS.names[:-1]]
    for status, text in zip(batch.column("status").to_pylist(), batch.column("text").to_pylist(), strict=True):
        if status != "ok":
            for column in values.values():
                column.append(None)
            continue
        signals = compute_signals(text or "", rules.stop_words)
        for column, signal in signal_columns:
            values[column].append(signals[signal])
        values["removed_by"].append(first_failing_rule(signals, rules))
    arrays = [pa.array(values[field.name], type=field.type) for field in QUALITY_COLUMNS]
    return pa.RecordBatch.from_arrays(list(batch.columns) + arrays,
                                      schema=pa.schema(list(batch.schema) + list(QUALITY_COLUMNS)))


def add_quality_columns(documents, rules: QualityRules):
    """documents DataFrame -> the same rows and columns plus `QUALITY_COLUMNS` (lazy).

    Quality columns already present (a filtered table filtered again) are replaced, not duplicated.
    """
    from pyspark.sql.types import StructType

    stale = [c for c in documents.columns if c in QUALITY_COLUMNS.names]
    documents = documents.drop(*stale)
    schema = StructType(documents.schema.fields + spark_schema(QUALITY_COLUMNS).fields)

    def judge_batches(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            yield quality_batch(batch, rules)

    return documents.mapInArrow(judge_batches, schema)
