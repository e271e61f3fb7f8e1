"""Plumbing every job shares: arguments, the Spark session, configuration layers, the run report.

Used by composition: a job calls these, it does not subclass anything.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import logging
import math
import os
import posixpath
import re
import sys
import time
import urllib.parse
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

from pagesieve import __version__
from pagesieve.inputs import check_readable_file
from pagesieve.schemas import SCHEMA_VERSION
from pagesieve.settings import ConfigError, load_defaults, load_file, parse_override, settings_dict

from .settings import JOB_SETTINGS

__all__ = ["job_parser", "JobConfig", "load_config", "check_apart", "check_output", "check_readable_file",
           "check_table", "exit_on_config_error", "spark_session", "Report", "ConfigError", "counts_by",
           "grouped_counts", "location", "read_method_pages", "read_pages", "remove_tree", "removed_on_failure",
           "run_table_job", "spread_partitions", "staging_path", "swap_in", "write_json"]

log = logging.getLogger("pagesieve")


def job_parser(name: str, description: str) -> argparse.ArgumentParser:
    """An argument parser with the options every Spark subcommand takes."""
    ap = argparse.ArgumentParser(prog=f"pagesieve {name}", description=description)
    ap.add_argument("--master", default=None,
                    help="Spark master URL (default: local[*], or what spark-submit set)")
    ap.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                    help="spark.* keys go to Spark; SECTION.KEY sets a pagesieve setting (e.g. cnr.adjust=1)")
    ap.add_argument("--config", default=None, metavar="FILE",
                    help="TOML file overriding conf/ defaults, with the same [sections]")
    ap.add_argument("--quiet", action="store_true", help="no printed summary")
    return ap


@dataclass(frozen=True)
class JobConfig:
    """Resolved configuration: Spark settings, every job section typed, and the method sections given.

    Attributes:
        spark: `spark.*` keys, passed to the session builder.
        jobs: {section: settings} for every section of conf/jobs.toml (defaults, then --config, then --conf).
        methods: {method: overrides} for each method section given; each already checked against the
            method's settings class, so `method_settings` cannot fail later.
    """

    spark: dict[str, str]
    jobs: dict[str, Any]
    methods: dict[str, dict[str, Any]]

    def job(self, name: str) -> Any:
        return self.jobs[name]

    def method_overrides(self, name: str) -> dict[str, Any]:
        return dict(self.methods.get(name, {}))

    def as_dict(self) -> dict[str, Any]:
        return {"spark": dict(self.spark), **{k: settings_dict(v) for k, v in self.jobs.items()},
                **{k: dict(v) for k, v in self.methods.items()}}


def load_config(args: argparse.Namespace, methods: Sequence[str] = (), kind: str | None = None) -> JobConfig:
    """Packaged defaults (conf/jobs.toml), then --config FILE, then --conf pairs, all checked.

    Args:
        args: parsed arguments with `conf` (list of KEY=VALUE) and `config` (a TOML path or None).
        methods: the methods the command will run (registered names or dotted paths): a dotted-path
            method's settings section is its `name`.
        kind: the kind of method the command runs (cleaner, extractor): a method of another kind is refused.

    Raises:
        ConfigError: a malformed pair, an unknown section or key, a wrong type, an out-of-range value; one
            line naming `section.key`. Raised before Spark starts or any data is read.
    """
    from pagesieve.models.registry import METHODS, load_settings, resolve

    layers: list[tuple[str, Any]] = []
    if args.config:
        for section, values in load_file(args.config).items():
            if not isinstance(values, dict):
                raise ConfigError(f"{args.config}: top-level key {section!r} must be a [section]")
            layers += [(f"{section}.{k}", v) for k, v in values.items()]
    layers += [parse_override(item) for item in args.conf]
    spark: dict[str, str] = {}
    sections: dict[str, dict[str, Any]] = {}
    for key, value in layers:
        if key.startswith("spark."):
            spark[key] = str(value).lower() if isinstance(value, bool) else str(value)
            continue
        section, dot, name = key.partition(".")
        if not dot or not name:
            raise ConfigError(f"setting {key!r} must be SECTION.KEY or spark.KEY")
        sections.setdefault(section, {})[name] = value
    jobs = {name: cls.load(sections.pop(name, {})) for name, cls in JOB_SETTINGS.items()}
    method_names = {resolve(m, kind).name: m for m in methods if m}
    if kind in (None, "cleaner"):
        method_names.setdefault(resolve(jobs["clean"].method, "cleaner").name, jobs["clean"].method)
    checked: dict[str, dict[str, Any]] = {}
    for section, values in sections.items():
        if section not in METHODS and section not in method_names:
            known = sorted(set(JOB_SETTINGS) | set(METHODS) | set(method_names))
            raise ConfigError(f"unknown section {section!r} in {section}.{next(iter(values))}; "
                              f"known: spark, {', '.join(known)}")
        load_settings(method_names.get(section, section), values)    # checks keys, types and ranges
        checked[section] = values
    return JobConfig(spark, jobs, checked)


def check_output(path: str, flag: str = "--out") -> None:
    """A local output path must not be an existing file (ConfigError, before anything runs)."""
    if "://" not in path and os.path.isfile(path):
        raise ConfigError(f"{flag} {path}: is a file, expected a folder")


def check_table(path: str, flag: str) -> None:
    """A local input table must be an existing folder this process can list (ConfigError, before Spark starts)."""
    if "://" in path:
        return
    if not os.path.exists(path):
        dangling = " (a symlink to nothing)" if os.path.islink(path) else ""
        raise ConfigError(f"{flag} {path}: no such folder{dangling}")
    if not os.path.isdir(path):
        kind = "a file" if os.path.isfile(path) else "a pipe, socket or device"
        raise ConfigError(f"{flag} {path}: is {kind}, expected a table folder")
    try:   # a folder we may not list (mode 000 for another user) made Spark print a 300-line trace
        with os.scandir(path) as entries:
            next(entries, None)
    except OSError as exc:
        raise ConfigError(f"{flag} {path}: cannot be read: {exc.strerror}") from None


def location(path: str) -> str:
    """Where `path` points, as a string two paths can be compared by.

    A local path or `file:` URI: absolute, symlinks and `..` resolved, no trailing slash (`os.path.realpath`,
    which also resolves a path that does not exist yet as far as it does). Any other URI: scheme and host in
    lower case, repeated slashes, `.`, `..` and a trailing slash removed from its path (nothing is asked of
    the remote store).
    """
    if path.startswith("file:"):
        path = urllib.parse.unquote(urllib.parse.urlsplit(path).path) or "/"
    if "://" not in path:
        return os.path.realpath(path)
    parts = urllib.parse.urlsplit(path)
    tail = posixpath.normpath("/" + re.sub("/+", "/", parts.path))
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}{tail.rstrip('/')}"


def _inside(inner: str, outer: str) -> bool:
    return inner == outer or inner.startswith(outer.rstrip("/") + "/")


def check_apart(out: str, inputs: Iterable[tuple[str, str]], writes: Sequence[str] = ("",),
                flag: str = "--out") -> None:
    """Refuse an output that would overwrite an input (ConfigError, one line, before anything is written).

    Args:
        out: the job's output folder.
        inputs: (option, path) of every input the job reads (`("--pages", "out/pages")`).
        writes: the parts of `out` the job writes ("" the whole folder; `run` writes `documents`, `export`...).
        flag: the output's option, for the message.

    Raises:
        ConfigError: a written folder is an input, lies inside one, or holds one (paths compared by
            `location`: symlinks, `..`, trailing slashes and `file://` resolved).
    """
    inputs = list(inputs)
    for part in writes:
        target = location(f"{out.rstrip('/')}/{part}" if part else out)
        for in_flag, path in inputs:
            source = location(path)
            if source == target:
                relation = "is the same path as"
            elif _inside(source, target):
                relation = "holds"
            elif _inside(target, source):
                relation = "lies inside"
            else:
                continue
            its = f" (its {part}/)" if part else ""
            raise ConfigError(f"{flag} {out}{its}: {relation} {in_flag} {path}, which the job would overwrite; "
                              f"give an {flag} apart from its inputs")


def exit_on_config_error(main: Callable[[list[str] | None], int], argv: list[str] | None = None,
                         prog: str = "pagesieve") -> int:
    """Run a job's main; a ConfigError (or any ValueError/FileNotFoundError of bad input) becomes one line
    on stderr and exit code 2, with no traceback (the same under `pagesieve` and `spark-submit`)."""
    try:
        return main(argv)
    except (ValueError, FileNotFoundError) as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2


def spark_session(app_name: str, master: str | None, spark_conf: dict[str, str]):
    """The SparkSession: local[*] by default, pagesieve's defaults under the user's settings.

    Under spark-submit the JVM already runs (PYSPARK_GATEWAY_PORT is set) and the cluster was sized
    by the user: only runtime SQL defaults that nobody set are applied then.
    """
    # Before the JVM starts: executors must run this interpreter (the venv), and the loopback
    # warning is printed before any conf is read (docs/stack.md#spark).
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession

    submitted = "PYSPARK_GATEWAY_PORT" in os.environ
    builder = SparkSession.builder.appName(f"pagesieve-{app_name}")
    if master or not submitted:
        builder = builder.master(master or "local[*]")
    defaults = load_defaults("spark")
    log4j = str(resources.files("pagesieve.conf").joinpath("log4j2.properties"))
    if os.path.isfile(log4j):
        defaults["spark.driver.extraJavaOptions"] = f"-Dlog4j2.configurationFile=file:{log4j}"
    for key, value in ({} if submitted else defaults).items():
        builder = builder.config(key, value)
    for key, value in spark_conf.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    explicit = spark.sparkContext.getConf()
    for key, value in defaults.items():
        if key.startswith("spark.sql.") and not explicit.contains(key) and key not in spark_conf:
            spark.conf.set(key, value)
    spark.sparkContext.setLogLevel("ERROR")
    return spark


class Report:
    """The run report: computed from the job's output, checked to add up, written and printed."""

    def __init__(self, job: str, config: JobConfig) -> None:
        self.job = job
        self.started = time.time()
        self.data: dict[str, Any] = {
            "job": job, "pagesieve_version": __version__, "schema_version": SCHEMA_VERSION,
            "started_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), "config": config.as_dict(),
        }

    def set(self, **values: Any) -> Report:
        self.data.update(values)
        return self

    def check_accounting(self, input_rows: int, buckets: dict[str, int], what: str) -> None:
        """Every input row must land in exactly one bucket; raise (the job fails loudly) if not."""
        total = sum(buckets.values())
        self.data.setdefault("accounting", {})[what] = {"input": input_rows, "accounted": total,
                                                        "ok": total == input_rows}
        if total != input_rows:
            raise RuntimeError(f"{self.job}: {what}: {input_rows} input rows but {total} accounted for: {buckets}")

    def finish(self, rows: int, out: str | None, quiet: bool = False) -> dict[str, Any]:
        wall = time.time() - self.started
        self.data.update(wall_s=round(wall, 3), rows=rows, pages_per_s=round(rows / wall, 2) if wall else None)
        if out:
            write_json(f"{out.rstrip('/')}/_report.json", self.data)
        if not quiet:
            print(self.summary(), file=sys.stderr)
        return self.data

    def summary(self) -> str:
        d = self.data
        lines = [f"pagesieve {self.job}: {d.get('rows', 0)} rows in {d.get('wall_s', 0):.1f} s "
                 f"({d.get('pages_per_s') or 0:.1f} rows/s)"]
        for key in ("by_status", "by_method", "by_language", "by_outcome", "ingest_status", "skipped", "skipped_inputs",
                    "exported", "removed_by", "not_ok", "left_out"):
            if d.get(key):
                parts = ", ".join(f"{k}={v}" for k, v in sorted(d[key].items()))
                lines.append(f"  {key:<14} {parts}")
        fallback = [name for name, loaded in (d.get("native") or {}).items() if not loaded]
        if fallback:
            lines.append(f"  {'native':<14} not loaded, their fallbacks ran (same output, slower; docs/cluster.md): "
                         + ", ".join(fallback))
        if d.get("output"):
            lines.append(f"  {'output':<14} {d['output']}")
        return "\n".join(lines)


