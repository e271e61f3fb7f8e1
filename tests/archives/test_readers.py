"""Archive readers against the real archives in ../shared/data/warc; expectations from manifest.jsonl."""

from __future__ import annotations

import collections
import gzip
import hashlib
import json
import logging
import random
import re
import zlib
from datetime import UTC, datetime

import brotli
import pyarrow as pa
import pytest

from pagesieve.archives import decode_payload, iter_html_files, iter_records, list_inputs, read_input
from pagesieve.archives.rows import RESOURCE_MEDIA_TYPES
from pagesieve.data import data_root
from pagesieve.schemas import READER_ROWS

WARC_DIR = data_root() / "warc"


@pytest.fixture(scope="module")
def manifest() -> dict[str, list[dict]]:
    by_file: dict[str, list[dict]] = collections.defaultdict(list)
    with open(WARC_DIR / "manifest.jsonl", encoding="utf-8") as lines:
        for line in lines:
            entry = json.loads(line)
            by_file[entry["file"]].append(entry)
    return dict(by_file)


def read(name: str, **kwargs) -> list[dict]:
    return list(iter_records(str(WARC_DIR / name), **kwargs))


def pages(rows: list[dict]) -> list[dict]:
    return [r for r in rows if r["skip_reason"] is None]


def expected_offset(entry: dict) -> int:
    return entry["gzip_member_offset"] if entry["gzip_member_offset"] is not None else entry["uncompressed_offset"]


def expected_skip(entry: dict) -> str | None:
    if entry.get("is_html"):
        return None
    if "arc_header" in entry:  # ARC: the filedesc block comes out as warcinfo (warcio's arc2warc)
        return "warcinfo" if entry["url"].startswith("filedesc://") else "non_html"
    return "non_html" if entry["warc_type"] == "response" else entry["warc_type"]


ALL_FILES = sorted(p.name for p in WARC_DIR.iterdir() if ".warc" in p.name or p.name.endswith((".arc", ".arc.gz")))


@pytest.mark.parametrize("name", ALL_FILES)
def test_every_record_is_accounted_for_once(name, manifest):
    rows = read(name)
    entries = manifest[name]
    assert len(rows) == len(entries)
    assert [r["skip_reason"] for r in rows] == [expected_skip(e) for e in entries]
    assert [r["source_offset"] for r in rows] == [expected_offset(e) for e in entries]
    lengths = [b["source_offset"] - a["source_offset"] for a, b in zip(rows, rows[1:], strict=False)]
    assert [r["source_length"] for r in rows[:-1]] == lengths
    assert all(list(r) == READER_ROWS.names and r["source"] == str(WARC_DIR / name) for r in rows)
    # a skipped record has no body, but a stylesheet's is kept (for renderers: `_resources/`)
    assert all((r["body"] is not None) == (r["content_type"] in RESOURCE_MEDIA_TYPES)
               for r in rows if r["skip_reason"] not in (None, "read_error"))
    assert pa.Table.from_pylist(rows, schema=READER_ROWS).num_rows == len(entries)


def test_cc_whirlwind_page_fields(manifest):
    rows = read("cc-main-2024-22-whirlwind.warc.gz")
    entry = next(e for e in manifest["cc-main-2024-22-whirlwind.warc.gz"] if e.get("is_html"))
    [page] = pages(rows)
    assert page["page_id"] == entry["record_id"] == "<urn:uuid:2aabeff2-67f5-4608-8466-e87c6296e2b6>"
    assert (page["url"], page["http_status"], page["charset_hint"]) == (entry["target_uri"], 200, "utf-8")
    assert page["content_type"] == "text/html"
    assert len(page["body"]) == entry["payload_bytes"] == 72848
    assert page["fetch_time"] == datetime(2024, 5, 18, 1, 58, 10, tzinfo=UTC)
    assert page["source_length"] == 18374 - 1023 and page["ingest_status"] == "ok" and page["error"] is None
    assert page["source_profile"] == "warc"
    assert page["http_headers"]["content-type"] == "text/html; charset=UTF-8"
    assert [r["skip_reason"] for r in rows] == ["warcinfo", "request", None, "metadata"]
    assert rows[-1]["source_length"] == (WARC_DIR / "cc-main-2024-22-whirlwind.warc.gz").stat().st_size - 18374


