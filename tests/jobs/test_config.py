"""Every bad option of every command fails before Spark starts or any data is read, with one line that
names the key (the job's `spark_session` is replaced by one that fails the test if it is ever reached)."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from pagesieve.jobs import common
from pagesieve.settings import ConfigError

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = str(ROOT / "data" / "sample" / "sample.warc.gz")
SOME_DIR = str(ROOT / "data")

CASES = [
    ("clean", ["--pages", SOME_DIR, "--out", "OUT", "--method", "cnrr"], "unknown method 'cnrr'"),
    ("clean", ["--pages", SOME_DIR, "--out", "OUT", "--method", "pagesieve.models.cnr:Nope"], "has no 'Nope'"),
    ("clean", ["--pages", SOME_DIR, "--out", "OUT", "--conf", "cnr.nosuch=1"], "unknown setting cnr.nosuch"),
    ("clean", ["--pages", SOME_DIR, "--out", "OUT", "--conf", "clean.page_timeout_s=abc"],
     "clean.page_timeout_s: expected float, got 'abc'"),
    ("clean", ["--pages", SOME_DIR, "--out", "OUT", "--conf", "cnrr.adjust=1"], "unknown section 'cnrr'"),
    ("clean", ["--pages", SOME_DIR, "--out", "OUT", "--conf", "cnr.top_fraction=2"], "cnr.top_fraction must be in"),
    ("clean", ["--pages", SOME_DIR, "--out", "OUT", "--conf", "clean.guard=thread"], "clean.guard must be one of"),
    ("clean", ["--pages", SOME_DIR, "--out", "OUT", "--conf", "clean.language_detector=cld9"],
     "clean.language_detector: language detector must be one of py3langid, resiliparse, none; got 'cld9'"),
    ("clean", ["--pages", SOME_DIR, "--out", "OUT", "--conf", "clean.language_min_chars=0"],
     "clean.language_min_chars must be > 0"),
    ("clean", ["--pages", SOME_DIR, "--out", "OUT", "--conf", "clean.method=amber"],
     "method 'amber' is an extractor; this job needs a cleaner"),
    ("extract", ["--pages", SOME_DIR, "--out", "OUT", "--method", "amber", "--schema", "nosuch"],
     "schema 'nosuch': no such packaged domain"),
    ("extract", ["--pages", SOME_DIR, "--out", "OUT", "--method", "amber", "--conf", "amber.max_tree_nodes=0"],
     "amber.max_tree_nodes must be >= 1"),
    ("clean", ["--pages", SOME_DIR, "--out", "OUT", "--method", "web2text", "--conf", "web2text.threads=abc"],
     "web2text.threads: expected int"),
    ("clean", ["--pages", "NOSUCH", "--out", "OUT"], "--pages NOSUCH: no such folder"),
    ("clean", ["--pages", SOME_DIR, "--out", "AFILE"], "is a file, expected a folder"),
    ("clean", ["--pages", SOME_DIR, "--out", "OUT", "--config", "NOSUCH.toml"], "--config NOSUCH.toml"),
    ("ingest", [SAMPLE, "--out", "OUT", "--conf", "ingest.max_body_bytes=-5"], "ingest.max_body_bytes must be > 0"),
    ("ingest", [SAMPLE, "--out", "OUT", "--conf", "ingest.nosuch=1"], "unknown setting ingest.nosuch"),
    ("ingest", [SAMPLE, "--out", "OUT", "--profile", "warcc"], "--profile: unknown profile 'warcc'"),
    ("ingest", ["NOSUCH.warc.gz", "--out", "OUT"], "matches no archive"),
    ("ingest", [SAMPLE, "--out", "AFILE"], "is a file, expected a folder"),
    ("export", ["--documents", SOME_DIR, "--out", "OUT", "--format", "csv"], "--format: unknown format(s) csv"),
    ("export", ["--documents", SOME_DIR, "--out", "OUT", "--conf", "export.shards=0"], "export.shards must be > 0"),
    ("export", ["--documents", "NOSUCH", "--out", "OUT"], "--documents NOSUCH: no such folder"),
    ("export", ["--records", "NOSUCH", "--out", "OUT"], "--records NOSUCH: no such folder"),
    ("extract", ["--pages", SOME_DIR, "--out", "OUT", "--method", "cnr"],
     "method 'cnr' is a cleaner; this job needs an extractor"),
    ("extract", ["--pages", SOME_DIR, "--out", "OUT", "--method", "pagesieve.models.cnr.method:CNR"],
     "is a cleaner; this job needs an extractor"),
    ("run", [SAMPLE, "--out", "OUT", "--method", "toy"], "unknown method 'toy'"),
    ("run", [SAMPLE, "--out", "OUT", "--conf", "export.include_title=maybe"], "export.include_title: expected bool"),
    ("run", [SAMPLE, "--out", "AFILE"], "is a file, expected a folder"),
    ("evaluate", ["--dataset", SOME_DIR, "--methods", "cnr,nope", "--out", "OUT"], "unknown method 'nope'"),
    ("run", ["--out", "OUT"], "give INPUT archives or --pages PAGES (one of the two)"),
    ("run", [SAMPLE, "--pages", SOME_DIR, "--out", "OUT"], "give INPUT archives or --pages PAGES"),
    ("run", ["--pages", "NOSUCH", "--out", "OUT"], "--pages NOSUCH: no such folder"),
    ("stream", ["--landing", "NOSUCH", "--out", "OUT"], "--landing NOSUCH: no such folder"),
    ("stream", ["--landing", SOME_DIR, "--out", "OUT", "--conf", "stream.max_files_per_trigger=0"],
     "stream.max_files_per_trigger must be > 0, got 0"),
    ("stream", ["--landing", SOME_DIR, "--out", "OUT", "--conf", "stream.nosuch=1"], "unknown setting stream.nosuch"),
    ("stream", ["--landing", SOME_DIR, "--out", "OUT", "--max-files", "0"], "--max-files must be > 0"),
    ("stream", ["--landing", SOME_DIR, "--out", "AFILE"], "--out AFILE: is a file"),
    ("evaluate", ["--dataset", "NOSUCH", "--methods", "cnr", "--out", "OUT"], "--dataset NOSUCH: no such"),
    ("evaluate", ["--dataset", SOME_DIR, "--methods", "cnr", "--out", "OUT", "--conf", "cnr.adjust=x"],
     "cnr.adjust: expected int"),
    ("filter", ["--documents", SOME_DIR, "--out", "OUT", "--conf", "filter.max_dup_line_frac=high"],
     "filter.max_dup_line_frac: expected float, got 'high'"),
    ("filter", ["--documents", SOME_DIR, "--out", "OUT", "--conf", "filter.min_words=-1"],
     "filter.min_words must be >= 0, got -1"),
    ("filter", ["--documents", SOME_DIR, "--out", "OUT", "--conf", 'filter.rules=["gopher_few_words","c4_nope"]'],
     "filter.rules: unknown rule(s) c4_nope; known: gopher_few_words,"),
    ("filter", ["--documents", SOME_DIR, "--out", "OUT", "--conf", "filter.nosuch=1"], "unknown setting filter.nosuch"),
    ("filter", ["--documents", SOME_DIR, "--out", "OUT", "--conf", "filter.min_partitions=-2"],
     "filter.min_partitions must be >= 0, got -2"),
    ("filter", ["--documents", SOME_DIR, "--out", "OUT", "--conf", "filter.stop_words=3"],
     "filter.stop_words: expected a list, got 3"),
    ("filter", ["--documents", "NOSUCH", "--out", "OUT"], "--documents NOSUCH: no such folder"),
    ("filter", ["--documents", SOME_DIR, "--out", "AFILE"], "--out AFILE: is a file"),
]


@pytest.mark.parametrize(("command", "argv", "message"), CASES, ids=[f"{c}-{i}" for i, (c, _, _) in enumerate(CASES)])
def test_bad_options_fail_before_spark_with_one_line(command, argv, message, tmp_path, monkeypatch):
    module = importlib.import_module(f"pagesieve.jobs.{command}")

    def no_spark(*args, **kwargs):
        raise AssertionError("Spark was started before the bad option was seen")

    monkeypatch.setattr(module, "spark_session", no_spark, raising=False)
    monkeypatch.setattr(common, "spark_session", no_spark)
    (tmp_path / "AFILE").write_text("a file")
    monkeypatch.chdir(tmp_path)
    with pytest.raises((ConfigError, FileNotFoundError)) as info:
        module.main(argv)
    assert message in str(info.value) and "\n" not in str(info.value)
    assert not (tmp_path / "OUT").exists()


def test_the_cli_prints_one_line_and_exits_2_without_starting_a_jvm(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "pagesieve.jobs.cli", "clean", "--pages", SOME_DIR,
                           "--out", str(tmp_path / "out"), "--method", "cnrr"], capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.splitlines() == [
        "pagesieve clean: error: unknown method 'cnrr'; known: all_text, blend, blocknet, boilerpy3, cascade, cnr, "
        "consensus, justext, readability, resiliparse, trafilatura, trafilatura_precision, vips, web2text (or a dotted "
        "path module:Class)"]


def test_a_method_of_the_wrong_kind_is_refused_by_the_job(monkeypatch):
    from pagesieve.jobs import clean
    from pagesieve.models import registry

    monkeypatch.setitem(registry.METHODS, "amber", registry.MethodEntry("amber", "extractor", "x:Amber"))
    with pytest.raises(ConfigError, match="^method 'amber' is an extractor; this job needs a cleaner: all_text,"):
        clean.main(["--pages", SOME_DIR, "--out", "OUT", "--method", "amber"])
