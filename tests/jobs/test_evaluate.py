"""pagesieve evaluate end to end on a real benchmark subset: report files, skipped methods, sane figures."""

from __future__ import annotations

import csv
import json
import statistics
import sys
from pathlib import Path

import pytest

from pagesieve.jobs import evaluate

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import compare_scores  # noqa: E402


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
    # scripts/compare_scores.py reads this scores.csv: its means are the report's, the gap their difference
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


def test_evaluate_swde_scores_freedom_per_site_with_and_without_voting(tmp_path):
    out = tmp_path / "swde"
    assert evaluate.main(["--swde", "synthetic:21-21", "--model", "book", "--out", str(out), "--cpu", "-1"]) == 0
    data = json.loads((out / "report.json").read_text())
    assert set(data) == {"config", "node", "vote"} and set(data["node"]) == {"synbook21", "mean"}
    # the shipped model on a held-out generated site (docs/methods/freedom.md#results: 0.996 alone, 0.973 with voting)
    assert data["node"]["mean"]["f1"] >= 0.9 and data["vote"]["synbook21"]["fields"]["title"]["f1"] == 1.0
    assert "| synbook21 |" in (out / "report.md").read_text()
    with pytest.raises(evaluate.ConfigError, match="--swde"):
        evaluate.main(["--swde", "nosuchsite", "--out", str(tmp_path / "x")])