def test_wget_2024_urls_lose_their_brackets_and_chunked_bodies_are_decoded(manifest):
    entries = manifest["wget-2024-sample-0000.warc.gz"]
    rows = read("wget-2024-sample-0000.warc.gz")
    assert all(e["target_uri"] is None or e["target_uri"].startswith("<") for e in entries)
    assert [r["url"] for r in rows] == [e["target_uri"] and e["target_uri"][1:-1] for e in entries]
    chunked = [r for r in pages(rows) if r["http_headers"].get("Transfer-Encoding", "").lower() == "chunked"]
    assert len(pages(rows)) == 22 and len(chunked) == 2
    by_id = {e["record_id"]: e for e in entries}
    for page in chunked:
        assert not re.match(rb"[0-9a-fA-F]+\r\n", page["body"])  # no chunk-size line left
        assert page["body"].rstrip().endswith(b"</html>") and page["error"] is None
        assert len(page["body"]) < by_id[page["page_id"]]["payload_bytes"]  # the framing is gone


def test_revisits_are_skipped_and_counted(manifest):
    rows = read("wget-netzliteratur-revisits.warc")
    counts = collections.Counter(r["skip_reason"] for r in rows)
    assert counts == {None: 5, "revisit": 5, "request": 15, "non_html": 5, "warcinfo": 2}
    assert counts == collections.Counter(expected_skip(e) for e in manifest["wget-netzliteratur-revisits.warc"])


def test_iana_chunked_body_matches_warcio_decoding():
    from warcio.archiveiterator import ArchiveIterator

    with open(WARC_DIR / "warcio-example-iana-chunked.warc", "rb") as fh:
        reference = next(r.content_stream().read() for r in ArchiveIterator(fh) if r.rec_type == "response")
    [page] = pages(read("warcio-example-iana-chunked.warc"))
    assert page["body"] == reference and page["body"].startswith(b"<!doctype html>")
    assert page["url"] == "http://www.iana.org/" and page["error"] is None


def test_small_arc_gives_a_stable_hashed_page_id(manifest):
    entry = manifest["warcio-example.arc.gz"][1]
    first, second = read("warcio-example.arc.gz"), read("warcio-example.arc.gz")
    [page] = pages(first)
    assert page["page_id"] == pages(second)[0]["page_id"]  # warcio's ARC record ids are random
    assert page["page_id"] == hashlib.sha1(b"http://example.com/\t2014-02-16T05:02:21Z").hexdigest()
    assert (page["url"], page["http_status"], page["source_offset"]) == (entry["url"], 200, 171)
    assert len(page["body"]) == entry["payload_bytes"] and page["source_profile"] == "arc"
    assert page["fetch_time"] == datetime(2014, 2, 16, 5, 2, 21, tzinfo=UTC)


def test_arc_and_warc017_of_one_crawl_give_the_same_pages():
    arc = {p["url"]: p for p in pages(read("ia-2008-archive-org-heritrix.arc.gz"))}
    warc = {p["url"]: p for p in pages(read("ia-2008-archive-org-heritrix-warc017.warc.gz"))}
    assert len(arc) == len(warc) == 140 and arc.keys() == warc.keys()
    assert all(arc[u]["body"] == warc[u]["body"] for u in arc)
    assert all(arc[u]["fetch_time"] == warc[u]["fetch_time"] for u in arc)
    assert all((arc[u]["http_status"], arc[u]["charset_hint"]) == (warc[u]["http_status"], warc[u]["charset_hint"])
               for u in arc)


