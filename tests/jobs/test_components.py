"""Connected components of `jobs/components.py` in real Spark local mode."""

from __future__ import annotations

import pytest

from pagesieve.jobs.components import connected_components


def _labels(spark, edges, max_rounds=40):
    frame = spark.createDataFrame(edges, "src string, dst string")
    labels, rounds = connected_components(frame, max_rounds)
    return {r.id: r.label for r in labels.collect()}, rounds


def test_a_long_chain_settles_in_few_rounds_with_its_smallest_id(spark):
    ids = [f"v{i:03d}" for i in range(64)]
    chain = [(ids[i + 1], ids[i]) for i in range(63)][::-1]      # v063-v062-...-v000
    labels, rounds = _labels(spark, chain + [("x2", "x1"), ("y", "y")])
    assert all(labels[v] == "v000" for v in ids) and labels["x2"] == labels["x1"] == "x1"
    assert "y" not in labels       # a self-loop is no edge
    assert rounds <= 10            # pointer jumping: ~log2(63) + 2, not 63


def test_too_few_rounds_fail_loudly(spark):
    ids = [f"v{i:03d}" for i in range(64)]
    with pytest.raises(RuntimeError, match="dedup.max_rounds"):
        _labels(spark, [(ids[i], ids[i + 1]) for i in range(63)], max_rounds=1)
