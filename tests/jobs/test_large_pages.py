"""A pages table of large pages, written by ingest with its defaults, is read back by clean (hostile-pass issue,
item 11): 150 pages of 16 MB in one Parquet row group failed clean with a JVM out-of-memory ("Cannot reserve
1008049014 bytes"). Row groups are now cut by body bytes (`schemas.PAGES_ROW_GROUP_BYTES`), and Spark's Arrow
batches by bytes too (`spark.sql.execution.arrow.maxBytesPerBatch` in conf/spark.toml). Kept to 40 pages of
16 MB (640 MB of bodies) for a 2-core CI machine; scripts/bench_page_memory.py has the memory figures."""

from __future__ import annotations

import io

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pagesieve.jobs import clean, ingest
from pagesieve.jobs.common import Report, job_parser, load_config
from pagesieve.schemas import PAGES_ROW_GROUP_BYTES

PAGES, PAGE_BYTES = 40, 16_000_000


def large_pages_warc(path) -> None:
    """40 responses of 16 MB: a paragraph and a long inline script (compressible: the archive stays ~2 MB)."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    script = (b"var x = 'lorem ipsum dolor sit amet consectetur';\n" * (PAGE_BYTES // 50 + 1))[:PAGE_BYTES]
    with open(path, "wb") as fh:
        writer = WARCWriter(fh, gzip=True)
        for i in range(PAGES):
            body = (b"<html><head><title>page %d</title></head><body><p>Paragraph of page %d.</p><script>" % (i, i)
                    + script + b"</script></body></html>")
            headers = StatusAndHeaders("200 OK", [("Content-Type", "text/html; charset=utf-8")], protocol="HTTP/1.1")
            writer.write_record(writer.create_warc_record(f"http://big.test/{i}", "response",
                                                          payload=io.BytesIO(body), http_headers=headers))


@pytest.mark.slow
def test_a_table_of_large_pages_written_by_ingest_is_read_by_clean(spark, tmp_path):
    large_pages_warc(tmp_path / "large.warc.gz")
    config = load_config(job_parser("clean", "").parse_args([]))
    pages, documents = str(tmp_path / "pages"), str(tmp_path / "documents")
    assert ingest.run(spark, [str(tmp_path / "large.warc.gz")], pages, config, Report("ingest", config)) == PAGES
    metas = [pq.ParquetFile(part).metadata for part in sorted((tmp_path / "pages").glob("part-*.parquet"))]
    sizes = [m.row_group(i).total_byte_size for m in metas for i in range(m.num_row_groups)]
    assert len(sizes) == 10 and max(sizes) <= PAGES_ROW_GROUP_BYTES, sizes    # 4 pages of 16 MB a row group
    assert [m.num_row_groups for m in metas] == [8, 2]                       # 512 MiB of bodies a file

    def batch_sizes(batches):       # defined here: Spark pickles it by value (the test module is not importable)
        for batch in batches:
            yield pa.RecordBatch.from_pylist([{"rows": batch.num_rows, "bytes": batch.nbytes}])

    # what clean's UDF gets: Arrow batches bounded by bytes (spark.sql.execution.arrow.maxBytesPerBatch), not only
    # by rows (maxRecordsPerBatch 256: 4 GB of such pages)
    batches = spark.read.parquet(pages).select("body").mapInArrow(batch_sizes, "rows long, bytes long").collect()
    assert sum(b.rows for b in batches) == PAGES and max(b.bytes for b in batches) <= 64 * 2**20 + PAGE_BYTES

    assert clean.run(spark, pages, documents, config, Report("clean", config), clean.method_spec(config)) == PAGES
    docs = spark.read.parquet(documents).select("status", "text").collect()
    assert [d.status for d in docs] == ["ok"] * PAGES and all("Paragraph of page" in d.text for d in docs)