def write_json(path: str, obj: dict[str, Any]) -> None:
    """Write JSON to a local path or any fsspec URI (s3://, hdfs://, ...), by rename: a reader sees the
    old file or the new one, never half of one."""
    import fsspec

    fs, target = fsspec.core.url_to_fs(path)
    tmp = f"{target}.tmp-{uuid.uuid4().hex[:12]}"
    if "/" in target:
        fs.makedirs(target.rsplit("/", 1)[0], exist_ok=True)
    with fs.open(tmp, "w", encoding="utf-8") as fh:
        json.dump(obj, fh, indent=2, sort_keys=False, default=str)
        fh.write("\n")
    fs.mv(tmp, target)


# Atomic stage outputs (issue 22): a stage writes beside its old output and swaps the new one in when it has
# finished, so a rerun killed half-way leaves the previous output, its report and the export as they were.
_STAGING, _REPLACED = ".staging-", ".replaced-"


def staging_path(out: str) -> str:
    """A new, empty folder name beside `out` for a stage to write into (`<out>.staging-<id>`).

    Leftovers of killed runs are tidied first: stale staging folders are removed, and an output that a
    run killed inside `swap_in` had moved aside is put back.
    """
    import fsspec

    fs, root = fsspec.core.url_to_fs(out.rstrip("/"))
    for stale in fs.glob(f"{root}{_STAGING}*"):
        fs.rm(stale, recursive=True)
    aside = sorted(fs.glob(f"{root}{_REPLACED}*"))
    if aside and not fs.exists(root):
        fs.mv(aside.pop(), root)
    for old in aside:
        fs.rm(old, recursive=True)
    return f"{out.rstrip('/')}{_STAGING}{uuid.uuid4().hex[:12]}"


