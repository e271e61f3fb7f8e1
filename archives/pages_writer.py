"""One ingest task: read one archive, write its pages as Parquet, commit it with a marker.

Layout under the pages folder (names starting with `_` are ignored by Parquet readers):

    part-<key>-00000.parquet ...    pages of the archive whose path hashes to <key>, bounded files
    _skipped/part-<key>.parquet     its records that are not pages, with the reason (no bodies)
    _done/<key>.json                the commit marker: path, record counts by reason, files
    _tmp-<key>/                     files being written; renamed into place, then the marker

The marker is written last, by rename, so its presence means every file of the archive is in
place. A rerun skips archives that have one (resume); a task that starts without a marker first
deletes whatever an earlier, killed attempt left under its key, so a retry never duplicates rows.
Works on any fsspec filesystem (local, s3://, hdfs://).
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections import Counter
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from pagesieve.schemas import PAGES, READER_ROWS

__all__ = ["archive_key", "done_markers", "write_archive_pages", "remove_archive"]

log = logging.getLogger(__name__)

SKIPPED = pa.schema([f for f in READER_ROWS if f.name not in ("body", "http_headers")])


def archive_key(path: str) -> str:
    """A stable file-name key for an input path."""
    return hashlib.sha1(path.encode("utf-8")).hexdigest()[:20]


def _fs(out: str):
    import fsspec

    fs, root = fsspec.core.url_to_fs(out)
    return fs, root.rstrip("/")


def done_markers(out: str) -> dict[str, dict[str, Any]]:
    """{archive path: marker} of the archives already committed under `out`."""
    fs, root = _fs(out)
    markers: dict[str, dict[str, Any]] = {}
    if not fs.exists(f"{root}/_done"):
        return markers
    for name in fs.ls(f"{root}/_done", detail=False):
        if name.endswith(".json"):
            with fs.open(name, "r", encoding="utf-8") as fh:
                marker = json.load(fh)
            markers[marker["path"]] = marker
    return markers


def remove_archive(out: str, key: str) -> None:
    """Delete every file of one archive (pages, skipped list, marker, temporaries)."""
    fs, root = _fs(out)
    for pattern in (f"{root}/part-{key}-*.parquet", f"{root}/_skipped/part-{key}.parquet",
                    f"{root}/_done/{key}.json"):
        for name in fs.glob(pattern):
            fs.rm(name)
    if fs.exists(f"{root}/_tmp-{key}"):
        fs.rm(f"{root}/_tmp-{key}", recursive=True)


def write_archive_pages(path: str, out: str, *, max_body_bytes: int, rows_per_file: int,
                        rows_per_batch: int = 256, profile: str = "auto") -> dict[str, Any]:
    """Read one archive and commit its pages under `out`; returns the marker (also written)."""
    from pagesieve.archives import read_input

    if not logging.getLogger().handlers:  # executors: one progress line per archive on stderr
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    fs, root = _fs(out)
    key = archive_key(path)
    remove_archive(out, key)
    tmp = f"{root}/_tmp-{key}"
    fs.makedirs(tmp, exist_ok=True)
    start = time.time()
    counts: Counter[str] = Counter()
    statuses: Counter[str] = Counter()
    files: list[str] = []
    pages: list[dict] = []
    skipped: list[dict] = []
    writer: pq.ParquetWriter | None = None
    handle = None   # ParquetWriter does not close a file object it was given
    in_file = 0

    def close() -> None:
        if writer is not None:
            writer.close()
            handle.close()

    def flush() -> None:
        nonlocal writer, handle, in_file
        if not pages:
            return
        if writer is None or in_file >= rows_per_file:
            close()
            files.append(f"part-{key}-{len(files):05d}.parquet")
            handle = fs.open(f"{tmp}/{files[-1]}", "wb")
            writer = pq.ParquetWriter(handle, PAGES, compression="zstd")
            in_file = 0
        writer.write_table(pa.Table.from_pylist(pages, schema=PAGES))
        in_file += len(pages)
        pages.clear()

    kwargs = {"max_body_bytes": max_body_bytes}
    if profile != "auto":
        kwargs["profile"] = profile
    for row in read_input(path, **kwargs):
        reason = row["skip_reason"]
        counts[reason or "page"] += 1
        if reason is None:
            statuses[row["ingest_status"] or "ok"] += 1
            pages.append({k: row[k] for k in PAGES.names})
            if len(pages) >= rows_per_batch or in_file + len(pages) >= rows_per_file:
                flush()
        else:
            skipped.append({k: row[k] for k in SKIPPED.names})
    flush()
    close()
    if skipped:
        with fs.open(f"{tmp}/_skipped.parquet", "wb") as fh:
            pq.write_table(pa.Table.from_pylist(skipped, schema=SKIPPED), fh, compression="zstd")
    fs.makedirs(f"{root}/_skipped", exist_ok=True)
    fs.makedirs(f"{root}/_done", exist_ok=True)
    for name in files:
        fs.mv(f"{tmp}/{name}", f"{root}/{name}")
    if skipped:
        fs.mv(f"{tmp}/_skipped.parquet", f"{root}/_skipped/part-{key}.parquet")
    marker = {"path": path, "key": key, "records": sum(counts.values()), "by_reason": dict(counts),
              "ingest_status": dict(statuses), "files": files, "seconds": round(time.time() - start, 3)}
    with fs.open(f"{tmp}/done.json", "w", encoding="utf-8") as fh:
        json.dump(marker, fh)
    fs.mv(f"{tmp}/done.json", f"{root}/_done/{key}.json")   # the commit
    fs.rm(tmp, recursive=True)
    log.info("ingested %s: %d records, %d pages, %d files", path, marker["records"], counts["page"], len(files))
    return marker
