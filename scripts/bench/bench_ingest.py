"""Ingest speed on one core against FastWARC's raw iteration of the same file (the limit).

Three ways over the same archive, pinned to one CPU, interleaved over several rounds:
  fastwarc  - ArchiveIterator over every record, reading each payload (nothing else: the limit)
  reader    - pagesieve's reader (iter_records): parsing, payload decoding, HTML filtering, rows
  task      - one whole ingest task (write_archive_pages): the reader plus Parquet files and marker
Reports MB/s of compressed input and records/s, and each as a share of FastWARC's.

    .venv/bin/python scripts/bench/bench_ingest.py [--copies 20] [--rounds 3]
    .venv/bin/python scripts/bench/bench_ingest.py --archives A.warc.gz,B.warc.gz,...   # distinct archives, once each
    .venv/bin/python scripts/bench/bench_ingest.py --archives ... --codecs zstd,snappy,lz4,gzip,none  # ingest.codec

`--copies` repeats one archive, so every page occurs 20 times: Parquet's dictionary encoding then stores each
body once per row group, which makes the write far cheaper than on a real crawl. `--archives` concatenates
distinct per-record-gzip WARCs (a valid WARC of their records) for the figure a real crawl gets.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def fastwarc_raw(path: str) -> int:
    from fastwarc.warc import ArchiveIterator

    n = 0
    with open(path, "rb") as fh:
        for record in ArchiveIterator(fh, parse_http=True):
            record.reader.read()
            n += 1
    return n


def reader(path: str) -> int:
    from pagesieve.archives import iter_records

    return sum(1 for _ in iter_records(path))


def task(path: str, codec: str = "zstd", sizes: dict[str, int] | None = None) -> int:
    from pagesieve.archives.pages_writer import write_archive_pages

    out = tempfile.mkdtemp(prefix="bench-ingest-")
    try:
        records = write_archive_pages(path, out, max_body_bytes=20_000_000, rows_per_file=2000, codec=codec)["records"]
        if sizes is not None:     # bytes on disk of the pages files the task wrote
            sizes[codec] = sum(p.stat().st_size for p in Path(out).rglob("*.parquet"))
        return records
    finally:
        shutil.rmtree(out)


def codec_table(big: Path, codecs: list[str], rounds: int) -> None:
    """`--codecs`: one ingest task per codec (`ingest.codec`), interleaved over the rounds: time and disk."""
    for codec in codecs:
        task(str(big), codec)   # warm-up, and a bad codec fails before timing
    times: dict[str, list[float]] = {c: [] for c in codecs}
    sizes: dict[str, int] = {}
    for r in range(rounds):
        for k in range(len(codecs)):
            codec = codecs[(r + k) % len(codecs)]
            start = time.perf_counter()
            task(str(big), codec, sizes)
            times[codec].append(time.perf_counter() - start)
    size_mb = big.stat().st_size / 1e6
    base_t, base_s = statistics.median(times[codecs[0]]), sizes[codecs[0]]
    print(f"{big.name}: {size_mb:.1f} MB gzip input, {rounds} rounds, one core, {time.strftime('%Y-%m-%d %H:%M')}")
    print(f"| codec | median s | MB/s of input | pages files MB | time vs {codecs[0]} | disk vs {codecs[0]} |")
    print("|---|---|---|---|---|---|")
    for codec in codecs:
        t = statistics.median(times[codec])
        print(f"| {codec} | {t:.2f} | {size_mb / t:.1f} | {sizes[codec] / 1e6:.1f} | {t / base_t:.2f} "
              f"| {sizes[codec] / base_s:.2f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--archive", default=str(ROOT / "data" / "sample" / "sample.warc.gz"))
    ap.add_argument("--copies", type=int, default=20, help="concatenate the archive this many times")
    ap.add_argument("--archives", help="comma-separated per-record-gzip WARCs, concatenated once each "
                                       "(instead of --archive and --copies)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cpu", type=int, default=0)
    ap.add_argument("--codecs", help="comma-separated pages-file codecs (ingest.codec, the first the reference): "
                                     "time and disk of one ingest task per codec instead of the three ways")
    args = ap.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {args.cpu})
    work = Path(tempfile.mkdtemp(prefix="bench-ingest-"))
    big = work / "bench.warc.gz"
    if args.archives:
        sources = args.archives.split(",")
        big.write_bytes(b"".join(Path(p).read_bytes() for p in sources))
        args.archive = sources[0]
    else:
        # gzip members concatenate into a valid per-record-gzip WARC
        big.write_bytes(Path(args.archive).read_bytes() * args.copies)
    if args.codecs:
        codec_table(big, args.codecs.split(","), args.rounds)
        shutil.rmtree(work)
        return
    size_mb = big.stat().st_size / 1e6
    ways = {"fastwarc": fastwarc_raw, "reader": reader, "task": task}
    for fn in ways.values():
        fn(args.archive)  # warm-up: imports, caches
    times: dict[str, list[float]] = {name: [] for name in ways}
    records: dict[str, int] = {}
    for r in range(args.rounds):
        for k in range(len(ways)):
            name = list(ways)[(r + k) % len(ways)]
            start = time.perf_counter()
            records[name] = ways[name](str(big))
            times[name].append(time.perf_counter() - start)
    base = statistics.median(times["fastwarc"])
    print(f"{big.name}: {size_mb:.1f} MB gzip, {records['fastwarc']} records, {args.rounds} rounds, "
          f"one core, {time.strftime('%Y-%m-%d %H:%M')}")
    print(f"{'way':<9} {'median s':>9} {'MB/s':>8} {'records/s':>10} {'share of fastwarc':>18}")
    for name in ways:
        t = statistics.median(times[name])
        print(f"{name:<9} {t:>9.3f} {size_mb / t:>8.1f} {records[name] / t:>10.0f} {base / t:>18.2f}")
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
