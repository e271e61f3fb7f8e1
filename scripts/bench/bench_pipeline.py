"""The whole pipeline, WARC to JSONL, against DataTrove and a plain FastWARC loop: same input, same cores.

    .venv/bin/python scripts/bench/bench_pipeline.py                       # 1x (>= 10,000 records), 2 rounds
    .venv/bin/python scripts/bench/bench_pipeline.py --scale 4 --methods cnr --peers datatrove
    .venv/bin/python scripts/bench/bench_pipeline.py --methods cnr --peers "" --conf spark.driver.memory=1g --keep
    .venv/bin/python scripts/bench/bench_pipeline.py --methods cnr --peers "" --python /tmp/base/.venv/bin/python

Systems, each a fresh process tree (start-up included, as a corpus builder runs them):
  pagesieve-METHOD      `pagesieve run INPUT --out OUT --method METHOD --master local[CORES]` (ingest, clean,
                        export; "default" is conf's clean.method)
  pagesieve-METHOD@S    the same with a page deadline of S seconds (`clean.page_timeout_s`, 30 by default):
                        `trafilatura@1` runs trafilatura under DataTrove's own per-page timeout of 1 s
  datatrove             DataTrove's WarcReader -> Trafilatura -> JsonlWriter, LocalPipelineExecutor with
                        CORES tasks and CORES workers (its defaults otherwise)
  fastwarc-resiliparse  a plain loop, CORES processes over the files: FastWARC's ArchiveIterator, HTML
                        responses, resiliparse's encoding detection and extract_plain_text(main_content=True)
  fastwarc-trafilatura  the same loop with trafilatura.extract

The input is copies of the real WARC files in ../shared/data/warc (WAT/WET and ARC left out): enough copies
of the set for `--min-records` x `--scale` records, one file per copy of each archive, so that every system
can spread files over its cores; each copy after the first has record ids of its own (`copy_ids`), since a
page's id is its record id and the export refuses one id twice. Systems run alternately, the order rotated
each round; each run is sampled by `pagesieve.eval.tree_memory` (peak PSS and RSS of its whole process tree).
Prints medians over the rounds, records/s of input, pages in and documents out per system, memory per core,
and ratios against DataTrove (`--json` for the figures).

Why pages in and documents out differ between systems (docs/performance.md#the-whole-pipeline-against-datatrove):
pagesieve keeps every HTML page it reads as a row with a status (ok, empty, error, ...) and exports the ok
ones; DataTrove's reader skips records it cannot read or decode, and its extractor drops pages whose
extraction is empty or takes over its 1 s timeout (DataTrove 0.10.1); FastWARC reads no ARC files.

DataTrove is an optional extra: `pip install -e '.[bench]'`.
"""

from __future__ import annotations

import argparse
import builtins
import functools
import gzip
import hashlib
import importlib.util
import json
import math
import os
import re
import shutil
import statistics
import sys
import time
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from pagesieve.data import data_root
from pagesieve.eval.tree_memory import run_watched

ROOT = Path(__file__).resolve().parents[2]
PEERS = ("datatrove", "fastwarc-resiliparse", "fastwarc-trafilatura")
# the modules DataTrove's WARC reader and extractor import (it names them only when the pipeline starts)
DATATROVE_MODULES = ("datatrove", "warcio", "cchardet", "magic", "orjson", "trafilatura")
WARC_SUFFIXES = (".warc", ".warc.gz")
SKIPPED_SUFFIXES = (".wat.gz", ".wet.gz")
BUILD_RECIPE = 3     # the input folder's recipe, stamped beside it: raise it when copy_archive changes
BENCH_FILE = "_bench.json"    # what a child run writes: records, pages in, documents out


@dataclass(frozen=True)
class InputSet:
    """The benchmark's input folder: `copies` copies of every source archive, `records` WARC/ARC records in all."""

    folder: Path
    files: list[Path]
    copies: int
    records: int