def test_commoncrawl_2008_arc_is_read_whole_despite_warcio_failing_after_the_filedesc(manifest):
    from warcio.archiveiterator import ArchiveIterator
    from warcio.exceptions import ArchiveLoadFailed

    # What warcio alone does: the filedesc's length counts the blank line after it, so the next
    # record's header line is eaten and parsing fails on the first HTTP status line.
    read_before_failure = 0
    with open(WARC_DIR / "commoncrawl-2008-arc-sample.arc", "rb") as fh, pytest.raises(ArchiveLoadFailed):
        for _ in ArchiveIterator(fh, arc2warc=True):
            read_before_failure += 1
    assert read_before_failure == 1

    entries = manifest["commoncrawl-2008-arc-sample.arc"]
    rows = read("commoncrawl-2008-arc-sample.arc")  # the reader restarts warcio at offset 144
    assert collections.Counter(r["skip_reason"] for r in rows) == {None: 139, "non_html": 6, "warcinfo": 1}
    # Payloads are stored decoded although Content-Encoding/Transfer-Encoding headers were kept:
    # every body is kept byte for byte, with a note saying the header was not applied.
    assert all(len(r["body"]) == e["payload_bytes"] for r, e in zip(rows, entries, strict=True) if r["body"])
    notes = collections.Counter(n for p in pages(rows) for n in (p["error"] or "").split(";") if n)
    assert notes == {"transfer_encoding_not_applied": 36, "content_encoding_not_applied": 14}


def test_truncated_record_is_flagged_and_kept(manifest):
    [entry] = manifest["web-2016-single-record-truncated.warc.gz"]
    [row] = read("web-2016-single-record-truncated.warc.gz")
    assert row["skip_reason"] is None and row["ingest_status"] == "truncated"
    assert len(row["body"]) == entry["payload_bytes"] == 74970 and entry["content_length"] == 88275
    assert row["page_id"] == entry["record_id"] and row["error"] is None


@pytest.mark.parametrize(("name", "profile", "n_pages"), [
    ("clueweb12-0000tw-00-excerpt.warc.gz", "clueweb12", 3),
    ("clueweb09-en0000-00-excerpt.warc.gz", "clueweb09", 23),  # WARC/0.18: read by the lenient reader
])
def test_clueweb_pages_use_the_trec_id(name, profile, n_pages, manifest):
    rows = read(name)
    ids = [e["trec_id"] for e in manifest[name] if e.get("is_html")]
    assert [p["page_id"] for p in pages(rows)] == ids and len(ids) == n_pages
    assert {r["source_profile"] for r in rows} == {profile}
    # One gzip member for the whole file: offsets are positions in the decompressed stream.
    assert [r["source_offset"] for r in rows] == [e["uncompressed_offset"] for e in manifest[name]]


def test_invalid_warc_date_gives_no_fetch_time():
    assert {p["fetch_time"] for p in pages(read("clueweb09-en0000-00-excerpt.warc.gz"))} == {None}


def test_body_over_the_cap_is_cut_and_flagged():
    full = pages(read("cc-main-2024-22-whirlwind.warc.gz"))[0]["body"]
    [page] = pages(read("cc-main-2024-22-whirlwind.warc.gz", max_body_bytes=1000))
    assert page["ingest_status"] == "too_large" and page["body"] == full[:1000]


def test_random_bytes_give_one_read_error_row(tmp_path):
    path = tmp_path / "random.warc.gz"
    path.write_bytes(random.Random(7).randbytes(5000))
    [row] = iter_records(str(path))
    assert (row["skip_reason"], row["source_offset"], row["source"]) == ("read_error", 0, str(path))
    assert row["error"] and "\n" not in row["error"] and len(row["error"]) <= 200


def test_missing_and_empty_files(tmp_path):
    [row] = iter_records(str(tmp_path / "missing.warc.gz"))
    assert row["skip_reason"] == "read_error" and row["error"].startswith("FileNotFoundError")
    (tmp_path / "empty.warc.gz").write_bytes(b"")
    assert list(iter_records(str(tmp_path / "empty.warc.gz"))) == []  # no record, nothing to count


def _whirlwind_cut(tmp_path, end: int) -> list[dict]:
    path = tmp_path / "cut.warc.gz"
    path.write_bytes((WARC_DIR / "cc-main-2024-22-whirlwind.warc.gz").read_bytes()[:end])
    return list(iter_records(str(path)))