def swap_in(staged: str, out: str) -> None:
    """Make the finished folder `staged` the output `out`: the old one is moved aside, the new one renamed
    into place, then the old one deleted (two renames: no moment shows a half-written output)."""
    import fsspec

    fs, root = fsspec.core.url_to_fs(out.rstrip("/"))
    _, new = fsspec.core.url_to_fs(staged)
    aside = f"{root}{_REPLACED}{uuid.uuid4().hex[:12]}"
    if fs.exists(root):
        fs.mv(root, aside, recursive=True)
    fs.mv(new, root, recursive=True)
    if fs.exists(aside):
        fs.rm(aside, recursive=True)


def run_table_job(name: str, args: argparse.Namespace, config: JobConfig, input_path: str, input_flag: str,
                  write: Callable[..., int]) -> int:
    """The part every table-to-table job shares once its options are read: check the input table and `--out`
    (before Spark starts, so a bad option costs no JVM), start Spark, let `write(spark, input_path, staged,
    config, report)` write into a staging folder beside `args.out` and return its row count, finish the run
    report and swap the staged folder in (`staging_path`, `swap_in`). Returns the job's exit code, 0."""
    check_table(input_path, input_flag)
    check_output(args.out)
    check_apart(args.out, [(input_flag, input_path)])
    spark = spark_session(name, args.master, config.spark)
    report = Report(name, config)
    staged = staging_path(args.out)   # written beside the old output, swapped in when done
    with removed_on_failure(staged):
        n = write(spark, input_path, staged, config, report)
        report.set(output=args.out).finish(n, staged, args.quiet)
    swap_in(staged, args.out)
    return 0