def source_archives(source: Path, leave_out: Iterable[str] = ()) -> list[Path]:
    """The archives of `source` the benchmark copies: every WARC file, WAT/WET (no HTML) and ARC files left out
    (DataTrove's reader is a WARC reader and FastWARC reads no ARC; an ARC record has no id to make unique), and
    those named in `leave_out` (e.g. the ones a peer's reader stops in, so that every system reads the same pages).
    """
    leave_out = set(leave_out)
    archives = sorted(p for p in source.iterdir() if p.is_file() and p.name.endswith(WARC_SUFFIXES)
                      and not p.name.endswith(SKIPPED_SUFFIXES) and p.name not in leave_out)
    if unknown := leave_out - {p.name for p in source.iterdir()}:
        raise ValueError(f"--leave-out: no archive {sorted(unknown)[0]!r} in {source}")
    return archives


def records_per_archive(source: Path, archives: Iterable[Path]) -> dict[str, int]:
    """{file name: records} from the folder's manifest.jsonl (one line per record, counted by an independent
    scanner: FastWARC and warcio stop early on some of these files, so neither can count them)."""
    counts = dict.fromkeys((a.name for a in archives), 0)
    with open(source / "manifest.jsonl", encoding="utf-8") as fh:
        for line in fh:
            name = json.loads(line)["file"]
            if name in counts:
                counts[name] += 1
    return counts


def copies_needed(records_per_copy: int, min_records: int, scale: float) -> int:
    """Whole copies of the source set for at least `min_records * scale` records."""
    if records_per_copy <= 0:
        raise ValueError("the source archives hold no records")
    return max(1, math.ceil(min_records * scale / records_per_copy))


# A page's id is its WARC-TREC-ID or WARC-Record-ID, and the export refuses an id twice: copy c > 0 of an
# archive gets ids of its own, edited in place with the same length (block lengths and offsets stay valid):
# the last 4 characters of each WARC-Record-ID become "q" and c in 3 digits, the 4-digit part of each ClueWeb
# TREC-ID c (the originals' is 0000).
_RECORD_ID = re.compile(rb"(?im)^(WARC-Record-ID:[^\r\n]*?)([0-9a-z]{4})(>?[ \t]*\r?$)")
_TREC_ID = re.compile(rb"(?im)^(WARC-TREC-ID:[ \t]*clueweb\d\d-[a-z]*)(\d{4})")


def copy_ids(data: bytes, copy: int) -> bytes:
    """`data` (uncompressed WARC) with copy `copy`'s record and TREC ids (the same bytes for copy 0)."""
    if copy == 0:
        return data
    if copy > 999:
        raise ValueError(f"copy {copy}: at most 999 copies (a larger --min-records makes fewer, larger runs)")
    # "q" is no hex digit: an edited id never equals an original one (time-based uuids differ in their first part)
    data = _RECORD_ID.sub(lambda m: m[1] + b"q%03d" % copy + m[3], data)
    return _TREC_ID.sub(lambda m: m[1] + b"%04d" % copy, data)


def _gzip_members(data: bytes) -> Iterator[tuple[bytes, bool]]:
    """(uncompressed member, complete) for each gzip member of `data`; a truncated last member is incomplete."""
    while data:
        member = zlib.decompressobj(31)
        out = member.decompress(data) + member.flush()
        yield out, member.eof
        if not member.eof:
            return
        data = member.unused_data


def copy_archive(source: Path, target: Path, copy: int) -> None:
    """Write copy `copy` of a WARC: ids edited (`copy_ids`), gzip members kept as members (one per record stays
    one per record, a whole-file member stays one, a truncated one stays truncated)."""
    data = source.read_bytes()
    if copy == 0:
        try:
            os.link(source, target)
        except OSError:
            shutil.copyfile(source, target)
        return
    if not source.name.endswith(".gz"):
        target.write_bytes(copy_ids(data, copy))
        return
    with open(target, "wb") as fh:
        for member, complete in _gzip_members(data):
            packer = zlib.compressobj(6, zlib.DEFLATED, 31)
            fh.write(packer.compress(copy_ids(member, copy)))
            fh.write(packer.flush(zlib.Z_FINISH if complete else zlib.Z_SYNC_FLUSH))


