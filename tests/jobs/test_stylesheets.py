"""Archived stylesheets from ingest to the renderer, in real Spark local mode, on the Internet Archive's 2008 crawl
of its own site (its pages and their stylesheets in one WARC): ingest keeps them beside the pages, `segment` and
`clean --method vips` serve each page its own, and the layout changes exactly on the pages that load one."""

from __future__ import annotations

import shutil

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from pagesieve.jobs import clean, ingest, segment
from pagesieve.jobs.common import Report, job_parser, load_config
from pagesieve.models.page import SubResource, page_stylesheets, resource_key, stylesheet_urls

IA_WARC = "warc/ia-2008-archive-org-heritrix-warc017.warc.gz"


@pytest.fixture(scope="module")
def ia_pages(spark, shared_data, tmp_path_factory):
    """(a pages table of 10 of the archive's pages with its `_resources`, {page_id: stylesheets it loads})."""
    folder = tmp_path_factory.mktemp("ia")
    config = load_config(job_parser("ingest", "").parse_args([]), [])
    report = Report("ingest", config)
    ingest.run(spark, [str(shared_data / IA_WARC)], str(folder / "all"), config, report)
    data = report.finish(140, str(folder / "all"), quiet=True)
    assert data["pages"] == 140 and data["skipped"]["non_html"] == 159   # stylesheets are still not pages
    assert data["stylesheets_kept"] == 4
    report = Report("ingest", config)   # redone: the archive's stylesheets are replaced, never added twice
    ingest.run(spark, [str(shared_data / IA_WARC)], str(folder / "all"), config, report, force=True)
    assert report.data["stylesheets_kept"] == 4 and len(list((folder / "all" / "_resources").iterdir())) == 1

    kept = pq.read_table(folder / "all" / "_resources").to_pylist()
    assert len(kept) == 4
    archived = {r["url"] for r in kept}
    assert archived == {f"http://www.archive.org/stylesheets/{n}.css" for n in ("archive", "details", "toppage",
                                                                                  "players")}
    table = pq.read_table(folder / "all")
    pages = table.to_pylist()
    loads = {p["page_id"]: [u for u in stylesheet_urls(p["body"], p["url"]) if u in archived] for p in pages}
    with_css = sorted((p for p in pages if loads[p["page_id"]]), key=lambda p: (-len(loads[p["page_id"]]), p["url"]))
    without = sorted((p for p in pages if not loads[p["page_id"]] and p["body"]), key=lambda p: p["url"])
    subset = with_css[:6] + without[:4]
    (folder / "some").mkdir()
    chosen = table.filter(pc.is_in(table["page_id"], pa.array([p["page_id"] for p in subset])))
    pq.write_table(chosen, folder / "some" / "part-0.parquet")
    shutil.copytree(folder / "all" / "_resources", folder / "some" / "_resources")
    return folder / "some", {p["page_id"]: loads[p["page_id"]] for p in subset}


def _segment(spark, pages, out, stylesheets: bool) -> tuple[dict, dict[str, list]]:
    args = job_parser("segment", "").parse_args(["--conf", f"segment.stylesheets={str(stylesheets).lower()}"])
    config = load_config(args, ["vips"], kind="segmenter")
    report = Report("segment", config)
    n = segment.run(spark, str(pages), str(out), config, report, segment.method_spec(config))
    data = report.finish(n, str(out), quiet=True)
    trees: dict[str, list] = {}
    for r in sorted(spark.read.parquet(str(out)).collect(), key=lambda r: (r.page_id, r.block_id or "")):
        trees.setdefault(r.page_id, []).append((r.block_id, r.bbox, r.text, r.status))
    return data, trees


def test_segment_serves_each_page_its_archived_stylesheets(spark, ia_pages, tmp_path):
    pages, loads = ia_pages
    styled, with_css = _segment(spark, pages, tmp_path / "styled", True)
    plain, without_css = _segment(spark, pages, tmp_path / "plain", False)

    loading = {p for p, urls in loads.items() if urls}
    assert len(loading) == 6 and len(loads) == 10
    assert styled["stylesheets"] == {"table": f"{pages}/_resources", "pages_with": 6,
                                     "served": sum(len(u) for u in loads.values())}
    assert "stylesheets" not in plain
    assert styled["by_status"] == plain["by_status"] and sum(styled["by_status"].values()) == 10
    for page_id in loads:   # the layout changes exactly where a stylesheet was served
        assert (with_css[page_id] != without_css[page_id]) == (page_id in loading), page_id


def test_clean_with_vips_reports_the_stylesheets_it_served(spark, ia_pages, tmp_path):
    pages, loads = ia_pages
    config = load_config(job_parser("clean", "").parse_args([]), ["vips"], kind="cleaner")
    report = Report("clean", config)
    n = clean.run(spark, str(pages), str(tmp_path / "docs"), config, report, clean.method_spec(config, "vips"))
    data = report.finish(n, str(tmp_path / "docs"), quiet=True)
    assert data["stylesheets"]["pages_with"] == 6 and data["accounting"]["pages"]["ok"] is True
    # a method that does not render pages never reads them
    report = Report("clean", config)
    n = clean.run(spark, str(pages), str(tmp_path / "cnr"), config, report, clean.method_spec(config, "cnr"))
    assert "stylesheets" not in report.finish(n, str(tmp_path / "cnr"), quiet=True)


def test_the_join_attaches_what_page_stylesheets_finds_with_imports_and_the_latest_capture(spark, ia_pages):
    """The Spark join against the plain-Python `page_stylesheets`, on the real pages, with a stylesheet that
    imports another and an older capture of one added to the real four."""
    from datetime import UTC, datetime

    from pagesieve.schemas import RESOURCES, spark_schema
    from pagesieve.udfs.resources import attach_stylesheets

    pages_path, loads = ia_pages
    real = pq.read_table(pages_path / "_resources").to_pylist()
    main_css = next(r for r in real if r["url"].endswith("/archive.css"))
    extra = [{**main_css, "body": b'@import url("print/extra.css");\n' + main_css["body"]},
             {**main_css, "body": b"p { color: red }", "fetch_time": datetime(2001, 1, 1, tzinfo=UTC)},
             {**main_css, "url": "http://WWW.archive.org:80/stylesheets/print/extra.css", "body": b"h1 { margin: 0 }"}]
    resources = [r for r in real if r is not main_css] + extra
    archived = {resource_key(r["url"]): SubResource(r["url"], r["body"], r["content_type"])
                for r in resources if r["fetch_time"].year > 2001}
    pages = spark.read.parquet(str(pages_path))
    joined, _ = attach_stylesheets(pages, spark.createDataFrame(resources, spark_schema(RESOURCES)))
    got = {r.page_id: sorted((s.url, s.body) for s in r.resources or []) for r in joined.collect()}
    expected = {p["page_id"]: sorted((s.url, s.body) for s in page_stylesheets(p["body"], p["url"], archived))
                for p in pq.read_table(pages_path).to_pylist()}
    assert got == expected and len(got) == 10
    assert sum(1 for v in got.values() if any(url.endswith("extra.css") for url, _ in v)) == 6   # all that load
    assert all(body != b"p { color: red }" for v in got.values() for _, body in v)            # archive.css
