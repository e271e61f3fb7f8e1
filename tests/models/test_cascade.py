"""The cascade method: BlockNet on every page, blend on the pages BlockNet is unsure of, on real Dragnet pages."""

from __future__ import annotations

import numpy as np
import pytest

from pagesieve.models.blocknet.method import uncertainty
from pagesieve.models.registry import build_method
from pagesieve.settings import ConfigError


@pytest.fixture(scope="module")
def pages(dragnet_pages):
    return dragnet_pages


@pytest.fixture(scope="module")
def alone(pages):
    """Each page by blocknet and by blend, and blocknet's uncertainty on it."""
    # both passes: the networks alone (cascade.trees = false), their own text (no second opinion), the logits as the
    # networks give them (cascade.path_pull = 0)
    blocknet = build_method("blocknet", {"device": "cpu", "unsure_peer": "", "trees": False, "path_pull": 0.0})
    blend = build_method("blend", {"device": "cpu", "unsure_peer": "", "trees": False, "path_pull": 0.0})
    out = []
    for page in pages:
        blocks_inputs = blocknet.batch_inputs(page)
        logits = blocknet.predict_logits([blocks_inputs.inputs[0]])[0]
        by_blocknet = blocknet.batch_results([blocks_inputs])[0].text
        out.append((by_blocknet, blend.process(page).text, uncertainty(blocks_inputs.blocks.text, logits)))
    return out


def test_sure_pages_keep_blocknets_text_and_unsure_ones_get_blends(pages, alone):
    cascade = build_method("cascade", {"device": "cpu"})
    cut = cascade.settings.unsure
    routed = [u > cut for _, _, u in alone]
    assert 0 < sum(routed) < len(pages) / 2            # some pages, not most (one in twenty over the pools)
    for page, (by_blocknet, by_blend, _), to_blend in zip(pages, alone, routed, strict=True):
        assert cascade.process(page).text == (by_blend if to_blend else by_blocknet)
    assert cascade.blended_pages == sum(routed)
    assert any(by_blocknet != by_blend for (by_blocknet, by_blend, _), r in zip(alone, routed, strict=True) if r)


def test_the_cut_runs_from_blend_on_every_page_to_blocknet_alone(pages, alone):
    batch = build_method("cascade", {"device": "cpu", "unsure": 0.0}).process_batch(pages[:8])
    assert [r.text for r in batch] == [by_blend for _, by_blend, _ in alone[:8]]
    never = build_method("cascade", {"device": "cpu", "unsure": 0.5})
    assert [never.process(p).text for p in pages[:8]] == [by_blocknet for by_blocknet, _, _ in alone[:8]]
    assert never.blended_pages == 0


def test_uncertainty_weighs_blocks_by_their_characters():
    assert uncertainty([], np.zeros(0)) == 0.0
    assert uncertainty(["a", "b"], np.array([0.0, 0.0])) == pytest.approx(0.5)
    sure_long = uncertainty(["x" * 999, "y"], np.array([20.0, 0.0]))     # the long block certain, a short coin toss
    sure_short = uncertainty(["x" * 999, "y"], np.array([0.0, 20.0]))
    assert sure_long == pytest.approx(0.5 * 2 / 1002, rel=1e-4) and sure_short > 0.49   # e^-20 ~ 2e-9


def test_settings_are_checked():
    with pytest.raises(ConfigError, match="unsure"):
        build_method("cascade", {"unsure": 0.7})
    with pytest.raises(ConfigError, match="blend_model"):
        build_method("cascade", {"blend_model": "nosuch"})
    with pytest.raises(ConfigError, match="unsure_peer"):
        build_method("cascade", {"unsure_peer": "resiliparse"})
    with pytest.raises(ValueError, match="first pass must be a BlockNet model"):
        build_method("cascade", {"device": "cpu", "model": "blend"})
    with pytest.raises(ValueError, match="does not read the peers"):
        build_method("cascade", {"device": "cpu", "blend_model": "default"})
