"""The segment job in real Spark local mode: real benchmark pages and a hand-built layout rendered by the VIPS
segmenter under the process guard; every page accounted for, the layout's tree as the method gives it."""

from __future__ import annotations

import sys
from pathlib import Path

from pagesieve.jobs import segment
from pagesieve.jobs.common import Report, job_parser, load_config
from pagesieve.models.page import PageInput, prepare
from pagesieve.models.vips import VIPS
from pagesieve.schemas import SEGMENTS, spark_schema

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
import vips_layouts as layouts  # noqa: E402


def test_segment_writes_block_trees_and_accounts_for_every_page(spark, shared_data, tmp_path):
    real = ["102", "103", "106"]
    layouts.write_pages(shared_data, real, tmp_path / "pages")
    config = load_config(job_parser("segment", "").parse_args([]), ["vips"], kind="segmenter")
    spec = segment.method_spec(config)
    assert (spec.kind, spec.guard) == ("segmenter", "process")
    report = Report("segment", config)
    n = segment.run(spark, str(tmp_path / "pages"), str(tmp_path / "segments"), config, report, spec)
    data = report.finish(n, str(tmp_path / "segments"), quiet=True)

    written = spark.read.parquet(str(tmp_path / "segments"))
    assert written.schema == spark_schema(SEGMENTS)
    assert data["by_status"] == {"ok": 4, "empty": 1} and data["accounting"]["pages"]["ok"] is True
    assert n == written.where("status = 'ok'").count() and n > 4 * 3
    for i in real:   # every real page has a root, several blocks, and some main content
        blocks = written.where(f"page_id = 'dragnet/{i}'").collect()
        assert [b.block_id for b in blocks if b.parent_id is None] == ["1"]
        assert len(blocks) > 5 and any(b.is_main for b in blocks)
    # Spark gives the same tree as the method called directly
    with VIPS() as vips:
        expected = vips.process(prepare(PageInput(layouts.SIDEBAR.encode(), url="http://example.test/")).page)
    got = sorted(written.where("page_id = 'layout/sidebar'").collect(), key=lambda r: r.block_id)
    assert [(r.block_id, r.parent_id, r.doc, r.is_main, list(r.xpaths), r.text) for r in got] == sorted(
        (s.block_id, s.parent_id, s.doc, s.is_main, list(s.xpaths), s.text or None) for s in expected.segments)
    assert got[0].bbox.w == expected.segments[0].bbox.w
