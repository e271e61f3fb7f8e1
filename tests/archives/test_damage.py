"""Damage injected into copies of the real archives: junk between gzip members, corrupt bytes inside a member,
junk at the end, junk before a record of a plain WARC. Every record outside the damaged stretch must come out
with its manifest offset, and the damage as a `read_error` row with its byte range (issue 22)."""

from __future__ import annotations

import collections
import json
from pathlib import Path

import pytest

from pagesieve.archives import iter_records
from pagesieve.data import data_root

WARC_DIR = data_root() / "warc"
GZ_FILES = ["wget-2024-sample-0000.warc.gz", "cc-main-2024-22-whirlwind.warc.gz",
            "ia-2008-archive-org-heritrix-warc017.warc.gz"]
JUNK = (b"partial upload, then cut off " * 2)[:50]  # 50 bytes, no gzip header, no newline at the end


@pytest.fixture(scope="module")
def manifest() -> dict[str, list[dict]]:
    by_file: dict[str, list[dict]] = collections.defaultdict(list)
    with open(WARC_DIR / "manifest.jsonl", encoding="utf-8") as lines:
        for line in lines:
            entry = json.loads(line)
            by_file[entry["file"]].append(entry)
    return dict(by_file)


def read_errors(rows: list[dict]) -> list[tuple[int, int]]:
    return [(r["source_offset"], r["source_length"]) for r in rows if r["skip_reason"] == "read_error"]


def offsets(entries: list[dict], key: str = "gzip_member_offset") -> list[int]:
    return [e[key] for e in entries]


