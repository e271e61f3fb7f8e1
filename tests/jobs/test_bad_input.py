"""Options that every page would then fail on, options with no effect, and unreadable inputs are refused before
Spark starts: exit 2, one line on stderr naming the option or file, no traceback, no output (hostile pass, item 12).

Run through the real CLI entry `pagesieve.jobs.cli.main(argv)` in the test process; the job's `spark_session` is
replaced by one that fails the test if it is ever reached.

Unreadable inputs: the tests run as root, for whom a mode-000 file or folder is still readable, so they use the
kinds of unreadable path that are unreadable to root as well: a FIFO where a file or table is expected (opening
one blocks), a folder where a file is expected, and a symlink to nothing. (The check also reports a mode-000
path for other users: it lists or opens the path and reports the OSError.)
"""

from __future__ import annotations

import importlib
import os
import shutil
import time
from pathlib import Path

import pytest

from pagesieve.jobs import cli, common

JOBS = ("clean", "extract", "segment", "stream", "ingest")

CASES = [
    # accepted, then every page failed
    ("clean", ["--method", "blocknet", "--conf", "blocknet.threshold=nan"], "blocknet.threshold"),
    ("clean", ["--conf", "clean.page_timeout_s=nan"], "clean.page_timeout_s"),
    ("segment", ["--conf", "vips.render_timeout_s=inf"], "vips.render_timeout_s"),
    ("segment", ["--conf", "vips.render_timeout_s=nan"], "vips.render_timeout_s"),
    ("segment", ["--conf", "vips.executable_path=/nonexistent"], "vips.executable_path"),
    ("segment", ["--conf", "vips.executable_path=/etc"], "vips.executable_path"),
    # accepted with no effect
    ("extract", ["--method", "amber", "--conf", "amber.min_content_ratio=2"], "amber.min_content_ratio"),
    ("extract", ["--method", "amber", "--conf", "amber.learned=/missing.json"], "amber.learned"),
    # tracebacks from the workers
    ("clean", ["--method", "blocknet", "--conf", "blocknet.device=tpu"], "blocknet.device"),
    ("clean", ["--method", "blocknet", "--conf", "blocknet.device=cuda:9"], "blocknet.device"),
    ("clean", ["--method", "blocknet", "--conf", "blocknet.threads=100000"], "blocknet.threads"),
    ("clean", ["--method", "blocknet", "--conf", "blocknet.model=/missing"], "blocknet.model"),
    ("clean", ["--method", "web2text", "--conf", "web2text.device=gpu"], "web2text.device"),
    ("clean", ["--method", "web2text", "--conf", "web2text.model=/missing"], "web2text.model"),
    ("extract", ["--method", "freedom", "--model", "missing"], "freedom.model"),
    ("extract", ["--method", "freedom", "--conf", "freedom.device=gpu"], "freedom.device"),
    ("extract", ["--method", "freedom", "--conf", "freedom.threads=100000"], "freedom.threads"),
    # unreadable inputs (see the module docstring)
    ("clean", ["--pages", "FIFO"], "--pages"),
    ("clean", ["--pages", "DANGLING"], "--pages"),
    ("stream", ["--landing", "FIFO"], "--landing"),
    ("ingest", ["FIFO"], "FIFO"),
    ("ingest", ["DANGLING"], "DANGLING"),
    ("crawl", ["--seeds", "FOLDER"], "--seeds"),
    ("crawl", ["--seeds", "FIFO"], "--seeds"),
    ("crawl", ["--seeds", "DANGLING"], "--seeds"),
]

# the argv each job needs around the case's own options (PAGES: an empty table folder)
BASE = {
    "clean": ["--pages", "PAGES", "--out", "OUT"],
    "extract": ["--pages", "PAGES", "--out", "OUT"],
    "segment": ["--pages", "PAGES", "--out", "OUT"],
    "stream": ["--landing", "PAGES", "--out", "OUT"],
    "ingest": ["--out", "OUT"],
    "crawl": ["--out", "OUT"],
}


def _argv(command: str, options: list[str]) -> list[str]:
    base = list(BASE[command])
    for flag in ("--pages", "--landing"):
        if flag in options and flag in base:     # the case's own input replaces the base one
            del base[base.index(flag):base.index(flag) + 2]
    return [command, *base, *options]


@pytest.fixture
def places(tmp_path, monkeypatch) -> Path:
    def refuse(*args, **kwargs):
        raise AssertionError("Spark was started although an option or input is bad")

    for name in JOBS:
        monkeypatch.setattr(importlib.import_module(f"pagesieve.jobs.{name}"), "spark_session", refuse, raising=False)
    monkeypatch.setattr(common, "spark_session", refuse)
    (tmp_path / "PAGES").mkdir()
    (tmp_path / "FOLDER").mkdir()
    os.mkfifo(tmp_path / "FIFO")
    (tmp_path / "DANGLING").symlink_to(tmp_path / "nothing-here")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(("command", "options", "names"), CASES,
                         ids=[f"{c}-{o[-1]}" for c, o, _ in CASES])
def test_bad_input_is_refused_with_one_line(command, options, names, places, capsys):
    started = time.perf_counter()
    code = cli.main(_argv(command, options))
    seconds = time.perf_counter() - started
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2, err
    assert len(err) == 1 and "Traceback" not in err[0] and names in err[0], err
    assert not (places / "OUT").exists()
    assert seconds < 10, f"{seconds:.1f} s"


def _error_as_another_user(check, *args) -> str:
    """The message `check(*args)` raises when run by a user who is not root and owns nothing here (a forked
    child that drops to uid/gid 65534 when the tests run as root, for whom mode 000 is no barrier)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:   # the child: never returns into pytest
        os.close(read)
        message = ""
        try:
            if os.geteuid() == 0:
                os.setgid(65534)
                os.setuid(65534)
            check(*args)
        except Exception as exc:
            message = f"{type(exc).__name__}: {exc}"
        os.write(write, message.encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as fh:
        message = fh.read().decode()
    os.waitpid(pid, 0)
    return message


def test_mode_000_inputs_are_refused_for_a_user_who_cannot_read_them():
    import tempfile

    from pagesieve.inputs import check_readable_file

    base = Path(tempfile.mkdtemp(prefix="pagesieve-mode000-"))    # not under pytest's 0700 tmp folder
    try:
        base.chmod(0o755)
        (base / "table").mkdir(mode=0o000)
        (base / "seeds.txt").write_text("http://example.com/\n")
        (base / "seeds.txt").chmod(0o000)
        (base / "table").chmod(0o000)
        assert _error_as_another_user(common.check_table, str(base / "table"), "--pages") == (
            f"ConfigError: --pages {base}/table: cannot be read: Permission denied")
        assert _error_as_another_user(check_readable_file, str(base / "seeds.txt"), "--seeds") == (
            f"ConfigError: --seeds {base}/seeds.txt: cannot be read: Permission denied")
    finally:
        (base / "table").chmod(0o755)
        shutil.rmtree(base)