def build_input(source: Path, folder: Path, min_records: int = 10_000, scale: float = 1.0,
                leave_out: Iterable[str] = ()) -> InputSet:
    """Fill `folder` with copies of `source`'s WARC files (`source_archives`), `c0003-<name>` being copy 3 of
    <name> (copy 0 a hard link or copy of the file, the others with ids of their own). Files already there are
    reused."""
    archives = source_archives(source, leave_out)
    counts = records_per_archive(source, archives)
    copies = copies_needed(sum(counts.values()), min_records, scale)
    # files are reused only from a build of this same recipe (a stamp names it): an older build's copies had
    # other ids under the same names
    stamp, stamp_file = json.dumps({"recipe": BUILD_RECIPE, "sources": [a.name for a in archives]}), \
        folder.parent / f"{folder.name}.json"       # beside the folder: every reader takes all the folder holds
    if folder.exists() and (not stamp_file.is_file() or stamp_file.read_text() != stamp):
        shutil.rmtree(folder)
    folder.mkdir(parents=True, exist_ok=True)
    stamp_file.write_text(stamp)
    files = []
    for c in range(copies):
        for archive in archives:
            target = folder / f"c{c:04d}-{archive.name}"
            if not target.exists():
                copy_archive(archive, target, c)
            files.append(target)
    wanted = {f.name for f in files}
    for stale in folder.iterdir():      # a larger earlier build must not leak into this one
        if stale.name not in wanted:
            stale.unlink()
    return InputSet(folder, files, copies, copies * sum(counts.values()))


# ---- the systems (each runs in its own process tree) -----------------------------------------------------------

def system_command(system: str, inputs: InputSet, out: Path, cores: int, conf: list[str],
                   python: str | None = None) -> list[str]:
    """The command line that runs `system` over `inputs` into `out` (pagesieve with the interpreter `python`, by
    default this one: another checkout's venv measures another revision)."""
    if system.startswith("pagesieve-"):
        method, _, deadline = system.removeprefix("pagesieve-").partition("@")
        cmd = [python or sys.executable, "-m", "pagesieve.jobs.cli", "run", str(inputs.folder), "--out", str(out),
               "--master", f"local[{cores}]", "--quiet", "--conf", "spark.ui.enabled=false"]
        cmd += [] if method == "default" else ["--method", method]
        cmd += ["--conf", f"clean.page_timeout_s={float(deadline)}"] if deadline else []
        for item in conf:
            cmd += ["--conf", item]
        return cmd
    if system in PEERS:
        return [sys.executable, __file__, "--child", system, "--input", str(inputs.folder), "--out", str(out),
                "--cores", str(cores)]
    raise ValueError(f"unknown system {system!r}: pagesieve-METHOD or one of {', '.join(PEERS)}")


def pagesieve_counts(out: Path) -> dict[str, int]:
    """records, pages in and documents out of a `pagesieve run` output, from its report."""
    report = json.loads((out / "_report.json").read_text("utf-8"))
    return {"records": report["input_records"], "pages_in": report["pages"],
            "docs_out": report["stages"]["export"]["exported"]["jsonl"],
            "by_status": report["by_status"], "run_s": report["wall_s"],
            "stages_s": {name: stage["wall_s"] for name, stage in report["stages"].items()}}


def export_digest(out: Path) -> tuple[int, str]:
    """(lines, sha256 of the sorted lines) of every JSONL file under `out` (.jsonl or .jsonl.gz): two runs wrote the
    same documents when the digests match, whatever order their tasks wrote them in."""
    import hashlib

    lines: list[bytes] = []
    for path in sorted(out.rglob("*.jsonl*")):
        opener = gzip.open if path.name.endswith(".gz") else open
        with opener(path, "rb") as fh:
            lines += [line.rstrip(b"\n") for line in fh if line.strip()]
    digest = hashlib.sha256()
    for line in sorted(lines):
        digest.update(line + b"\n")
    return len(lines), digest.hexdigest()


