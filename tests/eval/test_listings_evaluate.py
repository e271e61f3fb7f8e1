"""`pagesieve evaluate --listings` on three real listing pages: the report files, and scores that are exactly
what `score_records` gives for each method's output (one place computes the metrics)."""

from __future__ import annotations

import csv
import json
import shutil

import pytest

from pagesieve.eval.listings import read_listings, record_views, score_records
from pagesieve.eval.listings_report import schema_for, split_spec
from pagesieve.jobs import evaluate
from pagesieve.models.page import parse_page
from pagesieve.models.registry import build_method
from pagesieve.settings import ConfigError

PAGES = ("re-agents-dexters", "tb-ebay-1", "tb-indeed-1")      # three domains, three schemas' worth of pages
ABLATION = ("amber", "amber:structure", "amber:annotations")


@pytest.fixture(scope="module")
def listings(shared_data, tmp_path_factory):
    folder = tmp_path_factory.mktemp("listings")
    for sub, ext in (("pages", "html"), ("truth", "json")):
        (folder / sub).mkdir()
        for page_id in PAGES:
            shutil.copy(shared_data / "listings" / sub / f"{page_id}.{ext}", folder / sub)
    return folder


@pytest.mark.slow  # the ablation over every listing page
def test_ablation_report_has_every_file_and_the_scorer_s_figures(listings, tmp_path, capsys):
    out = tmp_path / "report"
    assert evaluate.main(["--listings", str(listings), "--ablation", "--out", str(out), "--warmup", "0",
                          "--cpu", "-1"]) == 0
    data = json.loads((out / "report.json").read_text())
    assert set(data["files"]) == {"report.json", "report.md", "scores.csv", "record_f1_listings.png"}
    assert (out / "record_f1_listings.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert list(data["methods"]) == list(ABLATION)
    with open(out / "scores.csv", encoding="utf-8") as fh:
        rows = {(r["method"], r["page_id"]): r for r in csv.DictReader(fh)}
    assert set(rows) == {(m, p) for m in ABLATION for p in PAGES}
    for page in read_listings(listings):
        for spec in ABLATION:
            name, mode = split_spec(spec)
            method = build_method(name, {"schema": schema_for(page.domain), "mode": mode or "amber"},
                                  kind="extractor")
            result = method.process(parse_page(page.html))
            expected = score_records(result.records, page, views=record_views(result.records, page.html))
            row = rows[(spec, page.page_id)]
            assert row["schema"] == schema_for(page.domain)
            assert (int(row["record_tp"]), int(row["record_predicted"]), int(row["record_gold"])) == (
                expected.records.tp, expected.records.predicted, expected.records.gold), (spec, page.page_id)
            total = expected.attributes_total
            assert (int(row["attribute_tp"]), int(row["attribute_predicted"]), int(row["attribute_gold"])) == (
                total.tp, total.predicted, total.gold), (spec, page.page_id)
    for spec in ABLATION:
        overall = data["methods"][spec]["groups"]["overall"]["records_micro"]
        tp, predicted, gold = (sum(int(rows[(spec, p)][f"record_{k}"]) for p in PAGES)
                               for k in ("tp", "predicted", "gold"))
        assert (overall["tp"], overall["predicted"], overall["gold"]) == (tp, predicted, gold)
        assert overall["precision"] == round(tp / predicted, 4) and overall["recall"] == round(tp / gold, 4)
    # AMBER finds every dexters record; each ablation alone misses some (the paper's claim, on a real page)
    dexters = {spec: float(rows[(spec, "re-agents-dexters")]["record_f1"]) for spec in ABLATION}
    assert dexters["amber"] == 1.0 and max(dexters["amber:structure"], dexters["amber:annotations"]) < 1.0
    report_md = (out / "report.md").read_text()
    assert "| amber | 3 |" in report_md and "| re-agents-dexters | real_estate | 1.00 (4/4) |" in report_md
    assert "| amber | 3 |" in capsys.readouterr().out


def test_listings_options_fail_with_one_line(listings, tmp_path):
    out = str(tmp_path / "r")
    with pytest.raises(ConfigError, match="amber.mode: must be one of"):
        evaluate.main(["--listings", str(listings), "--methods", "amber:nosuch", "--out", out])
    with pytest.raises(ConfigError, match="is a cleaner"):
        evaluate.main(["--listings", str(listings), "--methods", "cnr", "--out", out])
    with pytest.raises(ConfigError, match="give one"):
        evaluate.main(["--listings", str(listings), "--dataset", str(listings), "--out", out])
    with pytest.raises(ConfigError, match="no such folder"):
        evaluate.main(["--listings", str(tmp_path / "nosuch"), "--out", out])
    with pytest.raises(ConfigError, match="only with --listings"):
        evaluate.main(["--dataset", str(listings), "--ablation", "--out", out])


def test_a_dotted_path_is_a_name_not_a_name_and_a_mode():
    assert split_spec("amber:structure") == ("amber", "structure")
    assert split_spec("amber") == ("amber", "")
    assert split_spec("mypackage.extract:Mine") == ("mypackage.extract:Mine", "")
    assert split_spec("mypackage.extract:Mine:fast") == ("mypackage.extract:Mine", "fast")
