"""Quality-filter speed on one core: our signals and rules against DataTrove's filters, and the Spark job.

Texts: every gold text of the six boilerplate benchmarks in ../shared/data (1,815 real main texts,
median ~500 words). Pinned to one CPU, the three ways interleaved over several rounds (median):
  ours        - models/quality.judge: every signal (the columns) plus the first failing rule
  datatrove   - GopherQualityFilter + GopherRepetitionFilter + C4QualityFilter (verdict only), whitespace words
  dt+spacy    - the same with DataTrove's default English tokenizer (spaCy), only if spaCy is installed
Then the filter job on Spark local[1] over the texts copied --copies times (documents/s after the session
started, read + UDF + write + report).

    .venv/bin/python scripts/bench/bench_filter.py [--rounds 3] [--copies 10] [--no-spark]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from pagesieve.data import data_root

ROOT = Path(__file__).resolve().parents[2]
DATA = data_root()
DATASETS = ("cleaneval", "scrapinghub", "l3s-gn1", "dragnet", "readability", "google-trends-2017")


def gold_texts() -> list[str]:
    return [f.read_text("utf-8", errors="replace") for d in DATASETS for f in sorted((DATA / d / "gold").glob("*.txt"))]


def spacy_peer():
    """DataTrove's filters with their default English tokenizer (spaCy), or None when spaCy is missing."""
    try:
        import spacy  # noqa: F401
    except ImportError:
        return None
    from datatrove.pipeline.filters import C4QualityFilter, GopherQualityFilter, GopherRepetitionFilter

    steps = (GopherQualityFilter(), GopherRepetitionFilter(), C4QualityFilter())

    def judge(text: str) -> bool:
        from datatrove.data import Document

        return all(s.filter(Document(text=text, id="0")) is True for s in steps)

    return judge


def time_ways(texts: list[str], rounds: int) -> dict[str, float]:
    from pagesieve.models.quality import judge
    from pagesieve.models.quality.datatrove_peer import DatatroveQuality

    peer = DatatroveQuality()
    ways = {"ours": judge, "datatrove": peer.judge}
    if (with_spacy := spacy_peer()) is not None:
        ways["dt+spacy"] = with_spacy
    times: dict[str, list[float]] = {name: [] for name in ways}
    for _ in range(rounds):
        for name, fn in ways.items():
            start = time.perf_counter()
            for text in texts:
                fn(text)
            times[name].append(time.perf_counter() - start)
    return {name: len(texts) / statistics.median(t) for name, t in times.items()}


def time_spark(texts: list[str], copies: int) -> tuple[int, float]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from pagesieve.jobs import filter as filter_job
    from pagesieve.jobs.common import Report, job_parser, load_config, spark_session
    from pagesieve.schemas import DOCUMENTS

    work = Path(tempfile.mkdtemp(prefix="bench-filter-"))
    try:
        rows = [{"page_id": f"{c}/{i}", "method": "cnr/1", "status": "ok", "text": t, "n_words": len(t.split())}
                for c in range(copies) for i, t in enumerate(texts)]
        (work / "documents").mkdir()
        pq.write_table(pa.Table.from_pylist(rows, schema=DOCUMENTS), work / "documents" / "part-0.parquet")
        spark = spark_session("bench-filter", "local[1]", {"spark.ui.enabled": "false",
                                                          "spark.sql.shuffle.partitions": "1"})
        config = load_config(job_parser("filter", "").parse_args([]))
        filter_job.run(spark, str(work / "documents"), str(work / "warm"), config, Report("filter", config))
        start = time.perf_counter()
        n = filter_job.run(spark, str(work / "documents"), str(work / "out"), config, Report("filter", config))
        wall = time.perf_counter() - start
        spark.stop()
        return n, wall
    finally:
        shutil.rmtree(work)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--copies", type=int, default=10, help="the gold texts this many times for the Spark job")
    ap.add_argument("--cpu", type=int, default=0)
    ap.add_argument("--no-spark", action="store_true")
    args = ap.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {args.cpu})
    texts = gold_texts()
    words = sorted(len(t.split()) for t in texts)
    print(f"{len(texts)} gold texts, median {words[len(words) // 2]} words, {sum(words)} words in all")
    rates = time_ways(texts, args.rounds)
    for name, rate in rates.items():
        print(f"  {name:<10} {rate:8.1f} documents/s  ({rate / rates['ours']:.2f} x ours)")
    if "dt+spacy" not in rates:
        print("  dt+spacy   not measured: spaCy is not installed (DataTrove's default English tokenizer)")
    if not args.no_spark:
        n, wall = time_spark(texts, args.copies)
        print(f"  spark job  {n / wall:8.1f} documents/s  (local[1], {n} documents in {wall:.1f} s, "
              "read + UDF + Parquet write + report)")


if __name__ == "__main__":
    main()
