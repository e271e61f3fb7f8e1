"""pagesieve.eval.compare_scores (run by scripts/eval/compare_scores.py) over a scores.csv in `pagesieve evaluate`'s
format: pairing, the bar, errors."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from pagesieve.eval import compare_scores
from pagesieve.eval.significance import paired_bootstrap


def write_scores(path: Path, rows: list[tuple[str, str, str, float]]) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["dataset", "page_id", "method", "status", "bow_f1", "shingle_f1"])
        writer.writerows((d, p, m, "ok", f, f) for d, p, m, f in rows)
    return path


def table(out: str) -> dict[str, list[str]]:
    rows = [line.strip("|").split("|") for line in out.splitlines() if line.startswith("| ")][1:]
    return {cells[0].strip(): [c.strip() for c in cells] for cells in rows}


def test_the_bar_is_the_better_peer_on_the_pages_all_scored(tmp_path, capsys):
    ours = [0.9, 0.8, 0.7, 0.95] * 6
    peer_a = [0.85, 0.8, 0.75, 0.9] * 6
    peer_b = [0.5] * 24
    rows = [("pool", f"p{i}", m, s[i]) for i in range(24) for m, s in
            (("ours", ours), ("a", peer_a), ("b", peer_b))]
    rows += [("pool", "only-ours", "ours", 0.0), ("other", "x", "a", 1.0)]   # unpaired; a dataset without ours
    path = write_scores(tmp_path / "scores.csv", rows)
    assert compare_scores.main([str(path), "--method", "ours", "--against", "b,a"]) == 0
    captured = capsys.readouterr()
    cells = table(captured.out)["pool"]
    want = paired_bootstrap(ours, peer_a)
    assert cells[1:5] == ["24 (1 unpaired left out)", f"{sum(ours) / 24:.4f}", "a", f"{sum(peer_a) / 24:.4f}"]
    assert cells[5:] == [f"{want.difference:+.4f}", f"[{want.low:+.4f}, {want.high:+.4f}]",
                         f"{want.wins} / {want.ties} / {want.losses}"]
    assert "other: skipped, no scores for ours, b" in captured.err


def test_a_file_that_is_not_a_scores_csv_is_refused(tmp_path):
    path = tmp_path / "scores.csv"
    path.write_text("dataset,page_id,method\npool,p1,ours\n")
    with pytest.raises(SystemExit, match="no column bow_f1"):
        compare_scores.main([str(path), "--method", "ours", "--against", "a"])
    with pytest.raises(SystemExit, match="no such file"):
        compare_scores.main([str(tmp_path / "missing.csv"), "--method", "ours", "--against", "a"])
    scores = write_scores(tmp_path / "s.csv", [("pool", "p1", "ours", 0.5), ("pool", "p1", "a", 0.4)])
    with pytest.raises(SystemExit, match="no dataset"):
        compare_scores.main([str(scores), "--method", "theirs", "--against", "a"])
    with pytest.raises(SystemExit):      # argparse: a level of 1.5 is an error, not an interval
        compare_scores.main([str(scores), "--method", "ours", "--against", "a", "--level", "1.5"])


def test_pages_without_the_metric_are_left_out(tmp_path, capsys):
    # a snippet-gold dataset (trafilatura-eval) has empty bow_f1 cells in scores.csv: not a number, not an error
    rows = [("pool", f"p{i}", m, s) for i in range(3) for m, s in (("ours", 0.9), ("a", 0.8))]
    rows += [("snip", "s1", "ours", ""), ("snip", "s1", "a", "")]
    path = write_scores(tmp_path / "scores.csv", rows)  # type: ignore[arg-type]
    assert compare_scores.main([str(path), "--method", "ours", "--against", "a"]) == 0
    found = table(capsys.readouterr().out)
    assert list(found) == ["pool"] and found["pool"][1].startswith("3 (few")
