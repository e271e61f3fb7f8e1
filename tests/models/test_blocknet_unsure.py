"""BlockNet's second opinion: on a page it is unsure of (uncertainty above `unsure`), `unsure_peer`'s text (by
default resiliparse's) stands in for its own; on real Dragnet pages."""

from __future__ import annotations

import pytest

from pagesieve.models.blocknet.method import uncertainty
from pagesieve.models.registry import build_method
from pagesieve.settings import ConfigError


@pytest.fixture(scope="module")
def pages(dragnet_pages):
    return dragnet_pages


@pytest.fixture(scope="module")
def alone(pages):
    """Each page's text by BlockNet's network alone and by resiliparse, and BlockNet's uncertainty on it."""
    network = build_method("blocknet", {"device": "cpu", "unsure_peer": ""})
    resiliparse = build_method("resiliparse")
    out = []
    for page in pages:
        inputs = network.batch_inputs(page)
        logits = network.predict_logits([inputs.inputs[0]])[0]
        out.append((network.batch_results([inputs])[0].text, resiliparse.process(page).text,
                    uncertainty(inputs.blocks.text, logits)))
    return out


def test_unsure_pages_get_resiliparses_text_and_sure_ones_keep_blocknets(pages, alone):
    blocknet = build_method("blocknet", {"device": "cpu"})
    assert blocknet.settings.unsure_peer == "resiliparse"
    unsure = [u > blocknet.settings.unsure and bool(peer.strip()) for _, peer, u in alone]
    assert 0 < sum(unsure) < len(pages) / 2           # some pages, not most (one in twenty over the pools)
    results = blocknet.process_batch(pages)
    assert [r.text for r in results] == [peer if u else own for (own, peer, _), u in zip(alone, unsure, strict=True)]
    assert blocknet.unsure_pages == sum(unsure)
    assert [r.text_from for r in results] == ["resiliparse" if u else None for u in unsure]   # the provenance
    for page, result, u in zip(pages, results, unsure, strict=True):
        if u:       # the XPaths are those of the blocks whose text the peer's text holds
            assert result.status == "ok" and result.content_xpaths
            blocks = blocknet.batch_inputs(page).blocks
            texts_at: dict[str, list[str]] = {}
            for i, xpath in enumerate(blocks.xpaths(list(range(len(blocks))))):
                texts_at.setdefault(xpath, []).append(" ".join(blocks.text[i].split()))
            peer_text = " ".join(result.text.split())
            for xpath in result.content_xpaths:
                assert len(page.root.xpath(xpath)) == 1
                assert any(t and t in peer_text for t in texts_at[xpath])
    assert any(own != peer for (own, peer, _), u in zip(alone, unsure, strict=True) if u)


def test_the_cut_runs_from_the_peer_on_every_page_to_blocknet_alone(pages, alone):
    every = build_method("blocknet", {"device": "cpu", "unsure": 0.0})
    assert [every.process(p).text for p in pages[:8]] == [peer or own for own, peer, _ in alone[:8]]
    for overrides in ({"unsure": 0.5}, {"unsure_peer": ""}):
        never = build_method("blocknet", {"device": "cpu", **overrides})
        assert [r.text for r in never.process_batch(pages[:8])] == [own for own, _, _ in alone[:8]]
        assert never.unsure_pages == 0


def test_a_peer_that_fails_keeps_blocknets_text(pages, alone):
    blocknet = build_method("blocknet", {"device": "cpu", "unsure": 0.0})

    def broken(page):
        raise RuntimeError("the peer broke")

    blocknet.unsure_peer.process = broken
    result = blocknet.process(pages[0])
    assert (result.text, result.text_from) == (alone[0][0], None)
    assert blocknet.unsure_pages == 0


def test_settings_are_checked():
    with pytest.raises(ConfigError, match="unsure_peer"):
        build_method("blocknet", {"unsure_peer": "nosuch"})
    with pytest.raises(ConfigError, match="unsure"):
        build_method("blocknet", {"unsure": -0.1})
    assert build_method("blend", {"device": "cpu"}).unsure_peer is None
    assert build_method("blocknet", {"device": "cpu", "unsure_peer": "trafilatura"}).unsure_peer.name == "trafilatura"
