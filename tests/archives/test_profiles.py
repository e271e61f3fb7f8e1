"""Source profiles, the lenient WARC reader and random access.

ClueWeb09/ClueWeb22-style archives are written byte for byte here (ClueWeb22 has no public sample;
its layout is described in ../shared/data/warc/README.md), each quirk on purpose; the real archives
in ../shared/data/warc check detection, the ClueWeb09 excerpt and `read_record_at` round trips.
"""

from __future__ import annotations

import gzip
import io
import itertools
import logging
import random
import tracemalloc
import zlib
from pathlib import Path

import pytest

from pagesieve.archives import (
    PROFILES,
    format_record,
    iter_records,
    read_clueweb22_document,
    read_input,
    read_record_at,
)
from pagesieve.archives.lenient import Damage, iter_lenient
from pagesieve.data import data_root

WARC_DIR = data_root() / "warc"
JUNK = random.Random(7).randbytes(3000)  # starts with b"8\xb4", holds no CR/LF-led version line


def starts(parts: list[bytes]) -> list[int]:
    """Offset of each part once the parts are concatenated."""
    return list(itertools.accumulate([0, *map(len, parts[:-1])]))


def write(tmp_path: Path, name: str, data: bytes) -> str:
    (tmp_path / name).write_bytes(data)
    return str(tmp_path / name)


