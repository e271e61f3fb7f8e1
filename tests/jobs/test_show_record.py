"""pagesieve show-record: the record behind a page row, found again from its source and offset."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pagesieve.archives import iter_records
from pagesieve.jobs import show_record

SAMPLE = str(Path(__file__).resolve().parents[2] / "data" / "sample" / "sample.warc.gz")


def test_prints_the_record_of_a_page_row(capsys):
    page = next(r for r in iter_records(SAMPLE) if r["skip_reason"] is None and "invalid-utf8" in r["url"])
    assert show_record.main([SAMPLE, str(page["source_offset"])]) == 0
    shown = capsys.readouterr().out
    assert page["url"] in shown and f"source_offset   {page['source_offset']}" in shown


@pytest.mark.slow
def test_body_flag_writes_the_exact_payload():
    pages = [r for r in iter_records(SAMPLE) if r["skip_reason"] is None][::15]
    for page in pages:
        cli = [str(Path(sys.executable).with_name("pagesieve")), "show-record", SAMPLE, str(page["source_offset"]),
               "--body"]
        assert subprocess.run(cli, capture_output=True, check=True).stdout == page["body"]


def test_an_offset_where_no_record_starts_is_a_clear_error():
    with pytest.raises(ValueError, match="no record starts at offset 5"):
        show_record.main([SAMPLE, "5"])
