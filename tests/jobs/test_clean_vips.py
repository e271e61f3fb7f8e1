"""`pagesieve clean --method vips` in real Spark local mode: pages rendered by the worker's Chromium, one documents
row per page, the main column's text of a hand-built layout as the cleaner gives it in this process."""

from __future__ import annotations

import sys
from pathlib import Path

from pagesieve.jobs import clean
from pagesieve.jobs.common import Report, job_parser, load_config
from pagesieve.models.page import PageInput, prepare
from pagesieve.models.vips import VIPSCleaner
from pagesieve.schemas import DOCUMENTS, spark_schema

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
import vips_layouts as layouts  # noqa: E402


def test_clean_with_vips_writes_the_main_column_and_accounts_for_every_page(spark, shared_data, tmp_path):
    real = ["102", "106"]
    rows = layouts.write_pages(shared_data, real, tmp_path / "pages")
    config = load_config(job_parser("clean", "").parse_args([]), ["vips"], kind="cleaner")
    spec = clean.method_spec(config, "vips")
    assert spec.guard == "process"   # a rendering method's browser never lives in the Spark worker (clean.guard: alarm)
    report = Report("clean", config)
    n = clean.run(spark, str(tmp_path / "pages"), str(tmp_path / "docs"), config, report, spec)
    data = report.finish(n, str(tmp_path / "docs"), quiet=True)

    written = spark.read.parquet(str(tmp_path / "docs"))
    assert written.schema == spark_schema(DOCUMENTS)
    docs = {r.page_id: r for r in written.collect()}
    assert sorted(docs) == sorted(r["page_id"] for r in rows) and data["accounting"]["pages"]["ok"] is True
    assert docs["bad/empty"].status == "empty"
    assert all(docs[f"dragnet/{i}"].status == "ok" and docs[f"dragnet/{i}"].n_words > 50 for i in real)
    sidebar = docs["layout/sidebar"]
    assert sidebar.method.startswith("vips/") and layouts.PARA in sidebar.text and "Sport" not in sidebar.text
    with VIPSCleaner() as cleaner:   # the same text as the cleaner gives in this process
        here = cleaner.process(prepare(PageInput(layouts.SIDEBAR.encode(), url="http://example.test/")).page)
    assert sidebar.text == here.text and sidebar.language == "en"
