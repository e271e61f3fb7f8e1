"""`ingest.codec`: the Parquet codec of the pages files (zstd by default), checked, and read back by Spark."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pagesieve.archives.pages_writer import write_archive_pages
from pagesieve.jobs import ingest
from pagesieve.jobs.common import ConfigError, Report, job_parser, load_config, read_pages
from pagesieve.schemas import PAGES_CODECS

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = str(ROOT / "data" / "sample" / "sample.warc.gz")


def _config(*conf: str):
    return load_config(job_parser("ingest", "").parse_args([f"--conf={c}" for c in conf]))


def _codecs(out: Path) -> set[str]:
    files = sorted(out.glob("part-*.parquet"))
    assert files
    return {pq.ParquetFile(f).metadata.row_group(0).column(0).compression for f in files}


def test_the_default_codec_stays_zstd() -> None:
    assert _config().job("ingest").codec == "zstd"


def test_an_unknown_codec_is_one_line_naming_the_key() -> None:
    with pytest.raises(ConfigError, match=r"ingest\.codec.*zstd, snappy, lz4, gzip, none.*'brotli'"):
        _config("ingest.codec=brotli")


@pytest.mark.parametrize("codec", ["zstd", "snappy", "none"])
def test_the_pages_files_use_the_codec(codec: str, tmp_path: Path) -> None:
    marker = write_archive_pages(SAMPLE, str(tmp_path), max_body_bytes=20_000_000, rows_per_file=2000, codec=codec)
    assert marker["records"] == 124
    assert _codecs(tmp_path) == {"UNCOMPRESSED" if codec == "none" else codec.upper()}


@pytest.mark.slow
@pytest.mark.parametrize("codec", PAGES_CODECS)
def test_spark_reads_pages_of_every_codec(spark, codec: str, tmp_path: Path) -> None:
    config = _config(f"ingest.codec={codec}")
    report = Report("ingest", config)
    n = ingest.run(spark, [SAMPLE], str(tmp_path / "pages"), config, report)
    pages, count = read_pages(spark, str(tmp_path / "pages"))
    assert n == count == 60
    assert pages.where("body is not null").count() == 60
