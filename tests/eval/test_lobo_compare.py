"""scripts/eval/lobo_blocknet.py compare: two leave-one-benchmark-out runs' per-page scores, each pool's paired
difference and the macro's stratified interval."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest


@pytest.fixture(scope="module")
def lobo(load_script):
    return load_script("eval/lobo_blocknet.py")


def write_report(path: Path, name: str, f1: list[float], counts: list[list[int]]) -> str:
    per_page = {"bow": [{"id": f"b{i}", "f1": v, "counts": None, "empty": False} for i, v in enumerate(f1)],
                "snippets": [{"id": f"s{i}", "f1": float("nan"), "counts": c, "empty": False}
                             for i, c in enumerate(counts)]}
    path.write_text(json.dumps({"name": name, "per_page": per_page}))
    return str(path)


def test_a_run_against_itself_differs_by_nothing(tmp_path, lobo):
    a = write_report(tmp_path / "a.json", "a", [0.5, 0.9, 0.7], [[3, 1, 0, 2], [1, 0, 1, 0]])
    c = lobo.compare(a, a, rounds=200)
    assert c["macro"] == {"difference": 0.0, "low": 0.0, "high": 0.0}
    assert all(r["difference"] == 0 for r in c["pools"].values())


def test_the_macro_is_the_mean_of_the_pools_differences_with_an_interval_around_it(tmp_path, lobo):
    rng = np.random.default_rng(1)
    base = rng.uniform(0.5, 0.9, 40)
    counts = [[int(t), 1, 1, 0] for t in rng.integers(1, 6, 30)]
    better = [[t + 2, fp, fn, tn] for t, fp, fn, tn in counts]           # more passages found on every page
    a = write_report(tmp_path / "a.json", "a", list(base + rng.normal(0.05, 0.05, 40)), better)
    b = write_report(tmp_path / "b.json", "b", list(base), counts)
    c = lobo.compare(a, b, rounds=500)
    pools = c["pools"]
    assert pools["bow"]["difference"] == pytest.approx(pools["bow"]["a"] - pools["bow"]["b"], abs=2e-4)
    assert pools["snippets"]["difference"] > 0                           # micro snippet F1, not a mean of pages
    macro = c["macro"]
    assert macro["difference"] == pytest.approx((pools["bow"]["a"] - pools["bow"]["b"]
                                                  + pools["snippets"]["a"] - pools["snippets"]["b"]) / 2, abs=2e-4)
    assert 0 < macro["low"] < macro["difference"] < macro["high"]


def test_pages_only_one_run_scored_are_left_out_of_the_pairs(tmp_path, lobo):
    # a cache rebuilt after a parser change can hold a page the older run lacks: pair the pages both scored
    a = write_report(tmp_path / "a.json", "a", [0.5, 0.9, 0.7, 0.1], [[3, 1, 0, 2]])
    b = write_report(tmp_path / "b.json", "b", [0.5, 0.9, 0.7], [[3, 1, 0, 2]])
    c = lobo.compare(a, b, rounds=100)
    assert c["pools"]["bow"]["pages"] == 3 and c["pools"]["bow"]["difference"] == 0


def write_cache(cache: Path, resiliparse: str = "", hidden: int = 0,
                texts: tuple[str, ...] = ("alpha", "beta", "menu home"), display_none: tuple[int, ...] = (),
                nav: tuple[int, ...] = (), paths: tuple[int, ...] | None = (0, 1, 2)) -> None:
    """One pool, one page of three blocks, its gold, the peers' outputs: what `ensemble` reads of a cache. `hidden`:
    the page's characters in <noscript>; `display_none`, `nav`: the blocks under an inline `display: none`, a <nav>;
    `paths`: the blocks' class paths (each alone on its own by default; None: a cache of before 2026-12-01)."""
    from pagesieve.models.blocknet.features import INPUT_NAMES

    row = {"id": "p1", "part": "fit", "page_type": None, "language": "en", "texts": list(texts),
           "brk": [True] * 3, "glued": [False] * 3, "hidden": hidden, "gold": "alpha beta", "snippets": None}
    if paths is not None:
        row["paths"] = list(paths)
    inputs = np.zeros((3, len(INPUT_NAMES)), np.float32)
    inputs[list(display_none), INPUT_NAMES.index(next(n for n in INPUT_NAMES if n.endswith(".context.hidden")))] = 1
    inputs[list(nav), INPUT_NAMES.index(next(n for n in INPUT_NAMES if n.endswith(".context.nav")))] = 1
    np.savez(cache / "pool.npz", inputs=inputs, extra=np.zeros((3, 10), np.float32),
             labels=np.array([1, 1, 0], np.float32), weights=np.ones(3, np.float32), offsets=np.array([0, 3]))
    with gzip.open(cache / "pool.pages.jsonl.gz", "wt", encoding="utf-8") as fh:
        fh.write(json.dumps(row) + "\n")
    with gzip.open(cache / "pool.peers.jsonl.gz", "wt", encoding="utf-8") as fh:
        fh.write(json.dumps({"id": "p1", "trafilatura": "alpha", "readability": "alpha beta menu",
                             "resiliparse": resiliparse}) + "\n")