@contextlib.contextmanager
def removed_on_failure(*paths: str) -> Iterator[None]:
    """Delete the staging folders `paths` when the block raises (a failed stage leaves no `.staging-*` behind;
    a killed one's are tidied by the next `staging_path`), then let the error go on."""
    try:
        yield
    except BaseException:
        for path in paths:
            try:
                remove_tree(path)
            except Exception as exc:   # the job's own error is the one to report
                log.warning("could not remove the staging folder %s: %s", path, exc)
        raise


def remove_tree(path: str) -> None:
    """Delete a folder (a local path or any fsspec URI); nothing when it is not there."""
    import fsspec

    fs, root = fsspec.core.url_to_fs(path.rstrip("/"))
    if fs.exists(root):
        fs.rm(root, recursive=True)


# The pages are spread again when the tasks Spark read them into would keep the last core busy this much longer
# than an even share (pages as the measure of time).
SPREAD_ABOVE = 1.1
# Tasks per core when they are spread again: a core that drew slow pages hands the rest to the others.
TASKS_PER_CORE = 4


def spread_partitions(rows_per_partition: Sequence[int], cores: int) -> int:
    """How many tasks to spread a pages table over, given its rows per partition as Spark read it (0: keep them).

    Spark packs small files into a partition by their bytes plus a 4 MB open cost per file, so a dozen page files
    of a few MB become two partitions of equal file count, not equal pages: one WARC copy read as 315 and 21 pages,
    and on 2 cores one core idled while the other ran 94% of the clean stage (docs/performance.md). The tasks are
    scheduled in order on `cores` cores, each to the first free core; when that ends more than `SPREAD_ABOVE` x an
    even share of pages after the start, the table is spread over `TASKS_PER_CORE` tasks per core (one shuffle)."""
    n = sum(rows_per_partition)
    if n == 0 or cores < 1:
        return 0
    busy = [0] * cores
    for rows in rows_per_partition:
        busy[busy.index(min(busy))] += rows
    if max(busy) <= SPREAD_ABOVE * math.ceil(n / cores):     # ceil: fewer pages than cores cannot do better
        return 0
    return min(n, cores * TASKS_PER_CORE)


