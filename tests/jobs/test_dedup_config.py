"""dedup's settings and arguments fail before Spark starts, with one line naming the key (no Spark here)."""

from __future__ import annotations

import pytest

from pagesieve.jobs import common, dedup
from pagesieve.settings import ConfigError


@pytest.mark.parametrize(("argv", "message"), [
    (["--conf", "dedup.bands=30"], "dedup.bands * rows must be <= num_perm, got 30 * 5 > 128"),
    (["--conf", "dedup.threshold=1.5"], "dedup.threshold must be in (0, 1]"),
    (["--conf", "dedup.keep=newest"], "dedup.keep must be one of longest, first_id"),
    (["--conf", "dedup.num_perm=abc"], "dedup.num_perm: expected int"),
    (["--conf", "dedup.shingles=3"], "unknown setting dedup.shingles"),
    (["--conf", "dedup.max_rounds=0"], "dedup.max_rounds must be > 0"),
    (["--documents", "NOSUCH"], "--documents NOSUCH: no such folder"),
])
def test_bad_dedup_options_fail_before_spark(argv, message, tmp_path, monkeypatch):
    def no_spark(*args, **kwargs):
        raise AssertionError("Spark was started before the bad option was seen")

    monkeypatch.setattr(common, "spark_session", no_spark)     # run_table_job starts Spark through it
    monkeypatch.chdir(tmp_path)
    (tmp_path / "docs").mkdir()
    base = {"--documents": "docs", "--out": "OUT"}
    for flag, value in zip(argv[::2], argv[1::2], strict=True):
        if flag in base:
            base[flag] = value
    extra = [x for flag, value in zip(argv[::2], argv[1::2], strict=True) if flag not in base for x in (flag, value)]
    with pytest.raises(ConfigError) as info:
        dedup.main([x for kv in base.items() for x in kv] + extra)
    assert message in str(info.value) and "\n" not in str(info.value)
    assert not (tmp_path / "OUT").exists()


def test_the_defaults_load():
    settings = dedup.load_config(dedup.job_parser("dedup", "").parse_args([])).job("dedup")
    assert (settings.num_perm, settings.bands, settings.rows, settings.threshold) == (128, 25, 5, 0.8)
