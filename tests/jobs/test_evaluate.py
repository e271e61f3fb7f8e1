"""pagesieve evaluate end to end on a real benchmark subset: report files, skipped methods, sane figures."""

from __future__ import annotations

import csv
import json
import statistics
from pathlib import Path

import pytest

from pagesieve.eval import compare_scores
from pagesieve.jobs import evaluate


@pytest.mark.slow
def test_evaluate_writes_every_report_file(shared_data, tmp_path, capsys):
    out = tmp_path / "report"
    rc = evaluate.main(["--dataset", str(shared_data / "scrapinghub"), "--methods", "cnr,all_text",
                        "--out", str(out), "--limit", "6", "--warmup", "2", "--memory-pages", "3"])
    assert rc == 0
    data = json.loads((out / "report.json").read_text())
    assert set(data["files"]) == {"report.json", "report.md", "scores.csv", "f1_scrapinghub.png", "speed_vs_f1.png"}
    assert all((out / f).read_bytes().startswith(b"\x89PNG\r\n\x1a\n") for f in data["files"] if f.endswith(".png"))
    assert data["skipped"] == {}      # an unknown method name fails the command instead (tests/jobs/test_config.py)
    figures = data["datasets"]["scrapinghub"]
    assert set(figures) == {"cnr", "all_text"}
    with open(out / "scores.csv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 12 and {r["method"] for r in rows} == {"cnr", "all_text"}
    report_md = (out / "report.md").read_text()
    for name in ("cnr", "all_text"):
        assert figures[name]["pages"] == 6
        # speed: the figures are those of the per-page times in scores.csv (rounded there to 0.001 ms)
        ms = sorted(float(r["ms"]) for r in rows if r["method"] == name)
        speed, slack = figures[name]["speed"], 0.0005 * len(ms)
        assert len(ms) == 6 and sum(ms) > slack, ms
        assert 6000 / (sum(ms) + slack) - 0.05 <= speed["pages_per_s"] <= 6000 / (sum(ms) - slack) + 0.05, (speed, ms)
        assert speed["median_ms"] == pytest.approx(statistics.median(ms), abs=0.006)
        assert speed["p99_ms"] == pytest.approx(ms[-1], abs=0.006)  # 6 pages: the 99th percentile is the slowest
        # memory: the probe of this method over --memory-pages 3, peak = baseline + delta
        memory = figures[name]["memory"]
        assert (memory["method"], memory["pages"]) == (name, 3)
        assert memory["peak_mb"] >= memory["baseline_mb"] >= 20  # a Python with lxml and the method loaded
        assert memory["delta_mb"] == pytest.approx(memory["peak_mb"] - memory["baseline_mb"], abs=0.11)
        # report.md renders these figures in the method's row
        assert (f"| {speed['pages_per_s']} | {speed['median_ms']} | {speed['p99_ms']} | "
                f"{memory['peak_mb']:.0f} (+{memory['delta_mb']:.0f}) |") in report_md
    # the naive baseline keeps everything: recall at least CNR's, precision at most CNR's
    bow = {n: figures[n]["bag_of_words"]["mean"] for n in figures}
    assert bow["all_text"]["recall"] >= bow["cnr"]["recall"] and bow["all_text"]["precision"] <= bow["cnr"]["precision"]
    assert "| cnr | 6 |" in report_md and "| cnr | 6 |" in capsys.readouterr().out
    # scripts/eval/compare_scores.py reads this scores.csv: its means are the report's, the gap their difference
    assert compare_scores.main([str(out / "scores.csv"), "--method", "cnr", "--against", "all_text"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("| scrapinghub |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    cnr_f1, all_f1 = bow["cnr"]["f1"], bow["all_text"]["f1"]
    assert cells[1] == "6 (few: the interval is a hint)" and cells[3] == "all_text"
    assert float(cells[2]) == pytest.approx(cnr_f1, abs=2e-4) and float(cells[4]) == pytest.approx(all_f1, abs=2e-4)
    assert float(cells[5]) == pytest.approx(cnr_f1 - all_f1, abs=3e-4)
    assert sum(int(n) for n in cells[7].split(" / ")) == 6


def test_bring_your_own_jsonl_dataset(tmp_path):
    jsonl = tmp_path / "mine.jsonl"
    article = "Real article sentence here. " * 20
    page = f"<html><body><nav>Home | About</nav><div><p>{article}</p></div></body></html>"
    jsonl.write_text(json.dumps({"url": "http://x.test/", "html": page, "text": article}))
    out = tmp_path / "r"
    assert evaluate.main(["--dataset", str(jsonl), "--methods", "cnr", "--out", str(out), "--no-memory",
                          "--no-plots", "--warmup", "0"]) == 0
    figures = json.loads((out / "report.json").read_text())["datasets"]["mine"]["cnr"]
    assert figures["bag_of_words"]["mean"]["f1"] == 1.0


@pytest.mark.slow  # FreeDOM over generated sites
def test_evaluate_swde_scores_freedom_per_site_with_and_without_voting(tmp_path):
    out = tmp_path / "swde"
    assert evaluate.main(["--swde", "synthetic:21-21", "--model", "book", "--out", str(out), "--cpu", "-1"]) == 0
    data = json.loads((out / "report.json").read_text())
    assert set(data) == {"config", "node", "vote"} and set(data["node"]) == {"synbook21", "mean"}
    # the shipped model on a held-out generated site (2026-11-27 model: 0.982 without voting, 0.972 with)
    assert data["node"]["mean"]["f1"] >= 0.9 and data["vote"]["synbook21"]["fields"]["title"]["f1"] == 1.0
    assert "| synbook21 |" in (out / "report.md").read_text()
    with pytest.raises(evaluate.ConfigError, match="--swde"):
        evaluate.main(["--swde", "nosuchsite", "--out", str(tmp_path / "x")])


def _pool(root: Path) -> Path:
    """Three hand-made pages: a (article, gzipped, plain + snippet gold), b (forum, language de), c (article,
    plain gold only)."""
    import gzip

    for sub in ("input", "gold", "gold-snippets"):
        (root / sub).mkdir(parents=True)
    (root / "input" / "a.html.gz").write_bytes(gzip.compress(b"<html><body><p>Alpha beta gamma.</p>"
                                                             b"<nav>Menu</nav></body></html>"))
    (root / "input" / "b.html").write_bytes(b"<html><body><p>One two.</p></body></html>")
    (root / "input" / "c.html").write_bytes(b"<html><body><p>Delta.</p></body></html>")
    for page_id, gold in (("a", "Alpha beta gamma."), ("b", "One two."), ("c", "Delta.")):
        (root / "gold" / f"{page_id}.txt").write_text(gold, "utf-8")
    (root / "gold-snippets" / "a.json").write_text(json.dumps({"with": ["Alpha beta"], "without": ["Menu"]}))
    (root / "gold-snippets" / "b.json").write_text(json.dumps({"with": ["One two", "three"], "without": ["Login"]}))
    rows = [{"id": "a", "page_type": "article"}, {"id": "b", "page_type": "forum", "language": "de"},
            {"id": "c", "page_type": "article", "language": None}]
    (root / "meta.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root


def test_by_breaks_every_figure_down_by_a_meta_field(tmp_path, capsys):
    pool, out = _pool(tmp_path / "pool"), tmp_path / "r"
    assert evaluate.main(["--dataset", str(pool), "--methods", "all_text", "--by", "page_type", "--by", "language",
                          "--out", str(out), "--no-memory", "--no-plots", "--warmup", "0", "--cpu", "-1"]) == 0
    report = json.loads((out / "report.json").read_text())
    assert report["config"]["by"] == ["page_type", "language"]
    whole = report["datasets"]["pool"]["all_text"]
    # all_text outputs "Alpha beta gamma. Menu", "One two.", "Delta.": snippets a tp 1 fp 1; b tp 1 fn 1 tn 1
    assert {k: whole["snippets"][k] for k in ("pages", "tp", "fp", "fn", "tn")} == {
        "pages": 2, "tp": 2, "fp": 1, "fn": 1, "tn": 1}
    assert whole["snippets"]["accuracy"] == pytest.approx(3 / 5)
    by_type = report["by"]["page_type"]["pool"]
    assert list(by_type) == ["article", "forum"]            # more pages first
    article, forum = by_type["article"]["all_text"], by_type["forum"]["all_text"]
    # article: a (BoW P 3/4, R 1, F1 6/7) and c (F1 1); snippets of a only
    assert (article["pages"], article["gold_pages"], article["snippets"]["pages"]) == (2, 2, 1)
    assert article["bag_of_words"]["mean"]["f1"] == pytest.approx((6 / 7 + 1) / 2)
    assert (article["snippets"]["precision"], article["snippets"]["recall"]) == (0.5, 1.0)
    assert (forum["snippets"]["precision"], forum["snippets"]["recall"]) == (1.0, 0.5)
    assert forum["snippets"]["accuracy"] == pytest.approx(2 / 3)
    # a missing or null value is the group "(none)"
    assert {v: g["all_text"]["pages"] for v, g in report["by"]["language"]["pool"].items()} == {"(none)": 2, "de": 1}
    with open(out / "scores.csv", newline="", encoding="utf-8") as fh:
        rows = {r["page_id"]: r for r in csv.DictReader(fh)}
    assert {i: (r["page_type"], r["language"]) for i, r in rows.items()} == {
        "a": ("article", "(none)"), "b": ("forum", "de"), "c": ("article", "(none)")}
    assert (rows["a"]["snippet_tp"], rows["a"]["snippet_fp"], rows["c"]["snippet_tp"]) == ("1", "1", "")
    md = (out / "report.md").read_text()
    assert "## pool by page_type" in md and "| article | all_text | 2 | 0 |" in md
    assert "## pool by language" in md and "| de | all_text | 1 | 0 |" in md


def test_by_refuses_a_field_no_page_has(tmp_path):
    from pagesieve.jobs.common import ConfigError

    pool = _pool(tmp_path / "pool")
    with pytest.raises(ConfigError, match="--by colour: no page .* has it in meta.jsonl .*fields: id, language, "
                                          "page_type"):
        evaluate.main(["--dataset", str(pool), "--methods", "all_text", "--by", "colour", "--out",
                       str(tmp_path / "r")])
    with pytest.raises(ConfigError, match="--by status: already a column of scores.csv"):
        evaluate.main(["--dataset", str(pool), "--methods", "all_text", "--by", "status", "--out",
                       str(tmp_path / "r")])


@pytest.mark.slow
def test_evaluate_modern_and_non_english_pools(shared_data, tmp_path, capsys):
    out = tmp_path / "modern"
    assert evaluate.main(["--dataset", str(shared_data / "wcxb"), "--dataset", str(shared_data / "trafilatura-eval"),
                          "--methods", "cnr,trafilatura", "--by", "page_type", "--by", "language", "--limit", "10",
                          "--warmup", "2", "--no-memory", "--no-plots", "--cpu", "-1", "--out", str(out)]) == 0
    report = json.loads((out / "report.json").read_text())
    wcxb, traf = report["datasets"]["wcxb"], report["datasets"]["trafilatura-eval"]
    for name in ("cnr", "trafilatura"):
        # WCXB: plain gold (BoW) and its gold-json snippets; trafilatura-eval: snippets only
        assert wcxb[name]["pages"] == wcxb[name]["gold_pages"] == 10 and wcxb[name]["snippets"]["pages"] == 10
        assert 0.5 < wcxb[name]["bag_of_words"]["mean"]["f1"] <= 1
        assert traf[name]["pages"] == traf[name]["snippets"]["pages"] == 10 and "bag_of_words" not in traf[name]
        assert 0.5 < traf[name]["snippets"]["f1"] <= 1 and traf[name]["snippets"]["passages"] >= 20
    # the first 10 WCXB pages are articles; the first 10 trafilatura-eval pages are German
    assert list(report["by"]["page_type"]) == ["wcxb"] and list(report["by"]["page_type"]["wcxb"]) == ["article"]
    assert list(report["by"]["language"]) == ["trafilatura-eval"]
    assert sum(g["cnr"]["pages"] for g in report["by"]["language"]["trafilatura-eval"].values()) == 10
    md = (out / "report.md").read_text()
    assert "| method | pages | empty | snippet P | snippet R | snippet F1 | snippet accuracy |" in md
    assert "## trafilatura-eval by language" in md and "No `page_type` value in meta.jsonl of: trafilatura-eval." in md
    with open(out / "scores.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 40 and {r["page_type"] for r in rows if r["dataset"] == "wcxb"} == {"article"}
    assert all(r["bow_f1"] == "" and r["snippet_tp"] != "" for r in rows if r["dataset"] == "trafilatura-eval")
