"""ingest: archives (WARC, ARC) or folders of HTML files -> `pages` Parquet.

    pagesieve ingest data/sample/sample.warc.gz --out out/pages
    spark-submit --py-files dist/pagesieve.zip jobs/ingest.py 's3://bucket/crawl/*.warc.gz' --out s3://bucket/pages

Each archive's pages are written and committed by the task that reads it, with a marker per archive (see
`pagesieve.archives.pages_writer`): re-running the same command skips the archives already committed, so a
killed job continues where it stopped; `--force` redoes them. Small archives share a task (`group_archives`,
`ingest.task_bytes`): a Spark task costs ~25 ms of its own, more than reading a small archive. An archive is
known by its absolute URI, size and modification time, never by the path as typed: the same file
named two ways is read once, and a file changed in place is read again (with a warning). Every
record is accounted for: HTML responses become `pages` rows; everything else (requests,
warcinfo, revisits, non-HTML, read errors) is listed with its reason in `<out>/_skipped/`
(ignored by Parquet readers: it starts with `_`) and counted in `<out>/_report.json`. Stylesheets are
also kept whole in `<out>/_resources/`, for the methods that render pages (VIPS).
"""

from __future__ import annotations

import functools
import logging
import math
import os
import sys
from collections.abc import Sequence

from pagesieve.jobs.common import (
    TASKS_PER_CORE,
    ConfigError,
    Report,
    check_apart,
    check_output,
    check_readable_file,
    check_table,
    exit_on_config_error,
    job_parser,
    load_config,
    spark_session,
)

__all__ = ["list_archives", "check_inputs_apart", "check_profile_name", "group_archives", "run", "main"]

log = logging.getLogger(__name__)


def list_archives(inputs: list[str], config) -> list[str]:
    """The archives and HTML inputs to read (FileNotFoundError for an input that matches nothing; ConfigError
    for a local one this process cannot read: an unreadable archive was counted as 0 pages, exit 0)."""
    from pagesieve.archives import list_inputs

    paths = list_inputs(inputs, commoncrawl_base=config.job("ingest").commoncrawl_base)
    for path in paths:
        if "://" in path and not path.startswith("file://"):
            continue
        local = path.removeprefix("file://")
        if os.path.isdir(local):
            check_table(local, "INPUT")      # a folder of HTML files: listed like a table
        else:
            check_readable_file(local, "INPUT")
    return paths


def check_inputs_apart(out: str, inputs: list[str], paths: list[str], writes: tuple[str, ...] = ("",)) -> None:
    """Refuse an `out` (its `writes` parts) that is, holds or lies inside an input: each archive or HTML folder
    found (`paths`), and each input as typed unless a glob (a folder given whole, its archives inside)."""
    typed = [p for p in inputs if not any(c in p for c in "*?[")]
    check_apart(out, [("INPUT", p) for p in dict.fromkeys([*typed, *paths])], writes)


def check_profile_name(profile: str) -> None:
    from pagesieve.archives.profiles import check_profile

    try:
        check_profile(profile)
    except ValueError as exc:
        raise ConfigError(f"--profile: {exc}") from None


def run(spark, inputs: list[str], out: str, config, report: Report, *, force: bool = False,
        profile: str = "auto", paths: list[str] | None = None) -> int:
    """Ingest `inputs` into the pages folder `out`, skipping archives already committed there.

    Fills `report`; returns the number of pages of all the inputs (resumed ones included). `paths` is
    `list_archives(inputs)` when the caller already expanded them.
    """
    from collections import Counter

    from pagesieve.archives.pages_writer import archive_identity, done_markers, remove_archive

    settings = config.job("ingest")
    paths = paths if paths is not None else list_archives(inputs, config)
    done = done_markers(out)
    for uri in [u for u in done if u.startswith("legacy:")]:
        # keyed on the path as typed: which file it was is unknown, so it is redone rather than trusted
        log.warning("%s: a commit marker without an archive identity (%s); its pages are removed and "
                    "its archive ingested again", out, done[uri]["path"])
        remove_archive(out, done.pop(uri)["key"], by_key=True)
    # one archive given twice (relative and absolute path, a symlink) is read once
    archives: dict[str, tuple[str, dict]] = {}
    for path in paths:
        identity = archive_identity(path)
        archives.setdefault(identity["uri"], (_readable(path), identity))
    todo: list[tuple[str, dict]] = []
    resumed: list[dict] = []
    for uri, (path, identity) in archives.items():
        marker = done.get(uri)
        if marker is not None and (force or not _same_file(marker, identity)):
            if not force:
                log.warning("%s changed since it was ingested into %s (size %s -> %s, mtime %s -> %s): "
                            "ingesting it again", path, out, marker.get("size"), identity["size"],
                            marker.get("mtime"), identity["mtime"])
            remove_archive(out, marker["key"], by_key=True)
            marker = None
        if marker is None:
            todo.append((path, identity))
        else:
            resumed.append(marker)
    if resumed:
        log.info("resuming: %d of %d archives already committed in %s (--force redoes them)",
                 len(resumed), len(archives), out)
    task = functools.partial(_ingest_group, out=out, max_body_bytes=settings.max_body_bytes,
                             rows_per_file=settings.max_records_per_file, rows_per_batch=settings.rows_per_batch,
                             profile=profile, codec=settings.codec)
    groups = group_archives([identity["size"] for _, identity in todo], spark.sparkContext.defaultParallelism,
                            settings.task_bytes)
    tasks = [[todo[i] for i in group] for group in groups]
    fresh = spark.sparkContext.parallelize(tasks, len(tasks)).flatMap(task).collect() if tasks else []
    markers = resumed + fresh
    reasons: Counter[str] = Counter()
    statuses: Counter[str] = Counter()
    for marker in markers:
        reasons.update(marker["by_reason"])
        statuses.update(marker["ingest_status"])   # what the archive's task wrote, counted as it wrote it
    n_pages = sum(statuses.values())
    skipped = {k: v for k, v in reasons.items() if k != "page"}
    report.check_accounting(sum(reasons.values()), {"pages": n_pages, **skipped}, "records")
    byte_counts = _bytes(markers)
    report.check_accounting(byte_counts["size"], {k: byte_counts[k] for k in ("records", "skipped")}, "bytes")
    skipped_inputs = Counter(m["skipped_input"] for m in markers if m.get("skipped_input"))
    report.set(inputs=list(inputs), archives=len(archives), archives_resumed=len(resumed),
               skipped_inputs=dict(skipped_inputs), input_records=sum(reasons.values()), pages=n_pages, skipped=skipped,
               bytes_skipped=byte_counts["skipped"], stylesheets_kept=sum(m.get("resources", 0) for m in markers),
               ingest_status=dict(statuses), output=out)
    return n_pages