def test_gzip_warc_cut_in_the_header_of_its_third_record(tmp_path, manifest):
    third = manifest["cc-main-2024-22-whirlwind.warc.gz"][2]["gzip_member_offset"]
    rows = _whirlwind_cut(tmp_path, third + 10)  # FastWARC itself stops here without a word
    assert [r["skip_reason"] for r in rows] == ["warcinfo", "request", "read_error"]
    assert rows[-1]["source_offset"] == third == 1023


def test_gzip_warc_cut_in_the_body_of_its_third_record(tmp_path, manifest):
    full = pages(read("cc-main-2024-22-whirlwind.warc.gz"))[0]["body"]
    rows = _whirlwind_cut(tmp_path, 1023 + 5000)
    assert [r["skip_reason"] for r in rows] == ["warcinfo", "request", None]
    assert rows[-1]["ingest_status"] == "truncated" and full.startswith(rows[-1]["body"])
    assert 0 < len(rows[-1]["body"]) < len(full) and rows[-1]["source_length"] == 5000


def test_garbage_after_the_last_member_is_reported(tmp_path):
    data = (WARC_DIR / "cc-main-2024-22-whirlwind.warc.gz").read_bytes()
    (tmp_path / "tail.warc.gz").write_bytes(data + b"not gzip at all")
    rows = list(iter_records(str(tmp_path / "tail.warc.gz")))
    assert [r["skip_reason"] for r in rows][-2:] == ["metadata", "read_error"]
    assert rows[-1]["source_offset"] == len(data) and rows[-2]["source_length"] == len(data) - 18374


def test_remote_uris_go_through_fsspec():
    import fsspec

    with fsspec.open("memory://readers-test/example.arc.gz", "wb") as out:
        out.write((WARC_DIR / "warcio-example.arc.gz").read_bytes())
    rows = list(iter_records("memory://readers-test/example.arc.gz"))
    assert [r["skip_reason"] for r in rows] == ["warcinfo", None]
    assert rows[1]["source"] == "memory://readers-test/example.arc.gz"


def test_one_info_line_per_file(caplog):
    with caplog.at_level(logging.INFO, logger="pagesieve.archives.archive"):
        read("wget-netzliteratur-revisits.warc")
    [message] = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert "32 records, 5 pages, 27 skipped" in message


def test_html_files_are_read_as_pages(tmp_path):
    (tmp_path / "b.htm").write_bytes(b"<p>b</p>")
    (tmp_path / "a.html").write_bytes(b"<p>a</p>")
    (tmp_path / "notes.txt").write_bytes(b"not a page")
    rows = list(read_input(str(tmp_path), max_body_bytes=100))
    assert [(r["page_id"], r["body"], r["url"]) for r in rows] == [
        ("a", b"<p>a</p>", (tmp_path / "a.html").as_uri()), ("b", b"<p>b</p>", (tmp_path / "b.htm").as_uri())]
    assert all(r["source_profile"] == "files" and r["content_type"] == "text/html" for r in rows)
    assert all(r["ingest_status"] == "ok" and r["http_status"] is None for r in rows)
    [single] = iter_html_files(str(tmp_path / "a.html"), max_body_bytes=3)
    assert (single["body"], single["ingest_status"]) == (b"<p>", "too_large")
    assert single["source"] == str(tmp_path / "a.html")


def test_list_inputs_expands_directories_globs_and_manifests(tmp_path):
    for name in ("b.warc.gz", "a.arc", "c.warc", "skip.json"):
        (tmp_path / name).write_bytes(b"")
    html_dir = tmp_path / "saved"
    html_dir.mkdir()
    (html_dir / "page.html").write_bytes(b"<p>")
    (tmp_path / "list.paths").write_text("c.warc\n# a comment\n\ns3://bucket/x.warc.gz\n")
    archives = [str(tmp_path / n) for n in ("a.arc", "b.warc.gz", "c.warc")]
    assert list_inputs([str(tmp_path)]) == archives
    assert list_inputs([str(tmp_path / "*.warc*"), str(tmp_path / "c.warc")]) == archives[1:]
    assert list_inputs([str(tmp_path / "list.paths")]) == [str(tmp_path / "c.warc"), "s3://bucket/x.warc.gz"]
    assert list_inputs([str(html_dir)]) == [str(html_dir)]
    with pytest.raises(FileNotFoundError, match="nothing.warc"):
        list_inputs([str(tmp_path / "nothing.warc")])