def gzip_cut(data: bytes, cut: int) -> bytes:
    """A whole-file gzip of `data` whose file ends right after the bytes that give data[:cut]."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    return packer.compress(data[:cut]) + packer.flush(zlib.Z_SYNC_FLUSH)


def pages(rows: list[dict]) -> list[dict]:
    return [r for r in rows if r["skip_reason"] is None]


# ClueWeb09: WARC/0.18, LF only, invalid WARC-Date, the single-LF separator counted in Content-Length.
CW09_INFO = (b"WARC/0.18\nWARC-Type: warcinfo\nWARC-Date: 2009-03-65T08:43:19-0800\n"
             b"WARC-Record-ID: <urn:uuid:993d3969-9643-4934-b1c6-68d4dbe55b83>\n"
             b"Content-Type: application/warc-fields\nContent-Length: 73\n\n"
             b"software: Nutch 1.0-dev (modified for clueweb09)\nisPartOf: clueweb09-en\n\n")
CW09_HTML = [b"<html><body><p>page %d</p></body></html>" % i for i in range(6)]


def cw09_response(n: int, url: bytes, *, length_delta: int = 0) -> bytes:
    block = b"HTTP/1.1 200 OK\nContent-Type: text/html\n\n" + CW09_HTML[n] + b"\n"
    return (b"WARC/0.18\nWARC-Type: response\nWARC-Target-URI: " + url + b"\n"
            b"WARC-Warcinfo-ID: 993d3969-9643-4934-b1c6-68d4dbe55b83\nWARC-Date: 2009-03-65T08:43:19-0800\n"
            b"WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-%012d>\n" % n
            + b"WARC-TREC-ID: clueweb09-en0000-00-%05d\n" % n
            + b"Content-Type: application/http;msgtype=response\nWARC-Identified-Payload-Type: \n"
            + b"Content-Length: %d\n\n" % (len(block) + length_delta) + block)


CW09 = [
    CW09_INFO,
    cw09_response(0, b"http://a.example/"),
    cw09_response(1, b"http://b.example/", length_delta=-10),  # too short: 10 body bytes past the end
    cw09_response(2, b"http://c.example/", length_delta=25),  # too long: runs 25 bytes into record 3
    cw09_response(3, b"http://d.example/cat\nalog/x.html"),  # a URL broken over a raw line
    cw09_response(4, b"http://e.example/caf\xe9.html"),  # a Latin-1 byte in a header
    cw09_response(5, b"http://f.example/"),
]
CW09_IDS = [f"clueweb09-en0000-00-{i:05d}" for i in range(6)]
CW09_URLS = ["http://a.example/", "http://b.example/", "http://c.example/", "http://d.example/catalog/x.html",
             "http://e.example/café.html", "http://f.example/"]
# Resynced blocks end at the next version line less the single-LF separator; the others keep the
# LF that Content-Length counts, as in the real crawl.
CW09_BODIES = [CW09_HTML[0] + b"\n", CW09_HTML[1], CW09_HTML[2], *(h + b"\n" for h in CW09_HTML[3:])]
CW09_NOTES = [None, "resynced: content-length 71 but next record at 81",
              "resynced: content-length 106 but next record at 81", None, None, None]


def layouts(parts: list[bytes]) -> dict[str, tuple[bytes, list[int]]]:
    """(file bytes, expected record offsets) plain, as one gzip member, and a gzip member per record."""
    members = [gzip.compress(p) for p in parts]
    data = b"".join(parts)
    return {"plain": (data, starts(parts)), "whole-gzip": (gzip.compress(data), starts(parts)),
            "member-gzip": (b"".join(members), starts(members))}


def test_profiles_are_listed_and_checked(tmp_path):
    assert PROFILES == ("auto", "warc", "arc", "clueweb09", "clueweb12", "clueweb22")
    for call in (lambda: iter_records("x.warc", profile="cw09"), lambda: read_input("x.warc", profile="cw09"),
                 lambda: read_record_at("x.warc", 0, profile="cw09")):
        with pytest.raises(ValueError, match="auto, warc, arc, clueweb09, clueweb12, clueweb22"):
            call()


@pytest.mark.parametrize(("name", "profile"), [
    ("clueweb09-en0000-00-excerpt.warc.gz", "clueweb09"),  # WARC/0.18
    ("clueweb12-0000tw-00-excerpt.warc.gz", "clueweb12"),  # warcinfo "isPartOf: ClueWeb12"
    ("cc-main-2024-22-whirlwind.warc.gz", "warc"),
    ("ia-2008-archive-org-heritrix-warc017.warc.gz", "warc"),
    ("wayback-snapshots-nonconforming.warc.gz", "warc"),  # bare HTML blocks, but a warcinfo with a length
    ("ia-2008-archive-org-heritrix.arc.gz", "arc"),
    ("commoncrawl-2008-arc-sample.arc", "arc"),
])
def test_auto_detects_the_profile_of_real_files(name, profile):
    assert {r["source_profile"] for r in iter_records(str(WARC_DIR / name))} == {profile}


def test_real_clueweb09_excerpt_through_the_lenient_reader():
    from fastwarc.warc import ArchiveIterator

    path = str(WARC_DIR / "clueweb09-en0000-00-excerpt.warc.gz")
    rows = list(iter_records(path))
    found = pages(rows)
    assert [p["page_id"] for p in found] == [f"clueweb09-en0000-00-{i:05d}" for i in range(23)]
    assert {r["source_profile"] for r in rows} == {"clueweb09"} and len(rows) == 24
    assert all(p["error"] is None and p["ingest_status"] == "ok" and p["fetch_time"] is None for p in found)
    # FastWARC reads this file only in quirks mode; its payloads (no HTTP encodings here) are the bodies.
    quirks = {r.headers.get("WARC-TREC-ID"): r.reader.read() for r in ArchiveIterator(
        path, parse_http=True, quirks_mode=True, auto_decode="none") if r.headers.get("WARC-Type") == "response"}
    assert len(quirks) == 23 and all(quirks[p["page_id"]] == p["body"] for p in found)
    # Forced through the `warc` profile, FastWARC raises after the warcinfo and the lenient reader
    # takes over: the same pages.
    forced = list(iter_records(path, profile="warc"))
    assert [(r["page_id"], r["body"], r["source_offset"]) for r in forced] == [
        (r["page_id"], r["body"], r["source_offset"]) for r in rows]
    assert {r["source_profile"] for r in forced} == {"warc"}


def test_explicit_profile_overrides_detection():
    rows = list(iter_records(str(WARC_DIR / "clueweb12-0000tw-00-excerpt.warc.gz"), profile="warc"))
    assert {r["source_profile"] for r in rows} == {"warc"}
    assert [p["page_id"] for p in pages(rows)] == [f"clueweb12-0000tw-00-{i:05d}" for i in range(3)]


@pytest.mark.parametrize("layout", ["plain", "whole-gzip", "member-gzip"])
def test_clueweb09_quirks_are_resynchronised(tmp_path, layout, caplog):
    data, offsets = layouts(CW09)[layout]
    path = write(tmp_path, "en0000-00.warc" + ("" if layout == "plain" else ".gz"), data)
    with caplog.at_level(logging.INFO, logger="pagesieve.archives.archive"):
        rows = list(iter_records(path))
    assert len(rows) == 7 and {r["source_profile"] for r in rows} == {"clueweb09"}
    assert [r["skip_reason"] for r in rows] == ["warcinfo"] + [None] * 6
    assert [r["source_offset"] for r in rows] == offsets
    size = len(data) if layout != "whole-gzip" else len(b"".join(CW09))
    assert [r["source_length"] for r in rows] == [b - a for a, b in zip(offsets, [*offsets[1:], size], strict=True)]
    found = pages(rows)
    assert [p["page_id"] for p in found] == CW09_IDS
    assert [p["url"] for p in found] == CW09_URLS
    assert [p["body"] for p in found] == CW09_BODIES
    assert [p["error"] for p in found] == CW09_NOTES
    assert all(p["ingest_status"] == "ok" and p["http_status"] == 200 and p["fetch_time"] is None for p in found)
    assert rows[0]["error"] is None  # the warcinfo's length was right
    assert "7 records, 6 pages, 1 skipped {'warcinfo': 1}, 2 resynced" in caplog.text


@pytest.mark.parametrize("eol", [b"\r\n", b"\n"])
def test_fastwarc_falls_back_to_the_lenient_reader(tmp_path, eol, caplog):
    html = [b"<p>record %d</p>" % i for i in range(4)]

    def record(n: int, delta: int = 0) -> bytes:
        http = eol.join([b"HTTP/1.1 200 OK", b"Content-Type: text/html; charset=utf-8", b"", html[n]])
        return eol.join([b"WARC/1.0", b"WARC-Type: response", b"WARC-Record-ID: <urn:uuid:rec-%d>" % n,
                         b"WARC-Target-URI: http://x.example/%d" % n, b"WARC-Date: 2024-05-18T01:58:10Z",
                         b"Content-Type: application/http; msgtype=response",
                         b"Content-Length: %d" % (len(http) + delta), b"", http, b"", b""])

    parts = [record(0), record(1, -5), record(2, 30), record(3)]
    path = write(tmp_path, "lengths.warc", b"".join(parts) + JUNK)
    with caplog.at_level(logging.WARNING):
        rows = list(iter_records(path))
    assert "lenient reader" in caplog.text and {r["source_profile"] for r in rows} == {"warc"}
    assert [r["skip_reason"] for r in rows] == [None] * 4 + ["read_error"]
    assert [r["source_offset"] for r in rows] == [*starts(parts), len(b"".join(parts))]
    assert [r["page_id"] for r in rows[:4]] == [f"<urn:uuid:rec-{i}>" for i in range(4)]
    # CRLF CRLF is the separator; an LF-only file loses one LF of it at a resync.
    cut = b"" if eol == b"\r\n" else b"\n"
    assert [r["body"] for r in rows[:4]] == [html[0], html[1] + cut, html[2] + cut, html[3]]
    assert [bool(r["error"]) for r in rows[:4]] == [False, True, True, False]
    assert rows[4]["error"] == "3000 bytes after the last record hold no WARC record"
    assert rows[4]["source_length"] == len(JUNK)


def test_a_version_line_inside_a_block_of_the_right_length_is_kept(tmp_path):
    html = b"<pre>\nWARC/1.0\nWARC-Type: response\n</pre>"  # a page about WARC, not a record boundary
    block = b"HTTP/1.1 200 OK\nContent-Type: text/html\n\n" + html
    data = (b"WARC/0.18\nWARC-Type: response\nWARC-TREC-ID: clueweb09-en0000-00-00000\n"
            b"Content-Type: application/http;msgtype=response\nContent-Length: %d\n\n" % len(block) + block + b"\n")
    [row] = iter_records(write(tmp_path, "embedded.warc", data))
    assert (row["body"], row["error"], row["source_profile"]) == (html, None, "clueweb09")


def test_lenient_reader_streams_a_large_file(tmp_path):
    # 24 MiB bodies with a Content-Length 4 MiB short: the reader scans on in 1 MiB chunks and keeps
    # only the capped prefix, never the file (24+ MiB) or a whole block.
    block = b"HTTP/1.1 200 OK\nContent-Type: text/html\n\n<html>" + b"x" * (24 << 20) + b"</html>\n"
    head = (b"WARC/0.18\nWARC-Type: response\nWARC-TREC-ID: clueweb09-en0000-00-%05d\n"
            b"Content-Type: application/http;msgtype=response\nContent-Length: %d\n\n")
    parts = [head % (i, len(block) - (4 << 20)) + block for i in range(2)] + [CW09[1]]
    path = write(tmp_path, "big.warc", b"".join(parts))
    tracemalloc.start()
    rows = list(iter_records(path, max_body_bytes=1000))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 12 << 20
    assert [r["source_offset"] for r in rows] == starts(parts)
    assert all(r["ingest_status"] == "too_large" and r["body"] == b"<html>" + b"x" * 994 for r in rows[:2])
    assert all(r["error"] == f"resynced: content-length {len(block) - (4 << 20)} but next record at {len(block)}"
               for r in rows[:2])
    assert rows[2]["body"] == CW09_BODIES[0]


def test_cut_whole_file_gzip(tmp_path):
    data, offsets = b"".join(CW09), starts(CW09)
    rows = list(iter_records(write(tmp_path, "head.warc.gz", gzip_cut(data, offsets[6] + 40))))
    assert [r["skip_reason"] for r in rows] == ["warcinfo"] + [None] * 5 + ["read_error"]
    assert rows[-1]["source_offset"] == offsets[6] and rows[-1]["error"] == "record header cut at the end of the data"
    assert [p["page_id"] for p in pages(rows)] == CW09_IDS[:5]
    # Cut inside a body: the record is kept, flagged truncated (as for a gzip member per record).
    body_at = offsets[6] + CW09[6].index(b"<html>")
    rows = list(iter_records(write(tmp_path, "body.warc.gz", gzip_cut(data, body_at + 10))))
    assert [p["page_id"] for p in pages(rows)] == CW09_IDS and rows[-1]["ingest_status"] == "truncated"
    assert rows[-1]["body"] == CW09_HTML[5][:10] and rows[-1]["source_length"] == body_at + 10 - offsets[6]


@pytest.mark.parametrize("layout", ["plain", "whole-gzip"])
def test_random_bytes_after_the_records(tmp_path, layout):
    data = b"".join(CW09) + JUNK
    path = write(tmp_path, "junk.warc" + (".gz" if layout == "whole-gzip" else ""),
                 gzip.compress(data) if layout == "whole-gzip" else data)
    rows = list(iter_records(path))
    assert [r["page_id"] for r in pages(rows)] == CW09_IDS and rows[-1]["skip_reason"] == "read_error"
    assert len(rows) == 8 and rows[-1]["source_offset"] == len(b"".join(CW09))
    assert rows[-1]["error"] == "3000 bytes after the last record hold no WARC record"


def test_random_bytes_between_gzip_members(tmp_path):
    members = [gzip.compress(p) for p in CW09]
    path = write(tmp_path, "junk.warc.gz", b"".join(members[:2]) + JUNK + b"".join(members[2:]))
    rows = list(iter_records(path))  # issue 22: reading goes on at the next member that holds a record
    assert [r["skip_reason"] for r in rows] == ["warcinfo", None, "read_error"] + [None] * 5
    assert [r["source_offset"] for r in rows] == starts(members[:2] + [JUNK] + members[2:])
    assert rows[2]["source_length"] == len(JUNK) and rows[2]["error"].startswith(
        f"bytes that are not gzip: skipped {len(JUNK)} bytes")


def test_random_bytes_before_the_first_record(tmp_path):
    rows = list(iter_records(write(tmp_path, "lead.warc", JUNK + b"\r\n" + b"".join(CW09))))
    assert [r["skip_reason"] for r in rows] == ["read_error", "warcinfo"] + [None] * 6
    assert (rows[0]["source_offset"], rows[0]["source_length"], rows[1]["source_offset"]) == (0, 3002, 3002)
    assert rows[0]["error"] == "no WARC record in the 3002 bytes at 0-3002; next record at 3002"
    assert [p["page_id"] for p in pages(rows)] == CW09_IDS
    # Not detected as ClueWeb09 (the first record is not at the start), read by FastWARC then leniently.
    assert {r["source_profile"] for r in rows} == {"warc"}


# ClueWeb22 (docs/archives.md, "Profiles"): WARC/1.1, a warcinfo without Content-Length, bare
# HTML blocks typed application/http, a gzip member per record, and a `.warc.offset` file.
CW22_INFO = (b"WARC/1.1\r\nWARC-Type: warcinfo\r\nWARC-Date: 2022-02-28T00:00:00Z\r\n"
             b"WARC-Record-ID: <urn:uuid:cw22-info>\r\nContent-Type: application/warc-fields\r\n\r\n"
             b"software: ClueWeb22 test builder\r\nformat: WARC File Format 1.1\r\n\r\n")
CW22_HTML = [b"<!DOCTYPE html><html><head><title>doc %d</title></head><body><p>text %d</p></body></html>" % (i, i)
             for i in range(4)]


def cw22_response(n: int, *, with_id: bool = True) -> bytes:
    lines = [b"WARC/1.1", b"WARC-Type: response", b"WARC-Target-URI: https://example.org/doc%d" % n,
             b"WARC-Date: 2022-02-01T00:00:00Z", b"WARC-Record-ID: <urn:uuid:cw22-%d>" % n,
             *([b"ClueWeb22-ID: clueweb22-en0000-00-%05d" % n] if with_id else []),
             b"Content-Type: application/http; msgtype=response", b"Content-Length: %d" % len(CW22_HTML[n])]
    return b"\r\n".join(lines) + b"\r\n\r\n" + CW22_HTML[n] + b"\r\n\r\n"


def write_cw22(tmp_path: Path, *, with_id: bool = True) -> tuple[str, list[int]]:
    members = [gzip.compress(r) for r in [CW22_INFO, *(cw22_response(i, with_id=with_id) for i in range(4))]]
    data = b"".join(members)
    offsets = starts(members)
    folder = tmp_path / "html" / "en" / "en00" / "en0000"
    folder.mkdir(parents=True)
    (folder / "en0000-00.warc.offset").write_bytes(b"".join(b"%010d\n" % o for o in [*offsets[1:], len(data)]))
    return write(folder, "en0000-00.warc.gz", data), offsets


def test_clueweb22_archive(tmp_path):
    path, offsets = write_cw22(tmp_path)
    rows = list(iter_records(path))
    assert {r["source_profile"] for r in rows} == {"clueweb22"}
    assert [r["source_offset"] for r in rows] == offsets
    assert rows[0]["skip_reason"] == "warcinfo" and rows[0]["source_length"] == offsets[1]
    found = pages(rows)
    assert [p["page_id"] for p in found] == [f"clueweb22-en0000-00-{i:05d}" for i in range(4)]
    assert [p["body"] for p in found] == CW22_HTML
    assert all((p["http_status"], p["content_type"], p["ingest_status"], p["error"]) == (None, "text/html", "ok", None)
               for p in found)
    assert [p["url"] for p in found] == [f"https://example.org/doc{i}" for i in range(4)]


def test_clueweb22_detected_from_its_warcinfo_without_ids(tmp_path):
    path, _ = write_cw22(tmp_path, with_id=False)
    found = pages(list(iter_records(path)))
    assert [p["page_id"] for p in found] == [f"<urn:uuid:cw22-{i}>" for i in range(4)]
    assert {p["source_profile"] for p in found} == {"clueweb22"} and [p["body"] for p in found] == CW22_HTML


def test_read_clueweb22_document_by_offset_file(tmp_path):
    path, offsets = write_cw22(tmp_path)
    rows = pages(list(iter_records(path)))
    for i, row in enumerate(rows):
        doc = read_clueweb22_document(path, i)
        assert doc == row and doc["source_offset"] == offsets[i + 1]
    with pytest.raises(IndexError):
        read_clueweb22_document(path, 4)
    offset_file = Path(path[:-3] + ".offset")
    entries = offset_file.read_bytes()
    offset_file.write_bytes(entries[11:33] + entries[22:])  # entry 0 now points at document 1
    with pytest.raises(ValueError, match="entry 0 points at clueweb22-en0000-00-00001"):
        read_clueweb22_document(path, 0)


@pytest.mark.parametrize("name", ["cc-main-2024-22-whirlwind.warc.gz", "wget-2024-sample-0000.warc.gz",
                                  "warcio-example-iana-chunked.warc", "clueweb12-0000tw-00-excerpt.warc.gz",
                                  "ia-2008-archive-org-heritrix.arc.gz"])
def test_read_record_at_round_trip_on_real_files(name):
    found = pages(list(iter_records(str(WARC_DIR / name))))
    assert found
    for page in found:
        again = read_record_at(page["source"], page["source_offset"])
        assert (again["page_id"], again["body"]) == (page["page_id"], page["body"])
        assert again == page


@pytest.mark.parametrize("layout", ["plain", "whole-gzip", "member-gzip"])
def test_read_record_at_on_clueweb09_layouts(tmp_path, layout):
    data, offsets = layouts(CW09)[layout]
    path = write(tmp_path, "cw09.warc" + ("" if layout == "plain" else ".gz"), data)
    rows = list(iter_records(path))
    assert [read_record_at(path, o) for o in offsets] == rows
    with pytest.raises(ValueError, match=f"no record starts at offset {offsets[2] + 1} of"):
        read_record_at(path, offsets[2] + 1)


def test_read_record_at_clueweb22_and_bad_offsets(tmp_path):
    path, offsets = write_cw22(tmp_path)
    assert read_record_at(path, offsets[2])["page_id"] == "clueweb22-en0000-00-00001"
    with pytest.raises(ValueError, match="offset must be >= 0"):
        read_record_at(path, -1)
    with pytest.raises(ValueError, match="no record starts at offset 10000000 "):
        read_record_at(path, 10_000_000)
    with pytest.raises(ValueError, match="no gzip member or line starts there"):
        read_record_at(str(WARC_DIR / "ia-2008-archive-org-heritrix.arc.gz"), 3)


def test_format_record():
    row = read_record_at(str(WARC_DIR / "cc-main-2024-22-whirlwind.warc.gz"), 1023)
    text = format_record(row, body_bytes=15)
    assert "page_id         <urn:uuid:2aabeff2-67f5-4608-8466-e87c6296e2b6>" in text
    assert "content-type: text/html; charset=UTF-8" in text
    assert text.endswith("--- body: first 15 of 72848 bytes ---\n<!DOCTYPE html>")
    odd = format_record({"page_id": "x", "body": b"caf\xe9 \xff", "charset_hint": "no-such-charset"})
    assert odd.endswith("caf\ufffd \ufffd")
    assert format_record({"page_id": "x", "body": b"caf\xe9", "charset_hint": "latin-1"}).endswith("café")


def test_lenient_reader_yields_damage_for_a_file_of_random_bytes():
    assert list(iter_lenient(io.BytesIO(JUNK))) == [Damage(0, 3000, "no WARC record found in 3000 bytes")]


@pytest.mark.parametrize("name", sorted(p.name for p in WARC_DIR.glob("*.warc*")))
def test_lenient_reader_agrees_with_fastwarc_on_real_files(name):
    path = str(WARC_DIR / name)
    strict, lenient = list(iter_records(path, profile="warc")), list(iter_records(path, profile="clueweb09"))
    assert [{**r, "source_profile": None} for r in strict] == [{**r, "source_profile": None} for r in lenient]


@pytest.mark.parametrize("layout", ["plain", "whole-gzip", "member-gzip"])
def test_tiny_read_chunks_change_nothing(tmp_path, monkeypatch, layout):
    # Version lines, separators and headers split across reads, and the buffer compacted all the time.
    import pagesieve.archives.buffer as buffer

    data, _ = layouts([*CW09, JUNK])[layout]
    path = write(tmp_path, "chunks.warc" + ("" if layout == "plain" else ".gz"), data)
    expected = list(iter_records(path))
    monkeypatch.setattr(buffer, "CHUNK", 5)
    assert list(iter_records(path)) == expected and len(expected) == 8
