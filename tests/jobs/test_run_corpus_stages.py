"""`pagesieve run --filter --dedup` (the real CLI, Spark local mode) on real article pages: a copy of one page
under another name and a page reduced to a cookie notice. The run report's `removed` must say what each stage
removed and add up, and the export must hold exactly the documents that no stage removed."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow  # the pagesieve CLI on Spark, in a subprocess

N_ARTICLES = 6


@pytest.fixture(scope="module")
def corpus_run(shared_data, tmp_path_factory):
    root = tmp_path_factory.mktemp("corpus")
    pages = root / "html"
    pages.mkdir()
    articles = sorted((shared_data / "l3s-gn1" / "input").glob("*.html"))[:N_ARTICLES]
    for path in articles:
        (pages / path.name).write_bytes(path.read_bytes())
    # the first article again under another name: the same text, a duplicate
    (pages / "zz-copy-of-first.html").write_bytes(articles[0].read_bytes())
    # a page whose only text is a cookie notice: too few words for the quality rules
    (pages / "zz-cookie-notice.html").write_text(
        "<html><body><div class='cookie'>We use cookies to improve your experience. Accept all cookies.</div>"
        "</body></html>", encoding="utf-8")
    out = root / "out"
    proc = subprocess.run([sys.executable, "-m", "pagesieve.jobs.cli", "run", str(pages), "--out", str(out),
                           "--filter", "--dedup", "--quiet"], capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads((out / "_report.json").read_text())
    ids = {json.loads(line)["id"] for f in (out / "export" / "jsonl").glob("*.jsonl") for line in f.open()}
    return articles, report, ids


def test_each_stage_says_what_it_removed_and_the_counts_add_up(corpus_run):
    articles, report, ids = corpus_run
    removed = report["removed"]
    assert list(report["stages"]) == ["ingest", "clean", "filter", "dedup", "export"]
    assert removed["dedup"] == 1
    assert sum(removed["filter"].values()) >= 1 and "gopher_few_words" in removed["filter"]
    assert removed["ok_documents"] == removed["exported"] + removed["dedup"] + sum(removed["filter"].values())
    assert removed["exported"] == len(ids)


def test_the_export_leaves_out_the_duplicate_and_the_cookie_notice(corpus_run):
    articles, report, ids = corpus_run
    names = {a.stem for a in articles}
    assert "zz-cookie-notice" not in ids
    # one of the two copies is kept (the longest text, then the smallest page_id), never both, never neither
    copies = {articles[0].stem, "zz-copy-of-first"} & ids
    assert len(copies) == 1
    assert ids - {"zz-copy-of-first"} <= names
