"""scripts/bench/bench_pipeline.py: the input it builds from the real archives, its counting, its plain loop, and
one real peer run measured as a process tree."""

from __future__ import annotations

import contextlib
import gzip
import importlib.util
import json
import sys
from pathlib import Path

import pytest

from pagesieve.data import data_root

ROOT = Path(__file__).resolve().parents[1]
WARC = data_root() / "warc"


def _load():
    spec = importlib.util.spec_from_file_location("bench_pipeline", ROOT / "scripts" / "bench" / "bench_pipeline.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module      # its dataclasses look their module up while it is being executed
    spec.loader.exec_module(module)
    return module


bp = _load()


def test_copies_needed() -> None:
    assert bp.copies_needed(1109, 10_000, 1) == 10
    assert bp.copies_needed(1109, 10_000, 4) == 37
    assert bp.copies_needed(20_000, 10_000, 1) == 1
    with pytest.raises(ValueError):
        bp.copies_needed(0, 10_000, 1)


def test_source_archives_are_warc_without_wat_wet_or_arc() -> None:
    names = [p.name for p in bp.source_archives(WARC)]
    assert "wget-netzliteratur-revisits.warc" in names and "wget-2024-sample-0000.warc.gz" in names
    assert not [n for n in names if n.endswith((".wat.gz", ".wet.gz", ".arc", ".arc.gz", ".md", ".jsonl"))]


def test_archives_named_to_leave_out_are_not_copied_and_a_wrong_name_is_refused() -> None:
    left = ["clueweb09-en0000-00-excerpt.warc.gz", "web-2016-single-record-truncated.warc.gz"]
    names = [p.name for p in bp.source_archives(WARC, left)]
    assert len(names) == len(bp.source_archives(WARC)) - 2 and not set(left) & set(names)
    with pytest.raises(ValueError, match="no-such.warc.gz"):
        bp.source_archives(WARC, ["no-such.warc.gz"])


@pytest.mark.slow
def test_build_input_reaches_the_record_count_and_drops_a_larger_build(tmp_path: Path) -> None:
    archives = bp.source_archives(WARC)
    per_copy = sum(bp.records_per_archive(WARC, archives).values())
    big = bp.build_input(WARC, tmp_path / "in", min_records=10_000, scale=2)
    assert big.records >= 20_000 and big.records == big.copies * per_copy
    assert len(list((tmp_path / "in").iterdir())) == big.copies * len(archives)
    small = bp.build_input(WARC, tmp_path / "in", min_records=10_000)
    assert 10_000 <= small.records < 10_000 + per_copy
    assert sorted(p.name for p in (tmp_path / "in").iterdir()) == sorted(p.name for p in small.files)
    first = small.files[0]
    source = WARC / first.name.split("-", 1)[1]
    assert first.read_bytes() == source.read_bytes()


def test_copies_have_ids_of_their_own(tmp_path: Path) -> None:
    """A page's id is its record id: copies with the same ids made the export refuse the run."""
    from fastwarc.warc import ArchiveIterator

    inputs = bp.build_input(WARC, tmp_path / "in", min_records=2_000)
    assert inputs.copies == 2

    def ids(path: Path) -> list[str]:
        with open(path, "rb") as fh:
            return [r.headers.get("WARC-Record-ID") for r in ArchiveIterator(fh)]

    name = "wget-2024-sample-0000.warc.gz"
    first, second = ids(tmp_path / "in" / f"c0000-{name}"), ids(tmp_path / "in" / f"c0001-{name}")
    assert len(first) == len(second) == 48 and not set(first) & set(second)
    assert [len(i) for i in first] == [len(i) for i in second]
    # time-based uuids of one crawl share their last part ("...-0242ac120007"): copy 7's ids must not be copy 0's
    original = b"WARC-Record-ID: <urn:uuid:4baa70c2-b87d-11ea-8e0c-0242ac120007>\r\n"
    assert bp.copy_ids(original, 7) != original
    assert bp.copy_ids(original, 7) == b"WARC-Record-ID: <urn:uuid:4baa70c2-b87d-11ea-8e0c-0242ac12q007>\r\n"
    trec = bp.copy_ids(b"WARC-TREC-ID: clueweb09-en0000-00-00012\r\n", 3)
    assert trec == b"WARC-TREC-ID: clueweb09-en0003-00-00012\r\n"
    # the truncated archive stays truncated, as gzip (FastWARC reads its one record either way)
    assert ids(tmp_path / "in" / "c0001-web-2016-single-record-truncated.warc.gz") != []


def test_an_input_of_another_recipe_is_rebuilt(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "c0001-wget-2024-sample-0000.warc.gz").write_bytes(b"an older build's copy")
    bp.build_input(WARC, folder, min_records=2_000)
    assert (folder / "c0001-wget-2024-sample-0000.warc.gz").read_bytes() != b"an older build's copy"


def test_export_digest_ignores_order_and_compression(tmp_path: Path) -> None:
    lines = [json.dumps({"id": i, "text": f"doc {i}"}) for i in range(5)]
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.jsonl").write_text("\n".join(lines[:3]) + "\n")
    with gzip.open(tmp_path / "a" / "y.jsonl.gz", "wt") as fh:
        fh.write("\n".join(lines[3:]) + "\n")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "z.jsonl").write_text("\n".join(reversed(lines)) + "\n")
    assert bp.export_digest(tmp_path / "a") == bp.export_digest(tmp_path / "b")
    assert bp.export_digest(tmp_path / "a")[0] == 5
    (tmp_path / "b" / "z.jsonl").write_text("\n".join(lines[:4]) + "\n")
    assert bp.export_digest(tmp_path / "a") != bp.export_digest(tmp_path / "b")