def _datatrove(inputs: Path, out: Path, cores: int) -> dict[str, int]:
    from datatrove.executor import LocalPipelineExecutor
    from datatrove.pipeline.extractors import Trafilatura
    from datatrove.pipeline.readers import WarcReader
    from datatrove.pipeline.writers import JsonlWriter
    class TolerantWarcReader(WarcReader):
        """DataTrove's WarcReader, except that a file warcio cannot go on with (ArchiveLoadFailed on the ClueWeb
        excerpts and the 2008 ARC, EOFError on the truncated record) ends that file, as in the FastWARC loop,
        instead of failing the whole task and with it the run."""

        def read_file(self, filepath: str):
            try:
                yield from super().read_file(filepath)
            except Exception as exc:
                print(f"datatrove: {filepath}: stopped: {str(exc)[:100]}", file=sys.stderr)

    logs = out / "logs"
    executor = LocalPipelineExecutor(
        pipeline=[TolerantWarcReader(str(inputs)), Trafilatura(), JsonlWriter(str(out / "jsonl"))],
        tasks=cores, workers=cores, logging_dir=str(logs))
    executor.run()
    stats = json.loads((logs / "stats.json").read_text("utf-8"))
    read = next(s for s in stats if "Warc" in s["name"])["stats"]["documents"]["total"]
    extractor = next(s for s in stats if "Trafilatura" in s["name"])["stats"]
    docs, _ = export_digest(out / "jsonl")
    # the extractor's own counts: pages over its per-page timeout, and pages it dropped (empty extraction)
    return {"records": -1, "pages_in": read, "docs_out": docs, "timeouts": extractor.get("timeout", 0),
            "dropped": extractor.get("dropped", 0)}


def _plain_file(job: tuple[str, str, str]) -> tuple[int, int, int]:
    """One archive through FastWARC and an extractor into one JSONL file: (records, HTML pages, documents)."""
    path, out, extractor = job
    from fastwarc.warc import ArchiveIterator
    from resiliparse.parse.encoding import bytes_to_str, detect_encoding

    if extractor == "trafilatura":
        import trafilatura

        def extract(html: str) -> str | None:
            return trafilatura.extract(html)
    else:
        from resiliparse.extract.html2text import extract_plain_text

        def extract(html: str) -> str | None:
            return extract_plain_text(html, main_content=True)

    records = pages = docs = 0
    with open(path, "rb") as fh, open(out, "w", encoding="utf-8") as sink:
        try:
            for record in ArchiveIterator(fh, parse_http=True):
                records += 1
                if record.headers.get("WARC-Type") != "response":
                    continue
                # a block without an HTTP header (the Wayback snapshots) is typed by the WARC header instead
                headers = record.http_headers if record.http_headers is not None else record.headers
                if "html" not in (headers.get("Content-Type") or "").lower():
                    continue
                pages += 1
                body = record.reader.read()
                text = extract(bytes_to_str(body, detect_encoding(body)))
                if text and text.strip():
                    docs += 1
                    sink.write(json.dumps({"id": record.record_id, "text": text}) + "\n")
        except Exception as exc:   # a file FastWARC cannot go on with: what was read counts, as for the others
            print(f"fastwarc: {Path(path).name}: stopped after {records} records: {exc}", file=sys.stderr)
    return records, pages, docs


def _plain(inputs: Path, out: Path, cores: int, extractor: str) -> dict[str, int]:
    from multiprocessing import Pool

    (out / "jsonl").mkdir(parents=True, exist_ok=True)
    jobs = [(str(p), str(out / "jsonl" / f"{p.name}.jsonl"), extractor) for p in sorted(inputs.iterdir())]
    with Pool(cores) as pool:
        counts = pool.map(_plain_file, jobs, chunksize=1)
    return {"records": sum(c[0] for c in counts), "pages_in": sum(c[1] for c in counts),
            "docs_out": sum(c[2] for c in counts)}


def run_child(system: str, inputs: Path, out: Path, cores: int) -> int:
    """`--child SYSTEM`: run one peer system and write its counts to OUT/_bench.json."""
    out.mkdir(parents=True, exist_ok=True)
    counts = _datatrove(inputs, out, cores) if system == "datatrove" else \
        _plain(inputs, out, cores, system.removeprefix("fastwarc-"))
    (out / BENCH_FILE).write_text(json.dumps(counts), "utf-8")
    return 0


# ---- the parent: rounds, medians, the table ---------------------------------------------------------------------

def missing_datatrove() -> list[str]:
    """DataTrove's modules that cannot be imported here (empty when its pipeline can run)."""
    return [m for m in DATATROVE_MODULES if importlib.util.find_spec(m) is None]


