"""`--out` equal to an input, inside one, or holding one is refused by every job before anything is written and
before Spark starts, with one line; the input is left byte for byte as it was (hostile pass, item 5).

Run through the real CLI entry `pagesieve.jobs.cli.main(argv)` in the test process; the job's `spark_session` is
replaced by one that fails the test if it is ever reached, so none of these starts a JVM.
"""

from __future__ import annotations

import importlib
import os
import shutil
from pathlib import Path

import pytest

from pagesieve.jobs import cli, common
from pagesieve.settings import ConfigError

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample" / "sample.warc.gz"

# (command, argv with IN and OUT placeholders, the input's option as the message names it)
JOBS = [
    ("clean", ["--pages", "IN", "--out", "OUT"], "--pages"),
    ("extract", ["--pages", "IN", "--out", "OUT", "--method", "amber"], "--pages"),
    ("segment", ["--pages", "IN", "--out", "OUT"], "--pages"),
    ("export", ["--documents", "IN", "--out", "OUT"], "--documents"),
    ("export", ["--records", "IN", "--out", "OUT", "--format", "jsonl,parquet"], "--records"),
    ("dedup", ["--documents", "IN", "--out", "OUT"], "--documents"),
    ("filter", ["--documents", "IN", "--out", "OUT", "--split"], "--documents"),
    ("stream", ["--landing", "IN", "--out", "OUT", "--once"], "--landing"),
    ("run", ["--pages", "IN", "--out", "OUT"], "--pages"),
    ("run", ["IN", "--out", "OUT"], "INPUT"),
    ("ingest", ["IN", "--out", "OUT"], "INPUT"),
    ("evaluate", ["--dataset", "IN", "--methods", "cnr", "--out", "OUT", "--no-memory"], "--dataset"),
]


def _forms(data: Path, table: Path) -> dict[str, str]:
    """--out values that point at the input `table` (data/documents), inside it, or at a folder holding it."""
    (data / "link").symlink_to(table, target_is_directory=True)
    return {
        "same": str(table),
        "trailing-slash": str(table) + "/",
        "dotdot": f"{table}/sub/..",
        "symlink": str(data / "link"),
        "file-uri": f"file://{table}",
        "relative": os.path.relpath(table),
        "parent": str(data),          # `run` writes data/documents: the input itself
        "inside": f"{table}/sub",
    }


FORMS = ["same", "trailing-slash", "dotdot", "symlink", "file-uri", "relative", "parent", "inside"]


def _snapshot(root: Path) -> dict[str, bytes | str]:
    """Every file's bytes and every link's target under `root` (links not followed)."""
    seen: dict[str, bytes | str] = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder, name)
            rel = str(path.relative_to(root))
            if path.is_symlink():
                seen[rel] = f"-> {os.readlink(path)}"
            elif path.is_dir():
                seen[rel] = "dir"
            else:
                seen[rel] = path.read_bytes()
    return seen


@pytest.fixture
def no_spark(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("Spark was started although --out overlaps an input")

    for name in {job for job, _, _ in JOBS}:
        monkeypatch.setattr(importlib.import_module(f"pagesieve.jobs.{name}"), "spark_session", refuse, raising=False)
    monkeypatch.setattr(common, "spark_session", refuse)


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize(("command", "argv", "in_flag"), JOBS, ids=[f"{c}{a[0]}" for c, a, _ in JOBS])
def test_out_over_an_input_is_refused_before_anything_is_written(command, argv, in_flag, form, tmp_path,
                                                                 monkeypatch, capsys, no_spark):
    data = tmp_path / "data"
    table = data / "documents"
    table.mkdir(parents=True)
    shutil.copy(SAMPLE, table / "sample.warc.gz")           # an archive for ingest and run, bytes for the others
    (table / "part-00000.parquet").write_bytes(b"PAR1 not really PAR1")
    (table / "gold").mkdir()
    monkeypatch.chdir(tmp_path)
    out = _forms(data, table)[form]
    before = _snapshot(tmp_path)
    args = [str(table) if a == "IN" else out if a == "OUT" else a for a in argv]
    code = cli.main([command, *args])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2, err
    assert len(err) == 1 and "Traceback" not in err[0], err
    assert f"--out {out}" in err[0] and in_flag in err[0] and "would overwrite" in err[0], err
    assert _snapshot(tmp_path) == before


def test_an_input_beside_the_written_parts_of_out_is_accepted():
    # `run --pages out/pages --out out` cleans a table the run's own ingest wrote: run writes documents/, export/
    common.check_apart("/x/out", [("--pages", "/x/out/pages")], writes=("documents", "export"))
    with pytest.raises(ConfigError, match="holds --pages /x/out/documents/a"):
        common.check_apart("/x/out", [("--pages", "/x/out/documents/a")], writes=("documents", "export"))
    common.check_apart("/x/outer", [("--pages", "/x/out")])     # a shared prefix is not a parent


@pytest.mark.parametrize(("a", "b"), [
    ("s3://Bucket/a/b", "s3://bucket//a/./b/"),
    ("S3://bucket/a", "s3://bucket/a/c/.."),
    ("hdfs://nn:8020/t", "hdfs://NN:8020/t/"),
])
def test_remote_uris_compare_by_their_normalised_string(a, b):
    assert common.location(a) == common.location(b)
    with pytest.raises(ConfigError, match="is the same path as --documents"):
        common.check_apart(a, [("--documents", b)])


def test_remote_and_local_paths_never_overlap(tmp_path):
    common.check_apart("s3://bucket/x", [("--pages", str(tmp_path))])
    common.check_apart(str(tmp_path), [("--pages", "s3://bucket" + str(tmp_path))])


def test_vips_show_refuses_to_draw_over_its_page(tmp_path, capsys):
    page = tmp_path / "page.html"
    page.write_bytes(b"<html><body><p>a page</p></body></html>")
    code = cli.main(["vips-show", str(page), "--out", str(page)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "is the same path as URL_OR_FILE" in err[0], err
    assert page.read_bytes() == b"<html><body><p>a page</p></body></html>"