def write_logits(folder: Path, logits: list[float]) -> str:
    folder.mkdir()
    np.savez(folder / "pool.npz", ids=np.array(["p1"]), offsets=np.array([0, 3]), logits=np.array(logits))
    return str(folder)


def test_an_ensemble_scores_the_mean_of_the_runs_logits(tmp_path, lobo):
    write_cache(tmp_path)
    sure = write_logits(tmp_path / "sure", [5.0, 5.0, -5.0])        # alpha and beta: the gold, F1 1
    unsure = write_logits(tmp_path / "unsure", [5.0, -5.0, -5.0])   # with it the mean of beta's is 0: not kept

    def ensemble(*folders: str) -> dict:
        args = SimpleNamespace(reports=list(folders), pools="pool", cache=tmp_path, name="e")
        return lobo.ensemble(args)["pools"]["pool"]

    alone, both = ensemble(sure), ensemble(sure, unsure)
    assert alone["blocknet"] == 1.0
    assert both["blocknet"] == pytest.approx(2 / 3, abs=1e-4)       # "alpha" against "alpha beta"
    assert both["readability"] == pytest.approx(0.8, abs=1e-4) and both["best_peer"] == "readability"
    with pytest.raises(SystemExit, match="other pages or blocks"):
        ensemble(sure, write_logits(tmp_path / "short", [1.0, 2.0]))


def ensemble_of(tmp_path: Path, lobo, logits: list[float]) -> dict:
    folder = write_logits(tmp_path / "run", logits)
    return lobo.ensemble(SimpleNamespace(reports=[folder], pools="pool", cache=tmp_path, name="e"))


def test_the_default_hands_a_page_it_is_unsure_of_to_resiliparse(tmp_path, lobo):
    write_cache(tmp_path, resiliparse="alpha beta")
    report = ensemble_of(tmp_path, lobo, [0.3, 0.2, -0.1])              # every block near a coin toss
    pool = report["pools"]["pool"]
    assert pool["blocknet"] < 1.0 and pool["default"] == 1.0 and pool["to_peer"] == 1
    assert report["macro_default"] == 1.0 and report["per_page_default"]["pool"][0]["peer"] is True


def test_the_printed_report_shows_the_defaults_figures_and_hand_overs(tmp_path, lobo, capsys):
    write_cache(tmp_path, resiliparse="alpha beta")
    lobo.print_report(ensemble_of(tmp_path, lobo, [0.3, 0.2, -0.1]))
    printed = capsys.readouterr().out
    assert "1 to the peer" in printed and "macro: default 1.0000" in printed


def test_the_default_keeps_the_networks_text_where_it_is_sure_or_the_peer_finds_nothing(tmp_path, lobo):
    write_cache(tmp_path, resiliparse="alpha beta")
    sure = ensemble_of(tmp_path, lobo, [5.0, -5.0, -5.0])["pools"]["pool"]
    assert sure["default"] == sure["blocknet"] == pytest.approx(2 / 3, abs=1e-4) and sure["to_peer"] == 0
    empty = tmp_path / "empty"
    empty.mkdir()
    write_cache(empty, resiliparse="  ")
    unsure = ensemble_of(empty, lobo, [0.3, 0.2, -0.1])["pools"]["pool"]
    assert unsure["default"] == unsure["blocknet"] and unsure["to_peer"] == 0


def test_the_default_hands_over_a_page_whose_text_is_hidden_from_its_blocks(tmp_path, lobo):
    # 19 characters of blocks, 200 in <noscript>: the rule of models/blocknet/method.text_hidden
    write_cache(tmp_path, resiliparse="alpha beta", hidden=200)
    assert ensemble_of(tmp_path, lobo, [5.0, -5.0, -5.0])["pools"]["pool"]["to_peer"] == 1
    fewer = tmp_path / "fewer"
    fewer.mkdir()
    write_cache(fewer, resiliparse="alpha beta", hidden=199)
    assert ensemble_of(fewer, lobo, [5.0, -5.0, -5.0])["pools"]["pool"]["to_peer"] == 0


def test_the_markups_rules_rule_out_hidden_copies_and_navigation(tmp_path, lobo):
    """The shipped `drop_hidden_copies` and `drop_landmarks`: the network keeps all three blocks, the scoring drops
    a hidden copy of a shown block and a block under <nav>, as the method does; hidden text that is no copy stays."""
    cases = {"copy": ({"texts": ("alpha", "beta", "alpha"), "display_none": (2,)}, 1.0),
             "nav": ({"texts": ("alpha", "beta", "menu home"), "nav": (2,)}, 1.0),
             "no copy": ({"texts": ("alpha", "beta", "gamma"), "display_none": (2,)}, 0.8)}
    for name, (page, f1) in cases.items():
        folder = tmp_path / name.replace(" ", "-")
        folder.mkdir()
        write_cache(folder, **page)
        pool = ensemble_of(folder, lobo, [5.0, 5.0, 5.0])["pools"]["pool"]
        assert pool["blocknet"] == pool["default"] == pytest.approx(f1, abs=1e-4), name