def measure(system: str, inputs: InputSet, out: Path, cores: int, conf: list[str], python: str | None = None) -> dict:
    """One run of `system`: wall time, peak memory of its tree, its counts (RuntimeError when it fails)."""
    if out.exists():
        shutil.rmtree(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    log = out.with_suffix(".log")
    with open(log, "wb") as fh:
        peak = run_watched(system_command(system, inputs, out, cores, conf, python), stdout=fh, stderr=fh)
    if peak.returncode != 0:
        tail = log.read_text("utf-8", errors="replace")[-2000:]
        raise RuntimeError(f"{system} exited {peak.returncode}; the end of {log}:\n{tail}")
    counts = pagesieve_counts(out) if system.startswith("pagesieve-") else \
        json.loads((out / BENCH_FILE).read_text("utf-8"))
    lines, digest = export_digest(out / "export" / "jsonl" if system.startswith("pagesieve-") else out / "jsonl")
    result = {**peak.as_dict(), **counts, "jsonl_lines": lines, "jsonl_sha256": digest}
    if "run_s" in counts:   # what the run's own report does not time: the interpreter, Spark's JVM and session
        result["startup_s"] = round(peak.wall_s - counts["run_s"], 2)
    return result


def summarize(runs: dict[str, list[dict]], records: int, cores: int) -> list[dict]:
    """One row per system: medians over its rounds, per-core figures and ratios against DataTrove (when run)."""
    rows = []
    for system, results in runs.items():
        wall = statistics.median(r["wall_s"] for r in results)
        pss = statistics.median(r["peak_pss_mib"] for r in results)
        rows.append({"system": system, "rounds": len(results), "wall_s": round(wall, 1),
                     "records_per_s": round(records / wall, 1), "records_per_s_core": round(records / wall / cores, 1),
                     "pages_in": sorted({r["pages_in"] for r in results}),
                     "docs_out": sorted({r["docs_out"] for r in results}),
                     "peak_pss_mib": round(pss),
                     "peak_rss_mib": round(statistics.median(r["peak_rss_mib"] for r in results)),
                     "pss_gb_per_core": round(pss / 1024 / cores, 2),
                     "pss_by_kind_mib": results[-1]["pss_by_kind_mib"],
                     "processes_at_peak": results[-1]["processes"],
                     "walls_s": [r["wall_s"] for r in results],
                     "same_output_every_round": len({r["jsonl_sha256"] for r in results}) == 1})
        if "stages_s" in results[0]:    # pagesieve: where the wall went (docs/performance.md, per stage)
            rows[-1]["startup_s"] = round(statistics.median(r["startup_s"] for r in results), 1)
            rows[-1]["stages_s"] = {name: round(statistics.median(r["stages_s"][name] for r in results), 1)
                                    for name in results[0]["stages_s"]}
    base = next((r for r in rows if r["system"] == "datatrove"), None)
    for row in rows:
        row["speed_vs_datatrove"] = round(base["wall_s"] / row["wall_s"], 2) if base else None
        row["memory_vs_datatrove"] = round(row["peak_pss_mib"] / base["peak_pss_mib"], 2) if base else None
    return rows


def _span(values: list[int]) -> str:
    return f"{values[0]:,}" if len(values) == 1 else f"{values[0]:,}-{values[-1]:,}"


def print_table(rows: list[dict], inputs: InputSet, cores: int, file=None) -> None:
    print = functools.partial(builtins.print, file=file or sys.stdout)   # noqa: A001 (the table goes to `file`)
    print(f"input: {len(inputs.files)} files, {inputs.copies} copies of the archive set, {inputs.records:,} records; "
          f"{cores} cores; {time.strftime('%Y-%m-%d %H:%M')}")
    print("| system | median s | records/s | records/s/core | pages in | docs out | peak tree PSS MiB | GB/core "
          "| x DataTrove speed | x DataTrove memory |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        ratios = [f"{r[k]:.2f}" if r[k] is not None else "" for k in ("speed_vs_datatrove", "memory_vs_datatrove")]
        print(f"| {r['system']} | {r['wall_s']:.1f} | {r['records_per_s']:.0f} | {r['records_per_s_core']:.0f} "
              f"| {_span(r['pages_in'])} | {_span(r['docs_out'])} | {r['peak_pss_mib']:,} | {r['pss_gb_per_core']:.2f} "
              f"| {ratios[0]} | {ratios[1]} |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--methods", default="default,trafilatura",
                    help="pagesieve methods, comma-separated (default: conf's clean.method, and trafilatura)")
    ap.add_argument("--peers", default=",".join(PEERS), help=f"comma-separated, from {', '.join(PEERS)} ('' for none)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--cores", type=int, default=2,
                    help="Spark's local[N], DataTrove's tasks and workers, loop processes")
    ap.add_argument("--scale", type=float, default=1.0, help="input size as a multiple of --min-records")
    ap.add_argument("--min-records", type=int, default=10_000)
    ap.add_argument("--source", default=None,
                    help="folder of archives with manifest.jsonl (default ../shared/data/warc)")
    ap.add_argument("--leave-out", default="", metavar="NAMES",
                    help="comma-separated archive names of --source not to copy (e.g. the ClueWeb excerpts, which "
                         "DataTrove's reader stops in: then every system reads the same pages)")
    ap.add_argument("--work", default="/tmp/pagesieve-bench-pipeline")
    ap.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE", help="passed to every pagesieve run")
    ap.add_argument("--python", default=None, help="the interpreter that runs pagesieve (default: this one); "
                    "another checkout's .venv/bin/python measures that revision")
    ap.add_argument("--keep", action="store_true", help="keep the last round's outputs under --work/out")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON instead of the table")
    ap.add_argument("--child", choices=PEERS, help=argparse.SUPPRESS)
    ap.add_argument("--input", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        return run_child(args.child, Path(args.input), Path(args.out), args.cores)
    peers = [p for p in args.peers.split(",") if p]
    unknown = [p for p in peers if p not in PEERS]
    if unknown:
        print(f"bench_pipeline: unknown peer {unknown[0]!r}; known: {', '.join(PEERS)}", file=sys.stderr)
        return 2
    if "datatrove" in peers and missing_datatrove():
        print(f"bench_pipeline: DataTrove's pipeline cannot run here (missing: {', '.join(missing_datatrove())}); "
              "install the bench extra (pip install -e '.[bench]') or leave it out with --peers", file=sys.stderr)
        return 2
    source = Path(args.source) if args.source else data_root() / "warc"
    if not (source / "manifest.jsonl").is_file():
        print(f"bench_pipeline: {source}: no manifest.jsonl (give --source, a folder of archives with one)",
              file=sys.stderr)
        return 2
    work = Path(args.work)
    leave_out = sorted(n for n in args.leave_out.split(",") if n)
    # another selection is another input: its own folder, so that the stamp never throws away the usual one
    tag = "-without-" + hashlib.sha256(",".join(leave_out).encode()).hexdigest()[:8] if leave_out else ""
    try:
        inputs = build_input(source, work / f"input-{args.scale:g}x{tag}", args.min_records, args.scale, leave_out)
    except ValueError as exc:
        print(f"bench_pipeline: {exc}", file=sys.stderr)
        return 2
    systems = [f"pagesieve-{m}" for m in args.methods.split(",") if m] + peers
    runs: dict[str, list[dict]] = {s: [] for s in systems}
    for r in range(args.rounds):
        for k in range(len(systems)):
            system = systems[(r + k) % len(systems)]
            out = work / "out" / system
            result = measure(system, inputs, out, args.cores, args.conf, args.python)
            runs[system].append(result)
            print(f"round {r + 1} {system}: {result['wall_s']:.1f} s, {result['peak_pss_mib']} MiB PSS "
                  f"{result['pss_by_kind_mib']}, pages in {result['pages_in']}, docs out {result['docs_out']}",
                  file=sys.stderr, flush=True)
            if not args.keep:
                shutil.rmtree(out, ignore_errors=True)
    rows = summarize(runs, inputs.records, args.cores)
    print_table(rows, inputs, args.cores, sys.stderr if args.json else sys.stdout)
    if args.json:
        print(json.dumps({"records": inputs.records, "files": len(inputs.files), "cores": args.cores,
                          "conf": args.conf, "date": time.strftime("%Y-%m-%d %H:%M"), "systems": rows,
                          "runs": runs}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