def group_archives(sizes: Sequence[int | None], cores: int, task_bytes: int) -> list[list[int]]:
    """The archives (their indices in `sizes`, bytes each; None when unknown) that each Spark task reads, in turn.

    A Spark task costs ~25 ms of scheduling and Python hand-off on top of its work (docs/performance.md), as much
    as reading a 1 MB archive, so thousands of small archives, one task each, spend more time on tasks than on
    pages. Archives are packed, largest first, each to the task with the fewest bytes (an unknown size counts as
    `task_bytes`), into as many tasks as there are `task_bytes` in all, but never fewer than `TASKS_PER_CORE`
    per core (a core that drew slow archives hands the rest to the others) and never more than one per archive.
    `task_bytes` 0: one task per archive. Resume stays per archive: each archive commits its own marker.
    """
    n = len(sizes)
    if n == 0:
        return []
    if task_bytes <= 0:
        return [[i] for i in range(n)]
    weights = [task_bytes if size is None else size for size in sizes]
    tasks = min(n, max(TASKS_PER_CORE * max(cores, 1), math.ceil(sum(weights) / task_bytes)))
    groups: list[list[int]] = [[] for _ in range(tasks)]
    loads = [0] * tasks
    for i in sorted(range(n), key=lambda i: (-weights[i], i)):
        lightest = loads.index(min(loads))
        groups[lightest].append(i)
        loads[lightest] += weights[i]
    return [sorted(group) for group in groups]


def _bytes(markers: list[dict]) -> dict[str, int]:
    """Bytes of the archives: size, in records, skipped as damaged (issue 22). A file whose raw read failed
    (unaccounted None: its read_error row says why) and a whole-file gzip ARC (no byte tally) are left out."""
    total = {"size": 0, "records": 0, "skipped": 0}
    for marker in markers:
        tally = marker.get("bytes") or {}
        if tally.get("unaccounted") is None:
            continue
        for key in total:  # bytes the reader could not place are in neither bucket: the check fails
            total[key] += tally[key]
    return total


def _readable(path: str) -> str:
    """A local path made absolute, so that a worker whose working directory differs reads the same file
    (and `source` names it wherever the table is read); a remote URI as given."""
    if "://" in path and not path.startswith("file://"):
        return path
    return os.path.abspath(path.removeprefix("file://"))


def _same_file(marker: dict, identity: dict) -> bool:
    """Whether a committed archive still has the size and modification time it had."""
    return (marker.get("size"), marker.get("mtime")) == (identity["size"], identity["mtime"])


def _ingest_group(items: list[tuple[str, dict]], **kwargs) -> list[dict]:
    from pagesieve.archives.pages_writer import write_archive_pages

    return [write_archive_pages(path, identity=identity, **kwargs) for path, identity in items]


def main(argv: list[str] | None = None) -> int:
    ap = job_parser("ingest", "Read WARC/ARC archives or HTML folders into the pages table (Parquet).")
    ap.add_argument("inputs", nargs="+", help="paths, globs, manifest files, or s3:// hdfs:// http(s):// URIs")
    ap.add_argument("--out", required=True, help="output folder of the pages table")
    ap.add_argument("--profile", default="auto", help="auto (default), warc, arc, clueweb09, clueweb12, clueweb22")
    ap.add_argument("--force", action="store_true", help="reprocess archives already committed in --out")
    args = ap.parse_args(argv)
    config = load_config(args)
    check_profile_name(args.profile)
    check_output(args.out)
    paths = list_archives(args.inputs, config)
    check_inputs_apart(args.out, args.inputs, paths)
    spark = spark_session("ingest", args.master, config.spark)
    report = Report("ingest", config)
    n = run(spark, args.inputs, args.out, config, report, force=args.force, profile=args.profile, paths=paths)
    report.finish(n, args.out, args.quiet)
    return 0


if __name__ == "__main__":
    sys.exit(exit_on_config_error(main))