# decode_payload: real bytes where the archives have them, generated ones for the other codings.
HTML = b"<!doctype html><html><body>" + b"<p>pagesieve</p>" * 400 + b"</body></html>"


def test_decode_real_chunked_payload():
    from fastwarc.warc import ArchiveIterator

    records = ArchiveIterator(str(WARC_DIR / "warcio-example-iana-chunked.warc"), auto_decode="none")
    raw = next(r.reader.read() for r in records if r.headers.get("WARC-Type") == "response")
    body, note = decode_payload(raw, "chunked", None)
    # One zero-padded chunk of 0x1c37 bytes, then the last chunk: 7238 = 8 + 7223 + 7 bytes.
    assert raw.startswith(b"001c37\r\n<!doctype html>") and raw.endswith(b"</html>\n\r\n0\r\n\r\n")
    assert (note, body) == (None, raw[8:8 + 0x1C37]) and len(body) == 7223


@pytest.mark.parametrize("coding", ["gzip", "x-gzip", "deflate-zlib", "deflate-raw", "br"])
def test_decode_content_encodings(coding):
    if coding.startswith("deflate"):
        packer = zlib.compressobj(9, zlib.DEFLATED, 15 if coding.endswith("zlib") else -15)
        data, coding = packer.compress(HTML) + packer.flush(), "deflate"
    else:
        data = brotli.compress(HTML) if coding == "br" else gzip.compress(HTML)
    assert decode_payload(data, None, coding) == (HTML, None)


def test_decoded_body_with_stale_headers_is_kept_as_is():
    assert decode_payload(HTML, "chunked", "gzip") == (
        HTML, "transfer_encoding_not_applied;content_encoding_not_applied")
    assert decode_payload(HTML, None, "br") == (HTML, "content_encoding_not_applied")
    assert decode_payload(HTML, None, "deflate") == (HTML, "content_encoding_not_applied")


@pytest.mark.parametrize("framed", [
    b"5\r\nhello\r\n6\r\n world\r\n",  # no last chunk
    b"5\r\nhello\r\nzz\r\n world\r\n0\r\n\r\n",  # a size that is not hex
    b"9\r\nhello\r\n0\r\n\r\n",  # a size larger than its chunk
    b"cafe\r\n<p>text</p>",  # a decoded body that starts with a hex word
    b"0\r\n<p>text</p>",  # ... or with a zero line
])
def test_malformed_chunk_framing_is_kept_as_is(framed):
    assert decode_payload(framed, "chunked", None) == (framed, "transfer_encoding_not_applied")


def test_chunked_then_gzip_and_a_cut_stream():
    packed = gzip.compress(HTML)
    framed = b"%x\r\n%s\r\n0\r\n\r\n" % (len(packed), packed)
    assert decode_payload(framed, "chunked", "gzip") == (HTML, None)
    body, note = decode_payload(packed[: len(packed) // 2], None, "gzip")
    assert HTML.startswith(body) and body and note == "content_encoding_incomplete"
    assert decode_payload(b"5\r\nhello\r\n6\r\n wo", "chunked", None, complete=False) == (b"hello wo", None)


def test_commoncrawl_paths_manifest_gets_the_bucket_prefix(tmp_path):
    import gzip as gz

    from pagesieve.archives import list_inputs

    manifest = tmp_path / "warc.paths.gz"
    keys = ["crawl-data/CC-MAIN-2024-22/segments/1/warc/CC-MAIN-1-00000.warc.gz",
            "crawl-data/CC-MAIN-2024-22/segments/1/warc/CC-MAIN-1-00001.warc.gz"]
    with gz.open(manifest, "wt") as fh:
        fh.write("\n".join(keys) + "\n")
    assert list_inputs([str(manifest)]) == [f"https://data.commoncrawl.org/{k}" for k in keys]
    assert list_inputs([str(manifest)], commoncrawl_base="s3://commoncrawl") == [f"s3://commoncrawl/{k}" for k in keys]
