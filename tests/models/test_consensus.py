"""The consensus method: BlockNet's text, blend's or a peer's, whichever the others agree with most, on real Dragnet
pages."""

from __future__ import annotations

import pytest

from pagesieve.eval import bag_of_words_prf
from pagesieve.models.blocknet.consensus import medoid
from pagesieve.models.blocknet.peers import PEERS, PeerVotes
from pagesieve.models.registry import build_method
from pagesieve.settings import ConfigError

ARTICLE = "the council voted on the new budget for the city schools and parks on tuesday night"
COMMENTS = " great article thanks for sharing first comment reply report abuse"


def test_the_medoid_is_the_text_the_others_agree_with():
    # BlockNet kept the comments, the three peers did not: the peers' text wins, the earliest of the tied peers
    assert medoid([ARTICLE + COMMENTS, ARTICLE, ARTICLE, ARTICLE]) == 1
    # one peer took the comments alone: BlockNet's text agrees with the other two
    assert medoid([ARTICLE, ARTICLE + COMMENTS, ARTICLE, "the council voted"]) == 0
    # an empty text takes no part: with two left there is no majority, the first non-empty one stands
    assert medoid(["", ARTICLE + COMMENTS, "", ARTICLE]) == 1
    assert medoid(["", "", "", ""]) == 0
    assert medoid(["", "  ", ARTICLE, "x"]) == 2


@pytest.fixture(scope="module")
def candidates(dragnet_pages):
    """Each page's candidates: BlockNet's own text and blend's (no second opinion), then the peers' in PEERS
    order."""
    blocknet = build_method("blocknet", {"device": "cpu", "unsure_peer": "", "path_pull": 0.0})   # consensus's
    blend = build_method("blend", {"device": "cpu", "unsure_peer": ""})      # pulled, as consensus.blend_path_pull
    votes = PeerVotes(PEERS)
    return [[blocknet.process(page).text, blend.process(page).text, *votes.outputs(page)] for page in dragnet_pages]


def test_each_page_gets_its_candidates_medoid_and_names_where_it_came_from(dragnet_pages, candidates):
    consensus = build_method("consensus", {"device": "cpu"})
    results = consensus.process_batch(dragnet_pages)
    names = ["blocknet", "blend", *PEERS]
    chosen = [medoid(texts) for texts in candidates]
    for result, texts, k in zip(results, candidates, chosen, strict=True):
        assert result.text == texts[k]
        assert result.text_from == (names[k] if k else None)
        assert result.status == "ok" and (result.content_xpaths or not result.text)
    assert consensus.chosen == {name: sum(k == n for k in chosen) for n, name in enumerate(names)}
    assert consensus.chosen["blocknet"] and consensus.chosen["blend"] and sum(consensus.chosen.values()) == 30


def test_without_blend_the_candidates_are_blocknet_and_the_peers(dragnet_pages, candidates):
    consensus = build_method("consensus", {"device": "cpu", "blend_model": ""})
    for page, (own, _, *peers) in zip(dragnet_pages[:10], candidates, strict=False):
        assert consensus.process(page).text == [own, *peers][medoid([own, *peers])]
    assert consensus.chosen["blend"] == 0


def test_two_peers_that_agree_outvote_blocknet_and_a_lone_peer_is_never_chosen(dragnet_pages, candidates):
    consensus = build_method("consensus", {"device": "cpu", "blend_model": ""})
    f1 = lambda a, b: bag_of_words_prf(a, b).f1   # noqa: E731
    outvoted = [page for page, (own, _, *peers) in zip(dragnet_pages, candidates, strict=True)
                if all(f1(own, t) < 0.75 for t in peers)
                and max(f1(a, b) for a in peers for b in peers if a != b) > 0.9]
    assert outvoted                                # e.g. BlockNet keeps a comment thread that two peers drop
    assert all(consensus.process(page).text_from in PEERS for page in outvoted)
    lone = [(page, k) for page, (own, _, *peers) in zip(dragnet_pages, candidates, strict=True)
            for k, t in enumerate(peers) if all(f1(t, u) < 0.5 for u in [own, *peers] if u is not t)]
    assert lone                                    # e.g. resiliparse keeps the comments the others drop
    assert all(consensus.process(page).text_from != PEERS[k] for page, k in lone)


def test_blends_candidate_is_blends_own_text_pulled_as_blend_pulls_it(dragnet_pages):
    texts = {}
    for share in (0.5, 0.0):
        consensus = build_method("consensus", {"device": "cpu", "blend_path_pull": share})
        blend = build_method("blend", {"device": "cpu", "unsure_peer": "", "path_pull": share})
        inputs = [consensus.batch_inputs(page) for page in dragnet_pages]
        candidate = consensus._blend_texts(inputs, {i: consensus.votes.outputs(p) for i, p in enumerate(dragnet_pages)})
        texts[share] = [candidate[i] for i in range(len(dragnet_pages))]
        assert texts[share] == [blend.process(page).text for page in dragnet_pages]
    assert texts[0.5] != texts[0.0]                  # the pull changes some page's candidate


def test_settings_are_checked():
    with pytest.raises(ConfigError, match="blend_path_pull"):
        build_method("consensus", {"blend_path_pull": -0.1})
    with pytest.raises(ConfigError, match="unsure_peer"):
        build_method("consensus", {"unsure_peer": "resiliparse"})
    with pytest.raises(ValueError, match="reads the peers' votes"):
        build_method("consensus", {"device": "cpu", "model": "blend"})
    with pytest.raises(ConfigError, match="blend_model"):
        build_method("consensus", {"blend_model": "nosuch"})
    with pytest.raises(ValueError, match="does not read the peers"):
        build_method("consensus", {"device": "cpu", "blend_model": "default"})
    with pytest.raises(ValueError, match="consensus runs all three peers"):
        build_method("consensus", {"device": "cpu", "blend_model": "blend-lite"})
