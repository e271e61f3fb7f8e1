"""pagesieve evaluate end to end on a real benchmark subset: report files, skipped methods, sane figures."""

from __future__ import annotations

import csv
import json

from pagesieve.jobs import evaluate


def test_evaluate_writes_every_report_file(shared_data, tmp_path, capsys):
    out = tmp_path / "report"
    rc = evaluate.main(["--dataset", str(shared_data / "scrapinghub"), "--methods", "cnr,all_text,no_such_method",
                        "--out", str(out), "--limit", "6", "--warmup", "2", "--memory-pages", "3"])
    assert rc == 0
    data = json.loads((out / "report.json").read_text())
    assert set(data["files"]) == {"report.json", "report.md", "scores.csv", "f1_scrapinghub.png", "speed_vs_f1.png"}
    assert all((out / f).stat().st_size > 0 for f in data["files"])
    assert "no_such_method" in data["skipped"] and "unknown method" in data["skipped"]["no_such_method"]
    figures = data["datasets"]["scrapinghub"]
    assert set(figures) == {"cnr", "all_text"}
    for name in ("cnr", "all_text"):
        assert figures[name]["pages"] == 6
        assert figures[name]["speed"]["pages_per_s"] > 0 and figures[name]["memory"]["peak_mb"] > 0
    # the naive baseline keeps everything: recall at least CNR's, precision at most CNR's
    bow = {n: figures[n]["bag_of_words"]["mean"] for n in figures}
    assert bow["all_text"]["recall"] >= bow["cnr"]["recall"] and bow["all_text"]["precision"] <= bow["cnr"]["precision"]
    with open(out / "scores.csv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 12 and {r["method"] for r in rows} == {"cnr", "all_text"}
    assert "| cnr |" in (out / "report.md").read_text() and "no_such_method" in capsys.readouterr().out


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
