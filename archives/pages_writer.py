"""One ingest task: read one archive, write its pages as Parquet, commit it with a marker.

Layout under the pages folder (names starting with `_` are ignored by Parquet readers):

    part-<key>-00000.parquet ...    pages of the archive whose URI hashes to <key>, bounded files
    _skipped/part-<key>.parquet     its records that are not pages, with the reason (no bodies)
    _resources/part-<key>.parquet   its stylesheets with their bodies (also listed as skipped non_html), for
                                    renderers (`pagesieve.schemas.RESOURCES`)
    _done/<key>.json                the commit marker: path, identity, record counts by reason, files
    _tmp-<key>/                     files being written; renamed into place, then the marker

The marker is written last, by rename, so its presence means every file of the archive is in
place. A rerun skips archives that have one (resume); a task that starts without a marker first
deletes whatever an earlier, killed attempt left under its key, so a retry never duplicates rows.
Works on any fsspec filesystem (local, s3://, hdfs://).

An archive is known by its identity (`archive_identity`), not by the path string as typed: the key
hashes its absolute, normalised URI, so `in/a.warc.gz` and `/abs/in/a.warc.gz` are one archive, and
`in/a.warc.gz` typed in another directory is another (issue 22). The marker keeps the size and
modification time, so the ingest job can tell a file changed in place since it was committed.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import time
from collections import Counter
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from pagesieve.archives.rows import RESOURCE_MEDIA_TYPES
from pagesieve.schemas import PAGES, PAGES_FILE_BYTES, PAGES_ROW_GROUP_BYTES, READER_ROWS, RESOURCES

__all__ = ["archive_identity", "archive_key", "archive_uri", "done_markers", "remove_archive", "write_archive_pages"]

log = logging.getLogger(__name__)

SKIPPED = pa.schema([f for f in READER_ROWS if f.name not in ("body", "http_headers")])


_VERSION_KEYS = ("mtime", "LastModified", "last_modified", "ETag", "etag", "created")


def archive_uri(path: str) -> str:
    """The absolute, normalised URI of an input: `file://` plus the real path (symlinks resolved, so
    that a link and its target are one archive) for a local file, a remote URI as given."""
    if "://" in path and not path.startswith("file://"):
        return path
    return "file://" + os.path.realpath(path.removeprefix("file://"))


def archive_identity(path: str) -> dict[str, Any]:
    """{"uri", "size", "mtime"} of an input: what resume compares to know it is the same file, unchanged.

    Args:
        path: a local path (relative paths resolve against the current directory) or fsspec URI.

    Returns:
        The URI (`archive_uri`), the size in bytes and the modification time (ns for a local file;
        for a remote one the first of mtime/LastModified/ETag its filesystem reports, as a string).
        Size and mtime are None when the file cannot be stat'ed (the reader then reports why).
    """
    uri = archive_uri(path)
    try:
        if uri.startswith("file://"):
            st = os.stat(uri.removeprefix("file://"))
            size, mtime = st.st_size, st.st_mtime_ns
        else:
            import fsspec

            fs, root = fsspec.core.url_to_fs(uri)
            info = fs.info(root)
            size = info.get("size")
            mtime = next((str(info[k]) for k in _VERSION_KEYS if info.get(k) is not None), None)
    except OSError:
        size = mtime = None
    return {"uri": uri, "size": size, "mtime": mtime}


def archive_key(path: str) -> str:
    """A stable file-name key for an input: the hash of its absolute URI (`archive_uri`)."""
    return _key(archive_uri(path))


def _key(uri: str) -> str:
    return hashlib.sha1(uri.encode("utf-8")).hexdigest()[:20]


def _fs(out: str):
    import fsspec

    fs, root = fsspec.core.url_to_fs(out)
    return fs, root.rstrip("/")


def done_markers(out: str) -> dict[str, dict[str, Any]]:
    """{archive URI: marker} of the archives already committed under `out`.

    A marker written before archives had an identity (no `uri`) is listed under `legacy:<key>`:
    its key hashed the path as typed, so nothing tells which file it was.
    """
    fs, root = _fs(out)
    markers: dict[str, dict[str, Any]] = {}
    if not fs.exists(f"{root}/_done"):
        return markers
    for name in fs.ls(f"{root}/_done", detail=False):
        if name.endswith(".json"):
            with fs.open(name, "r", encoding="utf-8") as fh:
                marker = json.load(fh)
            markers[marker.get("uri") or f"legacy:{marker['key']}"] = marker
    return markers


def remove_archive(out: str, path: str, *, by_key: bool = False) -> None:
    """Delete every file of one archive (pages, skipped list, marker, temporaries).

    Args:
        out: the pages folder.
        path: the archive (its key is `archive_key(path)`), or the key itself when `by_key`.
        by_key: `path` is a key (from a marker).
    """
    fs, root = _fs(out)
    key = path if by_key else archive_key(path)
    for pattern in (f"{root}/part-{key}-*.parquet", f"{root}/_skipped/part-{key}.parquet",
                    f"{root}/_resources/part-{key}.parquet", f"{root}/_done/{key}.json"):
        for name in fs.glob(pattern):
            fs.rm(name)
    if fs.exists(f"{root}/_tmp-{key}"):
        fs.rm(f"{root}/_tmp-{key}", recursive=True)


def write_archive_pages(path: str, out: str, *, max_body_bytes: int, rows_per_file: int,
                        rows_per_batch: int = 256, profile: str = "auto",
                        identity: dict[str, Any] | None = None, row_group_bytes: int = PAGES_ROW_GROUP_BYTES,
                        file_bytes: int = PAGES_FILE_BYTES, codec: str = "zstd") -> dict[str, Any]:
    """Read one archive and commit its pages under `out`; returns the marker (also written).

    Args:
        path: the archive (read from here; local relative paths resolve against the current directory).
        out: the pages folder.
        max_body_bytes, rows_per_file, rows_per_batch, profile: reader and writer settings.
        row_group_bytes, file_bytes: a row group (one write of buffered pages) holds at most `row_group_bytes`
            of bodies (or one page) and `rows_per_batch` pages; a file at most `file_bytes` of bodies (or one
            row group) and `rows_per_file` pages (see `pagesieve.schemas.PAGES_ROW_GROUP_BYTES`).
        identity: `archive_identity(path)` as the driver saw it (computed here when None); kept in the
            marker and giving the key.
        codec: the Parquet codec of every file written (`ingest.codec`: one of `pagesieve.schemas.PAGES_CODECS`).
    """
    from pagesieve.archives import read_input

    if not logging.getLogger().handlers:  # executors: one progress line per archive on stderr
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    fs, root = _fs(out)
    identity = identity or archive_identity(path)
    key = _key(identity["uri"])
    remove_archive(out, key, by_key=True)
    tmp = f"{root}/_tmp-{key}"
    fs.makedirs(tmp, exist_ok=True)
    start = time.time()
    counts: Counter[str] = Counter()
    statuses: Counter[str] = Counter()
    files: list[str] = []
    pages: list[dict] = []
    skipped: list[dict] = []
    resources: list[dict] = []
    writer: pq.ParquetWriter | None = None
    handle = None   # ParquetWriter does not close a file object it was given
    in_file = in_file_bytes = buffered_bytes = 0

    def close() -> None:
        if writer is not None:
            writer.close()
            handle.close()

    def flush() -> None:
        nonlocal writer, handle, in_file, in_file_bytes, buffered_bytes
        if not pages:
            return
        full = in_file >= rows_per_file or (in_file > 0 and in_file_bytes + buffered_bytes > file_bytes)
        if writer is None or full:
            close()
            files.append(f"part-{key}-{len(files):05d}.parquet")
            handle = fs.open(f"{tmp}/{files[-1]}", "wb")
            writer = pq.ParquetWriter(handle, PAGES, compression=codec)
            in_file = in_file_bytes = 0
        writer.write_table(pa.Table.from_pylist(pages, schema=PAGES), row_group_size=len(pages))   # one row group
        in_file += len(pages)
        in_file_bytes += buffered_bytes
        pages.clear()
        buffered_bytes = 0

    tally: dict[str, Any] = {}
    kwargs: dict[str, Any] = {"max_body_bytes": max_body_bytes, "tally": tally}
    if profile != "auto":
        kwargs["profile"] = profile
    for row in read_input(path, **kwargs):
        reason = row["skip_reason"]
        counts[reason or "page"] += 1
        if reason is None:
            statuses[row["ingest_status"] or "ok"] += 1
            size = len(row["body"] or b"")
            if pages and buffered_bytes + size > row_group_bytes:    # a row group holds <= row_group_bytes of
                flush()                                             # bodies, or one page
            pages.append(row)  # from_pylist takes the schema's columns and leaves the rest
            buffered_bytes += size
            if len(pages) >= rows_per_batch or in_file + len(pages) >= rows_per_file:
                flush()
        else:
            skipped.append({k: row[k] for k in SKIPPED.names})
            if _is_resource(row):
                resources.append(row)
    flush()
    close()
    for rows, name, schema in ((skipped, "_skipped", SKIPPED), (resources, "_resources", RESOURCES)):
        if rows:
            with fs.open(f"{tmp}/{name}.parquet", "wb") as fh:
                pq.write_table(pa.Table.from_pylist(rows, schema=schema), fh, compression=codec)
    fs.makedirs(f"{root}/_skipped", exist_ok=True)
    fs.makedirs(f"{root}/_done", exist_ok=True)
    for name in files:
        fs.mv(f"{tmp}/{name}", f"{root}/{name}")
    if skipped:
        fs.mv(f"{tmp}/_skipped.parquet", f"{root}/_skipped/part-{key}.parquet")
    if resources:
        fs.makedirs(f"{root}/_resources", exist_ok=True)
        fs.mv(f"{tmp}/_resources.parquet", f"{root}/_resources/part-{key}.parquet")
    # an empty file holds no record, so no row says it was there: the marker does (issue 22, item 5)
    empty = not counts and identity["size"] == 0
    marker = {"path": path, **identity, "key": key, "skipped_input": "empty_file" if empty else None,
              "records": sum(counts.values()), "by_reason": dict(counts), "bytes": tally or None,
              "ingest_status": dict(statuses), "resources": len(resources), "files": files,
              "seconds": round(time.time() - start, 3)}
    with fs.open(f"{tmp}/done.json", "w", encoding="utf-8") as fh:
        json.dump(marker, fh)
    fs.mv(f"{tmp}/done.json", f"{root}/_done/{key}.json")   # the commit
    fs.rm(tmp, recursive=True)
    log.info("ingested %s: %d records, %d pages, %d files", path, marker["records"], counts["page"], len(files))
    return marker


def _is_resource(row: dict) -> bool:
    """A stylesheet served whole and successfully (an error page or a cut file would mislay the page)."""
    return (row["content_type"] in RESOURCE_MEDIA_TYPES and row.get("body") is not None
            and row["ingest_status"] == "ok" and (row["http_status"] is None or 200 <= row["http_status"] < 300))
