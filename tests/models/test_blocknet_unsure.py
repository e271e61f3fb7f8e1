"""BlockNet's second opinion: on a page it is unsure of (uncertainty above `unsure`), `unsure_peer`'s text (by
default resiliparse's) stands in for its own; on real Dragnet pages."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

from pagesieve.models.blocknet.method import hands_over, text_hidden, uncertainty
from pagesieve.models.page import hidden_chars, parse_page
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
    blend = build_method("blend", {"device": "cpu"})      # blend's unsure pages get the peer's text, as blocknet's
    assert (blend.unsure_peer.name, blend.settings.unsure) == ("resiliparse", 0.22)
    assert build_method("blocknet", {"device": "cpu", "unsure_peer": "trafilatura"}).unsure_peer.name == "trafilatura"


# ids of the wcxb folder: Discourse threads (their posts only in <noscript>, no block outside it), pages that
# libxml2 puts inside an unclosed <button> ("Skip to content" their one block), and a page whose <noscript>
# repeats text the page shows
SHELLS = ("0505", "1591", "1764")
IN_A_BUTTON = ("4007", "4708")
NOT_HIDDEN = "0292"


def wcxb_page(shared_data, page_id: str):
    html = gzip.decompress((shared_data / "wcxb" / "input" / f"{page_id}.html.gz").read_bytes())
    return parse_page(html, page_id=page_id)


@pytest.mark.parametrize("method", ["blocknet", "blend"])
def test_pages_whose_text_the_blocks_miss_get_the_peers_text(shared_data, method):
    resiliparse = build_method("resiliparse")
    for page_id in SHELLS:
        page = wcxb_page(shared_data, page_id)
        off = build_method(method, {"device": "cpu", "unsure_peer": ""}).process(page)
        assert len(off.text) < 20                       # what the blocks alone give: nothing, or "Skip to content"
        result = build_method(method, {"device": "cpu"}).process(page)
        assert result.text == resiliparse.process(page).text and len(result.text) > 1_000
        assert (result.status, result.text_from) == ("ok", "resiliparse")
        assert result.title == off.title and result.title         # the page's own <title>, as before
        assert (off.status, result.content_xpaths) == ("empty", ())     # no block at all, so no XPath


@pytest.mark.parametrize("method", ["blocknet", "web2text"])
def test_pages_in_an_unclosed_button_are_read_by_the_blocks(shared_data, method):
    # libxml2 keeps the button open to the end of the page; the page model parses such a page as a browser does
    for page_id in IN_A_BUTTON:
        page = wcxb_page(shared_data, page_id)
        assert hidden_chars(page.root) < 1_000
        settings = {"device": "cpu", "unsure_peer": ""} if method == "blocknet" else {}
        result = build_method(method, settings).process(page)
        assert result.status == "ok" and len(result.text) > 1_000 and result.text_from is None


def test_a_page_whose_noscript_repeats_its_text_keeps_blocknets(shared_data):
    page = wcxb_page(shared_data, NOT_HIDDEN)
    blocks = build_method("blocknet", {"device": "cpu"}).batch_inputs(page).blocks
    assert hidden_chars(page.root) > 10 * sum(map(len, blocks.text)) > 4_000      # more hidden than shown
    assert not text_hidden(page, blocks)
    result = build_method("blocknet", {"device": "cpu", "unsure": 0.5}).process(page)
    assert result.text_from is None and result.text


def test_hands_over_counts_hidden_text_only_where_the_blocks_show_little():
    counted = []

    def hidden(n: int):
        return lambda: counted.append(n) or n

    sure, unsure = np.array([9.0, -9.0]), np.array([0.1, -0.1])
    assert hands_over(["a" * 300, "b" * 300], unsure, 0.22, hidden(10_000))
    assert not hands_over(["a" * 300, "b" * 300], sure, 0.22, hidden(10_000))
    assert counted == []                    # 600 characters shown: the hidden text is never counted
    assert hands_over(["Skip to content"], None, 0.22, hidden(200))      # a page without blocks' logits
    assert not hands_over(["Skip to content"], None, 0.22, hidden(199))
    assert counted == [200, 199]
