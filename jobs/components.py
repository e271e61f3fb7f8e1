"""Connected components of an edge list in Spark DataFrames: min-label propagation with shortcutting.

Each round, every vertex takes the smallest label among itself and its neighbours, then jumps to the label of its
label (pointer jumping), so a chain of length d settles in about log2(d) + 2 rounds instead of d. The label of a
component is its smallest vertex id. The edge lists here are duplicates only (a few per cent of a corpus), so
the rounds are small jobs; GraphFrames' connectedComponents would need its JAR from Maven at run time.
"""

from __future__ import annotations

__all__ = ["connected_components"]


def connected_components(edges, max_rounds: int = 40):
    """(labels, rounds): labels is a DataFrame (id, label), one row per vertex that has an edge.

    Args:
        edges: DataFrame with string columns `src`, `dst` (undirected; duplicates and self-loops allowed).
        max_rounds: fail rather than loop forever.

    Raises:
        RuntimeError: the labels still changed after `max_rounds` rounds.
    """
    from pyspark.sql import functions as F

    both = (edges.select("src", "dst").union(edges.select(F.col("dst").alias("src"), F.col("src").alias("dst")))
            .where(F.col("src") != F.col("dst")).distinct().localCheckpoint())
    labels = both.groupBy(F.col("src").alias("id")).agg(F.least(F.min("dst"), F.first("src")).alias("label"))
    labels = labels.localCheckpoint()
    for rounds in range(1, max_rounds + 1):
        offered = both.join(labels.withColumnRenamed("id", "src"), "src").select(F.col("dst").alias("id"), "label")
        spread = offered.union(labels).groupBy("id").agg(F.min("label").alias("label")).localCheckpoint()
        via = spread.select(F.col("id").alias("via"), F.col("label").alias("label2"))
        jumped = (spread.join(via, F.col("label") == F.col("via"), "left")
                  .select("id", F.least("label", F.coalesce("label2", "label")).alias("label")).localCheckpoint())
        changed = jumped.join(labels.withColumnRenamed("label", "old"), "id").where(F.col("label") != F.col("old"))
        if changed.limit(1).count() == 0:
            return jumped, rounds
        labels = jumped
    raise RuntimeError(f"dedup: connected components did not settle in {max_rounds} rounds (dedup.max_rounds)")
