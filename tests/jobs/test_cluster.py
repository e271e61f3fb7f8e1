"""The cluster path: the unchanged job files on a real Spark standalone cluster, code shipped as a zip.

A master and two workers run on 127.0.0.1 (scripts/tools/local_cluster.sh, on free ports, stopped even
when the test fails). The executors run a Python that has every dependency but cannot import
pagesieve, so the UDFs only work if `--py-files dist/pagesieve.zip` really ships the code and the
conf/ data.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from types import SimpleNamespace

import pyarrow.parquet as pq
import pytest

from pagesieve.jobs import clean, dedup, ingest
from pagesieve.jobs import filter as quality_filter
from pagesieve.jobs.common import Report, job_parser, load_config
from pagesieve.models.page.native import NATIVE_MODULES

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "support"))
from cluster_util import (  # noqa: E402
    LocalCluster,
    build_zip,
    python_without_pagesieve,
    udf_executors,
    udf_task_ends,
)

SAMPLE_WARC = ROOT / "data" / "sample" / "sample.warc.gz"
pytestmark = pytest.mark.slow  # a standalone cluster


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    base = tmp_path_factory.mktemp("cluster")
    python = python_without_pagesieve(base / "execvenv")
    with LocalCluster(workers=2, base=base, executor_python=python) as running:
        yield running


@pytest.fixture(scope="module")
def zip_path() -> Path:
    return build_zip()


def text_hashes(documents: Path) -> dict[str, tuple[str, str]]:
    return {d["page_id"]: (d["status"], hashlib.sha256((d["text"] or "").encode()).hexdigest())
            for d in pq.read_table(documents, columns=["page_id", "status", "text"]).to_pylist()}


def corpus_rows(documents: Path) -> list[tuple]:
    columns = ["page_id", "removed_by", "quality_words", "dup_cluster", "dup_of"]
    return sorted(tuple(r.values()) for r in pq.read_table(documents, columns=columns).to_pylist())


@pytest.fixture(scope="module")
def sample_runs(cluster, zip_path, spark) -> SimpleNamespace:
    """The bundled sample on the cluster: `jobs/run.py SAMPLE --filter --dedup` (ingest, clean, filter, dedup and
    export in one application); and the same stages in local mode. One application for the five stages, not one
    each: every spark-submit starts a driver and two executors (tens of seconds on 2 cores)."""
    base = cluster.base
    apps_before = {p.name for p in cluster.events.glob("app-*")}
    cluster.submit("run", str(SAMPLE_WARC), "--out", str(base / "run"), "--filter", "--dedup", zip_path=zip_path)
    (run_app,) = {p.name for p in cluster.events.glob("app-*")} - apps_before

    config = load_config(job_parser("x", "").parse_args([]))
    local = base / "local"
    ingest.run(spark, [str(SAMPLE_WARC)], str(local / "pages"), config, Report("ingest", config))
    clean.run(spark, str(local / "pages"), str(local / "documents"), config, Report("clean", config))
    quality_filter.run(spark, str(local / "documents"), str(local / "filtered"), config, Report("filter", config))
    dedup.run(spark, str(local / "filtered"), str(local / "deduped"), config, Report("dedup", config))
    return SimpleNamespace(pages=base / "run" / "pages", run=base / "run", run_app=run_app, local=local)


def test_jobs_run_unchanged_on_a_standalone_cluster(cluster, sample_runs):
    on_cluster, local = text_hashes(sample_runs.run / "documents"), text_hashes(sample_runs.local / "documents")
    assert len(on_cluster) == 60
    assert on_cluster == local
    report = json.loads((sample_runs.run / "_report.json").read_text())
    assert report["stages"]["clean"]["accounting"]["pages"]["ok"] is True and sum(report["by_status"].values()) == 60
    # from the zip no C extension can load: the report says the executors ran every Python fallback
    assert report["stages"]["clean"]["native"] == dict.fromkeys(NATIVE_MODULES, False)

    # the clean stage's UDF tasks (the run's first UDF stage; filter's and dedup's follow) ran on every executor of
    # the cluster: one per worker (1 core each, spark.cores.max = workers), ids 0 and 1
    tasks = udf_task_ends(cluster.events)[sample_runs.run_app]
    first = min(t["Stage ID"] for t in tasks)
    executors = {t["Task Info"]["Executor ID"] for t in tasks if t["Stage ID"] == first}
    assert executors == {str(i) for i in range(cluster.workers)} == {"0", "1"}, executors


def test_without_the_zip_the_executors_cannot_run_the_udf(cluster, sample_runs):
    """The control that makes the tests here mean something: no --py-files, no pagesieve on executors."""
    with pytest.raises(RuntimeError, match="No module named 'pagesieve'"):
        cluster.submit("clean", "--pages", str(sample_runs.pages), "--out", str(cluster.base / "documents-no-zip"),
                       "--conf", "spark.task.maxFailures=1", zip_path=None)


def test_the_corpus_stages_run_unchanged_on_the_cluster(sample_runs):
    """filter and dedup under spark-submit: their UDFs (quality signals, MinHash signatures with datasketch,
    Jaccard) and the connected components run on the executors and give what local mode gives."""
    on_cluster, local = corpus_rows(sample_runs.run / "documents"), corpus_rows(sample_runs.local / "deduped")
    assert len(on_cluster) == 60 and on_cluster == local
    assert any(r[1] for r in on_cluster)          # the rules removed something, so the filter UDF really ran
    report = json.loads((sample_runs.run / "_report.json").read_text())
    assert set(report["stages"]) == {"ingest", "clean", "filter", "dedup", "export"}


def test_the_extract_job_runs_unchanged_on_the_cluster(cluster, zip_path, spark, shared_data):
    """AMBER under spark-submit: its schema, gazetteers and the `apted` dependency reach the executors."""
    import pyarrow as pa

    from pagesieve.jobs import extract
    from pagesieve.schemas import PAGES

    base, names = cluster.base, ["tb-ebay-1", "tb-ikea-1", "finn-car-tesla"]
    rows = [{"page_id": name, "url": f"http://listings.test/{name}", "content_type": "text/html",
             "body": (shared_data / "listings" / "pages" / f"{name}.html").read_bytes(), "ingest_status": "ok"}
            for name in names]
    (base / "listing_pages").mkdir()
    pq.write_table(pa.Table.from_pylist(rows, schema=PAGES), base / "listing_pages" / "part-0.parquet")
    cluster.submit("extract", "--pages", str(base / "listing_pages"), "--out", str(base / "records"),
                   "--method", "amber", "--schema", "products", zip_path=zip_path)

    config = load_config(job_parser("x", "").parse_args([]), ["amber"], kind="extractor")
    spec = extract.method_spec(config, "amber", "products")
    extract.run(spark, str(base / "listing_pages"), str(base / "local_records"), config, Report("extract", config),
                spec)

    def records(path: Path) -> list[tuple]:
        return sorted((r["page_id"], r["status"], r["record_xpath"] or "")
                      for r in pq.read_table(path, columns=["page_id", "status", "record_xpath"]).to_pylist())

    on_cluster = records(base / "records")
    assert on_cluster == records(base / "local_records")
    from pagesieve.models.page import parse_page
    from pagesieve.models.registry import build_method

    amber = build_method("amber", {"schema": "products"}, kind="extractor")
    one_by_one = sorted((row["page_id"], "ok", r.xpath) for row in rows
                        for r in amber.process(parse_page(row["body"])).records)
    assert on_cluster == one_by_one and len(one_by_one) >= 100       # the three pages' records, all found


def test_the_segment_job_runs_unchanged_on_the_cluster(cluster, zip_path, spark, shared_data):
    """VIPS under spark-submit: each executor starts Debian's Chromium itself (same machine), the visual-DOM
    script comes out of the zip, and every block of every page equals local mode's, boxes included."""
    from pagesieve.jobs import segment

    sys.path.insert(0, str(ROOT / "tests" / "models"))
    import vips_layouts as layouts

    base = cluster.base
    layouts.write_pages(shared_data, ["102", "103", "106"], base / "segment_pages", styled=True)
    apps_before = {p.name for p in cluster.events.glob("app-*")}
    cluster.submit("segment", "--pages", str(base / "segment_pages"), "--out", str(base / "segments"),
                   zip_path=zip_path)
    (segment_app,) = {p.name for p in cluster.events.glob("app-*")} - apps_before

    config = load_config(job_parser("x", "").parse_args([]), ["vips"], kind="segmenter")
    segment.run(spark, str(base / "segment_pages"), str(base / "local_segments"), config, Report("segment", config),
                segment.method_spec(config))

    def blocks(path: Path) -> list[tuple]:
        return sorted((r["page_id"], r["status"], r["block_id"] or "", r["parent_id"] or "", r["doc"] or 0,
                       tuple((r["bbox"] or {}).values()), tuple(r["xpaths"] or ()), r["text"] or "", bool(r["is_main"]))
                      for r in pq.read_table(path).to_pylist())

    on_cluster = blocks(base / "segments")
    assert on_cluster == blocks(base / "local_segments")
    statuses = {page: status for page, status, *_ in on_cluster}
    assert statuses == {"dragnet/102": "ok", "dragnet/103": "ok", "dragnet/106": "ok", "layout/sidebar": "ok",
                        "layout/styled": "ok", "bad/empty": "empty"}
    styled = [b[7] for b in on_cluster if b[0] == "layout/styled"]   # its stylesheet, served from _resources/
    assert any(layouts.PARA in text for text in styled) and not any("Buy now" in text for text in styled)
    assert sum(1 for b in on_cluster if b[0].startswith("dragnet/")) > 3 * 5     # real trees, not one root each
    report = json.loads((base / "segments" / "_report.json").read_text())
    assert report["accounting"]["pages"]["ok"] is True and report["stylesheets"]["pages_with"] == 1
    assert udf_executors(cluster.events)[segment_app]       # the browsers ran in the cluster's executors
