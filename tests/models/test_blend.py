"""The `blend` method: BlockNet whose model also reads the peers' votes per block (models/blocknet/peers.py)."""

from __future__ import annotations

import numpy as np
import pytest

from pagesieve.models.blocknet import BlockNetModel
from pagesieve.models.blocknet.model import INPUT_SETS, computed_names
from pagesieve.models.blocknet.peers import PEER_INPUT_NAMES, PEERS, PeerVotes, held_by, peer_columns
from pagesieve.models.blocknet.training import Recipe, TrainingPage, train
from pagesieve.models.page import parse_page
from pagesieve.models.registry import build_method


def _news_page(shared_data) -> str:
    return (shared_data / "l3s-gn1" / "input" / "022b482d-88d7-4951-a3c8-d7248db02989.html").read_bytes()


def test_a_block_gets_a_vote_from_each_peer_whose_output_holds_its_text():
    texts = ["Main  story text here.", "Home", "Comments (3)"]
    outputs = ["Headline\nMain story\ttext here.\nMore", "", "Main story text here. Comments (3)"]
    cols = peer_columns(texts, outputs)
    assert cols.shape == (3, len(PEER_INPUT_NAMES)) and len(PEER_INPUT_NAMES) == 2 * len(PEERS)
    assert cols[:, 0].tolist() == [1.0, 0.0, 0.0]            # trafilatura: white space folded before matching
    assert cols[:, 2].tolist() == [0.0, 0.0, 0.0]            # readability found nothing
    assert cols[:, 4].tolist() == [1.0, 0.0, 1.0]            # resiliparse
    total = len("Main story text here.") + len("Home") + len("Comments (3)")
    assert cols[0, 1] == pytest.approx(len("Headline Main story text here. More") / total)
    assert cols[0, 3] == 0.0 and (cols[:, 1] == cols[0, 1]).all()   # the share is the page's, on every block


def test_held_by_answers_as_a_substring_test_for_blocks_in_any_order():
    output = "ab cd ef ab gh ij cd"
    blocks = ["ab", "cd", "ab", "ij", "ef", "cd ef", "", "gh ij cd", "zz", "ab gh", "j cd", "ab cd ef ab gh ij cd x"]
    assert held_by(blocks, output).tolist() == [bool(t) and t in output for t in blocks]
    rng = np.random.default_rng(0)   # blocks cut from the output, shuffled, and some that are not in it
    output = " ".join(rng.choice(["a", "b", "c", "dd"], size=400))
    cuts = [output[i:i + n] for i, n in zip(rng.integers(0, 390, 300), rng.integers(1, 12, 300), strict=True)]
    blocks = [c.strip() for c in cuts] + ["a a a a a a a a", "dd dd dd dd dd", "e"]
    rng.shuffle(blocks)
    assert held_by(blocks, output).tolist() == [bool(t) and t in output for t in blocks]


def test_the_share_is_capped_and_an_empty_page_gives_no_rows():
    assert peer_columns(["a"], ["x" * 100, "", ""])[0, 1] == 5.0
    assert peer_columns([], ["x", "y", "z"]).shape == (0, len(PEER_INPUT_NAMES))


def test_the_peers_run_on_a_page(shared_data):
    html = _news_page(shared_data)
    outputs = PeerVotes().outputs(parse_page(html))
    assert len(outputs) == 3 and all(len(o) > 100 for o in outputs)


def _pages(width: int, n: int = 6) -> list[TrainingPage]:
    rng = np.random.default_rng(0)
    return [TrainingPage("p", str(i), rng.normal(size=(40, width)).astype(np.float32),
                         (rng.random(40) > 0.5).astype(np.float32), np.ones(40, np.float32)) for i in range(n)]


def test_a_blend_model_keeps_its_inputs_through_save_and_load(tmp_path):
    model, _ = train(_pages(len(INPUT_SETS["blend"])), Recipe(epochs=1), seed=0, inputs="blend")
    model.save(tmp_path / "m")
    loaded = BlockNetModel.load(tmp_path / "m.npz")
    assert loaded.inputs == "blend" and loaded.net.in_features == len(INPUT_SETS["blend"])
    x = _pages(len(INPUT_SETS["blend"]), 1)[0].inputs
    np.testing.assert_array_equal(loaded.logits([x])[0], model.logits([x])[0])


def test_training_refuses_inputs_of_another_width():
    with pytest.raises(ValueError, match="input columns"):
        train(_pages(len(INPUT_SETS["blocknet"])), Recipe(epochs=1), seed=0, inputs="blend")


def test_blend_refuses_a_model_that_does_not_read_the_peers():
    with pytest.raises(ValueError, match="does not read the peers' votes"):
        build_method("blend", {"model": "default", "device": "cpu"})


def test_blend_runs_the_peers_and_its_model_on_a_page(tmp_path, shared_data):
    model, _ = train(_pages(len(INPUT_SETS["blend"])), Recipe(epochs=1), seed=0, inputs="blend")
    model.save(tmp_path / "m")
    html = _news_page(shared_data)
    method = build_method("blend", {"model": str(tmp_path / "m.npz"), "device": "cpu"})
    page = parse_page(html)
    inputs = method.batch_inputs(page).inputs[0]
    assert inputs.shape[1] == len(computed_names("blend")) and inputs[:, -6::2].any()   # some block has a vote
    # the model reads its own columns of them: those before the selector features, and the votes
    narrowed = method.model.narrow(inputs)
    np.testing.assert_array_equal(narrowed, np.hstack([inputs[:, : len(INPUT_SETS["blend"]) - 6], inputs[:, -6:]]))
    assert method.model.narrow(narrowed) is narrowed
    assert method.process(page).status in ("ok", "empty")


def test_an_experiments_own_columns_train_but_do_not_save(tmp_path):
    model, _ = train(_pages(len(INPUT_SETS["blocknet"]) + 2), Recipe(epochs=1), seed=0, inputs=None)
    assert len(model.logits([_pages(len(INPUT_SETS["blocknet"]) + 2, 1)[0].inputs])[0]) == 40
    with pytest.raises(ValueError, match="cannot be saved"):
        model.save(tmp_path / "m")


def test_a_blend_lite_model_reads_trafilaturas_and_resiliparses_votes_only(tmp_path, shared_data):
    """blend-lite: the same columns of the two peers it reads, named as in the three-peer model."""
    assert INPUT_SETS["blend-lite"][-4:] == ["p1.in_trafilatura", "p2.share_trafilatura", "p5.in_resiliparse",
                                             "p6.share_resiliparse"]
    model, _ = train(_pages(len(INPUT_SETS["blend-lite"])), Recipe(epochs=1), seed=0, inputs="blend-lite")
    model.save(tmp_path / "m")
    assert BlockNetModel.load(tmp_path / "m.npz").inputs == "blend-lite"
    method = build_method("blend", {"model": str(tmp_path / "m.npz"), "device": "cpu"})
    assert method.peers.peers == ("trafilatura", "resiliparse")
    page = parse_page(_news_page(shared_data))
    inputs = method.batch_inputs(page).inputs[0]
    three = PeerVotes().outputs(page)
    expected = peer_columns(method.batch_inputs(page).blocks.text, [three[0], three[2]])
    np.testing.assert_array_equal(inputs[:, -4:], expected)
    assert inputs.shape[1] == len(computed_names("blend-lite")) and inputs[:, -4::2].any()
    assert method.model.narrow(inputs).shape[1] == len(INPUT_SETS["blend-lite"])