def read_pages(spark, path: str, min_partitions: int = 0):
    """(pages DataFrame, page count): the pages table spread over the cores (`min_partitions` of them, 0: Spark's
    default parallelism) when the partitions Spark read it into would leave a core idle (`spread_partitions`):
    a small table read as one file would run on one core, a few large page files among small ones on one core
    while the others wait."""
    from pyspark.sql import functions as F

    from pagesieve.schemas import PAGES, spark_schema

    pages = spark.read.schema(spark_schema(PAGES)).parquet(path)
    # rows per partition in one pass that reads no column (the files' row counts), in place of count()
    counted = dict(pages.groupBy(F.spark_partition_id()).count().collect())
    rows = [counted.get(i, 0) for i in range(pages.rdd.getNumPartitions())]
    n_pages = sum(rows)
    tasks = spread_partitions(rows, min_partitions or spark.sparkContext.defaultParallelism)
    if tasks:
        pages = pages.repartition(tasks)
    return pages, n_pages


def read_method_pages(spark, path: str, spec, settings, report: Report):
    """(pages DataFrame, page count) for a job that runs `spec` over them (`read_pages`), with the archived
    stylesheets each page loads attached when the method renders pages and the job's `stylesheets` is on;
    the report gets how many pages had some (`stylesheets`)."""
    pages, n_pages = read_pages(spark, path, settings.min_partitions)
    if not (settings.stylesheets and spec.needs == "rendered"):
        return pages, n_pages
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    from pagesieve.udfs.adapter import RESOURCES_COLUMN
    from pagesieve.udfs.resources import attach_stylesheets, read_resources, resources_path

    resources = read_resources(spark, path)
    if resources is None:
        report.set(stylesheets={"table": None, "pages_with": 0, "served": 0})
        return pages, n_pages
    pages, attached = attach_stylesheets(pages, resources)
    attached = attached.persist(StorageLevel.MEMORY_AND_DISK)   # counted here, joined by the job
    counts = attached.agg(F.count("*").alias("pages"), F.sum(F.size(RESOURCES_COLUMN)).alias("served")).first()
    report.set(stylesheets={"table": resources_path(path), "pages_with": int(counts.pages),
                            "served": int(counts.served or 0)})
    return pages, n_pages


def method_ids(by_method: dict[str, int]) -> list[str]:
    """The methods (name/version) behind `documents.method`'s values, less a second opinion's `+peer`."""
    return sorted({m.partition("+")[0] for m in by_method})


def counts_by(df, column: str) -> dict[str, int]:
    """{value: rows} of one column (null as 'null') with one groupBy."""
    return {values[0]: n for values, n in grouped_counts(df, column)}


def executor_native(spark) -> dict[str, bool]:
    """Which optional C extensions an executor's Python loads (`models.page.native.native_status`, asked of one
    task): from the `--py-files` zip none can load, and the methods run their slower Python fallbacks."""
    from pagesieve.models.page.native import native_status

    return spark.sparkContext.parallelize([0], 1).map(lambda _: native_status()).first()


def grouped_counts(df, *columns: str) -> list[tuple[tuple[str, ...], int]]:
    """(values, rows) of each combination of `columns` (null as 'null'), with one groupBy: several counts of one
    table in one pass instead of one job each."""
    return [(tuple("null" if v is None else str(v) for v in r[:-1]), r[-1])
            for r in df.groupBy(*columns).count().collect()]
