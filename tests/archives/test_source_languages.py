"""pages.source_languages: Common Crawl's CLD2 verdict moved from the metadata record onto its page."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from pagesieve.archives import iter_records, read_record_at
from pagesieve.archives.source_languages import attach_verdicts, metadata_verdict
from pagesieve.data import data_root

WARC_DIR = data_root() / "warc"
CC = WARC_DIR / "cc-main-2024-22-whirlwind.warc.gz"
RESPONSE_ID = "<urn:uuid:2aabeff2-67f5-4608-8466-e87c6296e2b6>"  # manifest.jsonl, record 2


def cc_rows(path: Path = CC, **kwargs) -> list[dict]:
    return list(iter_records(str(path), **kwargs))


def test_the_common_crawl_page_carries_the_cld2_verdict_of_its_metadata_record():
    rows = cc_rows()
    assert [r["skip_reason"] for r in rows] == ["warcinfo", "request", None, "metadata"]  # order and count kept
    page = rows[2]
    assert page["page_id"] == RESPONSE_ID
    verdict = json.loads(page["source_languages"])
    assert verdict["reliable"] is False and verdict["text-bytes"] == 3080
    assert [lang["code"] for lang in verdict["languages"]] == ["es"]
    assert type(page["source_languages"]) is str and page["source_languages"] == rows[3]["source_languages"]


@pytest.mark.parametrize("how", ["lenient reader", "plain file"])
def test_every_reader_path_attaches_the_same_verdict(tmp_path, how):
    fast = cc_rows()
    if how == "lenient reader":
        rows = cc_rows(profile="clueweb09")
    else:
        plain = tmp_path / "cc.warc"
        plain.write_bytes(gzip.decompress(CC.read_bytes()))
        rows = cc_rows(plain)
    assert [r["source_languages"] for r in rows] == [r["source_languages"] for r in fast]


def test_show_record_reads_on_to_the_verdict():
    page = cc_rows()[2]
    assert read_record_at(str(CC), page["source_offset"]) == page


@pytest.mark.parametrize("name", ["clueweb09-en0000-00-excerpt.warc.gz", "clueweb12-0000tw-00-excerpt.warc.gz",
                                  "ia-2008-archive-org-heritrix-warc017.warc.gz", "commoncrawl-2008-arc-sample.arc",
                                  "wget-2024-sample-0000.warc.gz"])
def test_archives_without_a_verdict_give_null(name):
    rows = cc_rows(WARC_DIR / name)
    assert [r for r in rows if r["skip_reason"] is None]
    assert all(r["source_languages"] is None for r in rows)  # Heritrix and Wget metadata records have no cld2 line


def test_a_metadata_record_naming_another_response_is_not_attached():
    def row(skip, page_id, url, verdict=None):
        return {"skip_reason": skip, "page_id": page_id, "url": url, "source_languages": verdict}

    verdict = metadata_verdict(b"languages-cld2: {\"x\":1}\r\n", {"WARC-Concurrent-To": "<other>"}.get)
    rows = list(attach_verdicts([row(None, "<a>", "u"), row("metadata", "<m>", "u", verdict)]))
    assert rows[0]["source_languages"] is None and rows[1]["source_languages"] == "{\"x\":1}"
    unnamed = metadata_verdict(b"fetchTimeMs: 1\nlanguages-cld2: {\"y\":2}\n", {}.get)
    rows = list(attach_verdicts([row(None, "<a>", "u"), row("request", "<r>", "u"),
                                 row("metadata", "<m>", "u", unnamed)]))
    assert rows[0]["source_languages"] == "{\"y\":2}"  # no record named: the same target URI decides
    assert [r["page_id"] for r in rows] == ["<a>", "<r>", "<m>"]


def test_a_verdict_too_far_from_its_page_is_not_attached():
    far = [{"skip_reason": None, "page_id": "<a>", "url": "u", "source_languages": None}]
    far += [{"skip_reason": "request", "page_id": f"<r{i}>", "url": "u", "source_languages": None} for i in range(9)]
    far += [{"skip_reason": "metadata", "page_id": "<m>", "url": "u",
             "source_languages": metadata_verdict(b"languages-cld2: {}", {"WARC-Concurrent-To": "<a>"}.get)}]
    assert list(attach_verdicts(far))[0]["source_languages"] is None


def test_a_block_without_the_key_at_a_line_start_has_no_verdict():
    assert metadata_verdict(b"via: x\nnot-languages-cld2: {}\n", {}.get) is None
    assert metadata_verdict(b"", {}.get) is None