def test_compare_reads_the_defaults_scores_when_asked(tmp_path, lobo):
    write_cache(tmp_path, resiliparse="alpha beta")
    report = ensemble_of(tmp_path, lobo, [0.3, 0.2, -0.1])
    path = tmp_path / "r.json"
    path.write_text(json.dumps(report))
    c = lobo.compare(str(path), str(path), rounds=50, scores="default")
    assert c["a"] == "e (default)" and c["pools"]["pool"]["a"] == 1.0
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"name": "old", "per_page": report["per_page"]}))
    with pytest.raises(SystemExit, match="no default scores"):
        lobo.compare(str(old), str(path), scores="default")


def test_consensus_scores_the_medoid_of_the_networks_text_and_the_peers(tmp_path, lobo, capsys):
    write_cache(tmp_path, resiliparse="alpha beta")     # trafilatura "alpha", readability "alpha beta menu"

    runs = iter(range(9))

    def consensus(logits: list[float], blend: list[float] | None = None) -> dict:
        folder = write_logits(tmp_path / f"run-{next(runs)}", logits)
        blend_logits = write_logits(tmp_path / f"blend-{next(runs)}", blend) if blend else None
        report = lobo.ensemble(SimpleNamespace(reports=[folder], pools="pool", cache=tmp_path, name="c",
                                               method="consensus", blend_logits=blend_logits))
        lobo.print_report(report)
        assert "as consensus chooses" in capsys.readouterr().out
        return report["pools"]["pool"]

    # the network keeps "menu home" too: readability's text agrees most with the rest (mean F1 0.72 against 0.64)
    outvoted = consensus([5.0, 5.0, 5.0])
    assert outvoted["blocknet"] == pytest.approx(2 / 3, abs=1e-4)
    assert outvoted["default"] == outvoted["readability"] == 0.8 and outvoted["to_peer"] == 1
    # the network's "alpha beta" ties with resiliparse's: the network's text stands
    kept = consensus([5.0, 5.0, -5.0])
    assert kept["default"] == kept["blocknet"] == 1.0 and kept["to_peer"] == 0
    # blend's "alpha beta" ties with resiliparse's and comes first: blend's text
    blended = consensus([5.0, 5.0, 5.0], blend=[5.0, 5.0, -5.0])
    assert blended["default"] == 1.0 and blended["to_peer"] == 1


def test_the_scores_read_the_logits_pulled_toward_their_class_paths(tmp_path, lobo):
    """blocknet's `path_pull`, as the method applies it: "beta" shares "alpha"'s class path and is pulled over the
    threshold by it (the characters-weighted mean of 5 and -0.5 is 2.56; half way from -0.5: +1.03)."""
    write_cache(tmp_path, paths=(0, 0, 1))
    folder = write_logits(tmp_path / "run", [5.0, -0.5, -5.0])

    def pool(**kw) -> dict:
        report = lobo.ensemble(SimpleNamespace(reports=[folder], pools="pool", cache=tmp_path, name="e", **kw))
        return report | report["pools"]["pool"]

    pulled, not_pulled = pool(), pool(path_pull=0.0)
    assert pulled["path_pull"] == 0.5 and pulled["blocknet"] == 1.0
    assert not_pulled["path_pull"] == 0.0 and not_pulled["blocknet"] == pytest.approx(2 / 3, abs=1e-4)
    old = tmp_path / "old"
    old.mkdir()
    write_cache(old, paths=None)
    with pytest.raises(SystemExit, match="no class paths"):
        lobo.ensemble(SimpleNamespace(reports=[folder], pools="pool", cache=old, name="e"))
    assert lobo.ensemble(SimpleNamespace(reports=[folder], pools="pool", cache=old, name="e", path_pull=0.0))


def test_an_ablated_input_is_zero_on_every_block_and_the_others_are_kept(tmp_path, lobo):
    from pagesieve.models.blocknet.features import INPUT_NAMES

    write_cache(tmp_path, display_none=(0, 2), nav=(1,))
    hidden = next(n for n in INPUT_NAMES if n.endswith(".context.hidden"))
    nav = INPUT_NAMES.index(next(n for n in INPUT_NAMES if n.endswith(".context.nav")))
    kept = lobo.CachedPool(tmp_path, "pool", ())
    ablated = lobo.CachedPool(tmp_path, "pool", (f"drop-{hidden}",))
    assert kept.inputs[:, INPUT_NAMES.index(hidden)].tolist() == [1, 0, 1]
    assert ablated.inputs[:, INPUT_NAMES.index(hidden)].tolist() == [0, 0, 0]
    assert ablated.inputs[:, nav].tolist() == [0, 1, 0]
    assert kept.inputs.shape == ablated.inputs.shape