def write(tmp_path: Path, name: str, data: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def picks(n: int) -> list[int]:
    """Record indexes to damage: the second, one in the middle, the last."""
    return sorted({1, n // 2, n - 1})


@pytest.mark.parametrize("name", GZ_FILES)
def test_junk_between_gzip_members_is_skipped_and_reading_goes_on(name, manifest, tmp_path):
    data, starts = (WARC_DIR / name).read_bytes(), offsets(manifest[name])
    for i in picks(len(starts)):
        at = starts[i]
        rows = list(iter_records(write(tmp_path, f"junk-{i}-{name}", data[:at] + JUNK + data[at:])))
        expected = [s if s < at else s + len(JUNK) for s in starts]
        assert [r["source_offset"] for r in rows if r["skip_reason"] != "read_error"] == expected
        assert read_errors(rows) == [(at, len(JUNK))]
        assert "skipped 50 bytes" in next(r["error"] for r in rows if r["skip_reason"] == "read_error")


@pytest.mark.parametrize("name", GZ_FILES)
def test_corrupt_bytes_inside_a_member_lose_that_record_only(name, manifest, tmp_path):
    data, starts = (WARC_DIR / name).read_bytes(), offsets(manifest[name])
    ends = [*starts[1:], len(data)]
    for i in picks(len(starts)):
        middle = (starts[i] + ends[i]) // 2
        damaged = data[:middle] + bytes(b ^ 0x5A for b in data[middle:middle + 8]) + data[middle + 8:]
        rows = list(iter_records(write(tmp_path, f"corrupt-{i}-{name}", damaged)))
        good = [s for j, s in enumerate(starts) if j != i]
        assert [r["source_offset"] for r in rows if r["skip_reason"] != "read_error"] == good
        assert read_errors(rows) == [(starts[i], ends[i] - starts[i])]
        ids = [r["page_id"] for r in rows if r["skip_reason"] is None]
        assert len(ids) == sum(1 for j, e in enumerate(manifest[name]) if e.get("is_html") and j != i)


def test_junk_at_the_end_of_a_gzip_file_is_one_read_error_with_its_range(manifest, tmp_path):
    name = GZ_FILES[0]
    data = (WARC_DIR / name).read_bytes()
    rows = list(iter_records(write(tmp_path, name, data + JUNK)))
    assert [r["source_offset"] for r in rows[:-1]] == offsets(manifest[name])
    assert read_errors(rows) == [(len(data), len(JUNK))]


def test_junk_and_corruption_together_in_one_file(manifest, tmp_path):
    name = GZ_FILES[0]
    data, starts = (WARC_DIR / name).read_bytes(), offsets(manifest[name])
    a, b = starts[5], starts[20]
    mid = (starts[30] + starts[31]) // 2
    damaged = data[:a] + JUNK + data[a:b] + JUNK + data[b:mid] + b"\0" * 8 + data[mid + 8:]
    rows = list(iter_records(write(tmp_path, name, damaged)))
    shift = [0 if s < a else 50 if s < b else 100 for s in starts]
    expected = [s + d for j, (s, d) in enumerate(zip(starts, shift, strict=True)) if j != 30]
    assert [r["source_offset"] for r in rows if r["skip_reason"] != "read_error"] == expected
    assert read_errors(rows) == [(a, 50), (b + 50, 50), (starts[30] + 100, starts[31] - starts[30])]


def test_a_broken_member_that_gave_output_marks_its_record_damaged(manifest, tmp_path):
    # record 792 is a 120 kB member: zlib gives out its first 64 kB before it finds the damage
    name = GZ_FILES[2]
    data, starts = (WARC_DIR / name).read_bytes(), offsets(manifest[name])
    at = starts[792] + 110_000
    rows = list(iter_records(write(tmp_path, name, data[:at] + b"\0" * 8 + data[at + 8:])))
    damaged = [r for r in rows if "damaged: gzip data lost" in (r["error"] or "")]
    assert len(damaged) == 1 and damaged[0]["url"] == manifest[name][792]["target_uri"]
    kept = [r["source_offset"] for r in rows if r["skip_reason"] != "read_error" and r is not damaged[0]]
    assert kept == [s for j, s in enumerate(starts) if j != 792]
    assert read_errors(rows) == [(starts[792], starts[793] - starts[792])]


PLAIN = ["wget-netzliteratur-revisits.warc", "warcio-example-iana-chunked.warc"]


@pytest.mark.parametrize("name", PLAIN)
def test_junk_without_a_newline_before_a_record_of_a_plain_warc_hides_nothing(name, manifest, tmp_path):
    data, starts = (WARC_DIR / name).read_bytes(), offsets(manifest[name], "uncompressed_offset")
    for i in picks(len(starts)):
        at = starts[i]
        tally: dict = {}
        rows = list(iter_records(write(tmp_path, f"junk-{i}-{name}", data[:at] + JUNK + data[at:]), tally=tally))
        assert [r["source_offset"] for r in rows if r["skip_reason"] != "read_error"] == [
            s if s < at else s + len(JUNK) for s in starts]
        assert read_errors(rows) == [(at, len(JUNK))]
        assert not any((r["error"] or "").startswith("resynced") for r in rows)  # the record before kept its length
        assert tally == {"size": len(data) + 50, "records": len(data), "skipped": 50, "unaccounted": 0}


def test_junk_at_the_end_of_a_plain_warc(manifest, tmp_path):
    name = PLAIN[0]
    data = (WARC_DIR / name).read_bytes()
    tally: dict = {}
    rows = list(iter_records(write(tmp_path, name, data + JUNK), tally=tally))
    assert [r["source_offset"] for r in rows[:-1]] == offsets(manifest[name], "uncompressed_offset")
    assert read_errors(rows) == [(len(data), len(JUNK))] and tally["skipped"] == 50 and tally["unaccounted"] == 0


WARC_FILES = sorted(p.name for p in WARC_DIR.iterdir() if ".warc" in p.name)


@pytest.mark.parametrize("name", WARC_FILES)
def test_every_byte_of_a_real_warc_is_in_a_record(name):
    tally: dict = {}
    list(iter_records(str(WARC_DIR / name), tally=tally))
    size = (WARC_DIR / name).stat().st_size
    assert tally["size"] == tally["records"] == size and tally["skipped"] == 0 and tally["unaccounted"] == 0


def test_every_byte_of_a_damaged_gzip_warc_is_in_a_record_or_a_skipped_range(manifest, tmp_path):
    name = GZ_FILES[0]
    data, starts = (WARC_DIR / name).read_bytes(), offsets(manifest[name])
    a, mid = starts[5], (starts[30] + starts[31]) // 2
    damaged = data[:a] + JUNK + data[a:mid] + b"\0" * 8 + data[mid + 8:] + JUNK
    tally: dict = {}
    rows = list(iter_records(write(tmp_path, name, damaged), tally=tally))
    skipped = sum(length for _, length in read_errors(rows))
    assert skipped == 50 + (starts[31] - starts[30]) + 50
    assert tally["skipped"] == skipped and tally["records"] + skipped == len(damaged) and tally["unaccounted"] == 0


def _both_paths(path: str) -> tuple[int | None, list[dict], list[dict]]:
    """(where the fast path stopped, its rows, the careful reader's rows) of one file."""
    import os

    from pagesieve.archives.archive import _fastwarc_row, read_warc_carefully
    from pagesieve.archives.fast_path import fast_gzip_rows

    size = os.path.getsize(path)
    with open(path, "rb") as fh:
        fast = fast_gzip_rows(path, fh, size, lambda rec: _fastwarc_row(rec, path, 20_000_000, "warc"))
        rows = []
        try:
            while True:
                rows.append(next(fast))
        except StopIteration as stop:
            resume = stop.value
        careful = list(read_warc_carefully(path, fh, True, size, 20_000_000, "warc"))
    return resume, rows, careful


PER_RECORD_GZ = [*GZ_FILES, "wget-2013-archive-org-urls.warc.gz", "wayback-snapshots-nonconforming.warc.gz",
                 "warcio-example.warc.gz"]


@pytest.mark.parametrize("name", PER_RECORD_GZ)
def test_the_fast_path_reads_a_well_formed_file_whole_and_gives_the_careful_rows(name):
    resume, fast, careful = _both_paths(str(WARC_DIR / name))
    assert resume is None and fast == careful


def test_the_fast_path_stops_before_damage_and_the_reader_goes_on_without_repeating(manifest, tmp_path):
    name = GZ_FILES[0]
    data, starts = (WARC_DIR / name).read_bytes(), offsets(manifest[name])
    path = write(tmp_path, name, data[:starts[20]] + JUNK + data[starts[20]:])
    resume, fast, careful = _both_paths(path)
    assert resume == starts[19] and fast == careful[:19]   # the record before the junk is not given out
    rows = list(iter_records(path))
    assert [r["source_offset"] for r in rows] == [*starts[:20], starts[20], *(s + 50 for s in starts[20:])]


ARC_GZ = "ia-2008-archive-org-heritrix.arc.gz"


def test_junk_between_the_members_of_a_gzip_arc_is_skipped(manifest, tmp_path):
    data, starts = (WARC_DIR / ARC_GZ).read_bytes(), offsets(manifest[ARC_GZ])
    for i in picks(len(starts)):
        at = starts[i]
        rows = list(iter_records(write(tmp_path, f"junk-{i}-{ARC_GZ}", data[:at] + JUNK + data[at:])))
        assert [r["source_offset"] for r in rows if r["skip_reason"] != "read_error"] == [
            s if s < at else s + len(JUNK) for s in starts]
        assert read_errors(rows) == [(at, len(JUNK))]



def test_corrupt_bytes_inside_a_member_of_a_gzip_arc_lose_that_record_only(manifest, tmp_path):
    data, starts = (WARC_DIR / ARC_GZ).read_bytes(), offsets(manifest[ARC_GZ])
    ends = [*starts[1:], len(data)]
    clean = {r["source_offset"]: r for r in iter_records(str(WARC_DIR / ARC_GZ))}
    for i in picks(len(starts)):
        middle = (starts[i] + ends[i]) // 2
        damaged = data[:middle] + bytes(b ^ 0x5A for b in data[middle:middle + 8]) + data[middle + 8:]
        tally: dict = {}
        rows = list(iter_records(write(tmp_path, f"corrupt-{i}-{ARC_GZ}", damaged), tally=tally))
        kept = [r for r in rows if r["skip_reason"] != "read_error"]
        assert [r["source_offset"] for r in kept] == [s for j, s in enumerate(starts) if j != i]
        # warcio alone gave the damaged record out and lost the next one; each record is now its clean self
        assert all(r["body"] == clean[r["source_offset"]]["body"] for r in kept)
        assert read_errors(rows) == [(starts[i], ends[i] - starts[i])]
        assert "corrupt gzip member" in next(r["error"] for r in rows if r["skip_reason"] == "read_error")
        assert tally == {"size": len(data), "records": len(data) - (ends[i] - starts[i]),
                         "skipped": ends[i] - starts[i], "unaccounted": 0}


def test_every_byte_of_a_real_gzip_arc_is_in_a_record():
    tally: dict = {}
    rows = list(iter_records(str(WARC_DIR / ARC_GZ), tally=tally))
    size = (WARC_DIR / ARC_GZ).stat().st_size
    assert len(rows) == 300 and tally == {"size": size, "records": size, "skipped": 0, "unaccounted": 0}


PLAIN_ARC = "commoncrawl-2008-arc-sample.arc"


def test_junk_before_a_record_of_a_plain_arc_is_skipped_and_reading_goes_on(manifest, tmp_path):
    data, starts = (WARC_DIR / PLAIN_ARC).read_bytes(), offsets(manifest[PLAIN_ARC], "uncompressed_offset")
    for i in picks(len(starts)):
        at = starts[i]
        damaged = data[:at] + JUNK + b"\n" + data[at:]   # a line warcio takes for a broken ARC header
        tally: dict = {}
        rows = list(iter_records(write(tmp_path, f"junk-{i}-{PLAIN_ARC}", damaged), tally=tally))
        assert [r["source_offset"] for r in rows if r["skip_reason"] != "read_error"] == [
            s if s < at else s + len(JUNK) + 1 for s in starts]
        assert read_errors(rows) == [(at, len(JUNK) + 1)]
        assert tally == {"size": len(damaged), "records": len(data), "skipped": len(JUNK) + 1, "unaccounted": 0}


def test_junk_at_the_end_of_a_plain_arc_is_its_own_read_error(manifest, tmp_path):
    data = (WARC_DIR / PLAIN_ARC).read_bytes()
    tally: dict = {}
    rows = list(iter_records(write(tmp_path, PLAIN_ARC, data + JUNK), tally=tally))
    assert len(rows) == 147 and read_errors(rows) == [(len(data), len(JUNK))]
    assert tally == {"size": len(data) + len(JUNK), "records": len(data), "skipped": len(JUNK), "unaccounted": 0}


def test_every_byte_of_a_real_plain_arc_is_in_a_record():
    tally: dict = {}
    rows = list(iter_records(str(WARC_DIR / PLAIN_ARC), tally=tally))
    size = (WARC_DIR / PLAIN_ARC).stat().st_size
    assert len(rows) == 146 and tally == {"size": size, "records": size, "skipped": 0, "unaccounted": 0}


def test_the_fast_path_reads_header_names_as_the_careful_reader_does(tmp_path):
    """WARC header names are case-insensitive and the first of a repeated name wins, on both paths."""
    import gzip

    def record(uri_headers: bytes, n: int) -> bytes:
        block = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<html><body>page %d</body></html>" % n
        head = (b"WARC/1.0\r\nwarc-type: response\r\n" + uri_headers + b"WARC-Date: 2020-01-0%dT00:00:00Z\r\n"
                b"WARC-RECORD-ID: <urn:uuid:%d>\r\nContent-Type: application/http; msgtype=response\r\n"
                b"Content-Length: %d\r\n\r\n" % (n, n, len(block)))
        return gzip.compress(head + block + b"\r\n\r\n", mtime=0)

    path = write(tmp_path, "names.warc.gz", record(b"warc-target-uri: http://a.example/\r\n"
                                                   b"WARC-Target-URI: http://b.example/\r\n", 1)
                 + record(b"WARC-TARGET-URI: http://c.example/\r\n", 2))
    resume, fast, careful = _both_paths(path)
    assert resume is None and fast == careful
    assert [(r["url"], r["page_id"], r["skip_reason"]) for r in fast] == [
        ("http://a.example/", "<urn:uuid:1>", None), ("http://c.example/", "<urn:uuid:2>", None)]