def test_plain_loop_on_a_real_archive(tmp_path: Path) -> None:
    out = tmp_path / "docs.jsonl"
    records, pages, docs = bp._plain_file((str(WARC / "wget-2024-sample-0000.warc.gz"), str(out), "resiliparse"))
    assert (records, pages) == (48, 22)      # the manifest's records and HTML responses
    assert 15 <= docs <= pages
    assert len(out.read_text().splitlines()) == docs
    # a block without an HTTP header is typed by its WARC header: the 128 Wayback snapshots are HTML pages
    _, wayback, _ = bp._plain_file((str(WARC / "wayback-snapshots-nonconforming.warc.gz"), str(out), "resiliparse"))
    assert wayback == 128


def test_summary_medians_and_ratios() -> None:
    def run(wall: float, pss: int, **pagesieve: object) -> dict:
        return {"wall_s": wall, "peak_pss_mib": pss, "peak_rss_mib": pss, "pages_in": 9, "docs_out": 8,
                "pss_by_kind_mib": {}, "processes": 3, "jsonl_sha256": "x", **pagesieve}

    def stages(wall: float) -> dict:
        return {"startup_s": wall / 10, "stages_s": {"ingest": wall / 5, "clean": wall / 2}}

    rows = bp.summarize({"pagesieve-cnr": [run(10, 1000, **stages(10)), run(30, 3000, **stages(30)),
                                           run(20, 2000, **stages(20))],
                         "datatrove": [run(80, 500), run(40, 500), run(60, 500)]}, records=12_000, cores=2)
    ours, theirs = rows
    assert ours["wall_s"] == 20 and ours["records_per_s"] == 600 and ours["records_per_s_core"] == 300
    assert ours["startup_s"] == 2 and ours["stages_s"] == {"ingest": 4, "clean": 10}     # medians per stage
    assert "stages_s" not in theirs and ours["processes_at_peak"] == 3
    assert ours["speed_vs_datatrove"] == 3.0 and ours["memory_vs_datatrove"] == 4.0
    assert ours["pss_gb_per_core"] == round(2000 / 1024 / 2, 2)
    assert theirs["speed_vs_datatrove"] == 1.0 and ours["same_output_every_round"]


def test_a_method_may_carry_a_page_deadline(tmp_path: Path) -> None:
    inputs = bp.InputSet(tmp_path, [], 1, 0)
    cmd = bp.system_command("pagesieve-trafilatura@1", inputs, tmp_path / "out", 2, ["spark.driver.memory=1g"])
    assert cmd[cmd.index("--method") + 1] == "trafilatura"
    assert "clean.page_timeout_s=1.0" in cmd and "spark.driver.memory=1g" in cmd
    assert "clean.page_timeout_s=1.0" not in bp.system_command("pagesieve-trafilatura", inputs, tmp_path, 2, [])


def test_unknown_peer_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert bp.main(["--peers", "nutch"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "unknown peer 'nutch'" in err


@pytest.mark.slow
def test_a_peer_run_measured_as_a_tree(tmp_path: Path) -> None:
    inputs = bp.build_input(WARC, tmp_path / "in", min_records=100)
    result = bp.measure("fastwarc-resiliparse", inputs, tmp_path / "out" / "plain", cores=2, conf=[])
    assert result["returncode"] == 0
    assert result["processes"] >= 2          # the loop and its pool
    assert result["peak_pss_mib"] > 20
    # FastWARC stops at the ClueWeb09 excerpt; the rest of the HTML responses are read
    assert 300 <= result["pages_in"] < 600 and 0 < result["docs_out"] <= result["pages_in"]
    assert result["jsonl_lines"] == result["docs_out"]


@pytest.mark.slow
def test_no_page_id_repeats_in_the_1x_input(tmp_path: Path) -> None:
    """Every id a page can take (TREC-ID, else WARC-Record-ID) occurs once in the whole 1x input, as the export
    requires; read with the lenient tolerance the readers have (a file stops where FastWARC stops)."""
    from fastwarc.warc import ArchiveIterator

    inputs = bp.build_input(WARC, tmp_path / "in")
    seen: dict[str, str] = {}
    for path in inputs.files:
        ids = []
        # FastWARC stops in the ClueWeb09 excerpt: that file's ids are left out
        with open(path, "rb") as fh, contextlib.suppress(Exception):
            ids += [r.headers.get("WARC-TREC-ID") or r.headers.get("WARC-Record-ID") for r in ArchiveIterator(fh)
                    if r.headers.get("WARC-Type") == "response"]     # the records that become pages
        for page_id in ids:
            assert page_id not in seen, f"{page_id} in {path.name} and {seen[page_id]}"
            seen[page_id] = path.name
    assert len(seen) > 4_000
