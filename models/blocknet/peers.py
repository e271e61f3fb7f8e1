"""The peers' votes as BlockNet inputs, for the quality-first `blend` method.

For each of trafilatura, readability and resiliparse: whether a block's text (white space folded) is part of
that peer's main text (1/0), and the share of the page's block text the peer's output holds (capped at 5). The
network learns per block, from the page around it, when to trust which peer: resiliparse keeps forum posts and
service sections, readability keeps news articles whole, trafilatura is the best single peer on modern pages.
The three peers cost about 5x BlockNet's own time per page (trafilatura and readability parse the page again;
blend ran at 0.16x blocknet's pages/s on 300 modern pages, 2026-11-27).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..page import Cleaner, ParsedPage, failure_of
from ..page.guard import PageTimeout
from ..page.words import fold_space

__all__ = ["PEERS", "PEER_INPUT_NAMES", "PeerVotes", "build_peer", "held_by", "peer_columns", "peer_input_names",
           "with_votes"]

PEERS = ("trafilatura", "readability", "resiliparse")


def peer_input_names(peers: Sequence[str] = PEERS) -> list[str]:
    """The two input names of each of `peers` (a subset of PEERS, in PEERS order), numbered by the peer's place in
    PEERS, so that a model reading fewer peers names each column as the three-peer model does."""
    return [f"p{2 * PEERS.index(peer) + k + 1}.{what}_{peer}" for peer in peers
            for k, what in enumerate(("in", "share"))]


PEER_INPUT_NAMES: list[str] = peer_input_names(PEERS)
_MAX_SHARE = 5.0


def held_by(folded: Sequence[str], output: str) -> np.ndarray:
    """Which blocks (their texts white-space folded) an extractor's output text (folded too) holds, as bools:
    non-empty and a substring of `output`, wherever in it.

    An extractor writes its text in page order, so each block is looked for from where the previous one held was
    found, and only on a miss in the text before that point: the same answers as `t in output` for every block,
    without scanning the whole output once per block (a 1,000-block page whose text the peer keeps whole cost
    ~16 ms that way, 2026-12-07)."""
    held = np.zeros(len(folded), dtype=bool)
    start = 0
    for i, text in enumerate(folded):
        if not text:
            continue
        found = output.find(text, start)
        if found >= 0:
            held[i], start = True, found
        else:  # out of page order: a match that begins before `start` ends before start + len(text)
            held[i] = output.find(text, 0, start + len(text)) >= 0
    return held


def peer_columns(texts: Sequence[str], outputs: Sequence[str]) -> np.ndarray:
    """(n blocks, 2 per peer) float32 from the blocks' texts and each peer's output text (in the order of the
    peers that made them, PEERS or a subset; "" when a peer failed or found nothing)."""
    folded = [fold_space(t) for t in texts]
    total = max(sum(map(len, folded)), 1)
    out = np.zeros((len(folded), 2 * len(outputs)), dtype=np.float32)
    for i, output in enumerate(outputs):
        text = fold_space(output)
        out[:, 2 * i] = held_by(folded, text)
        out[:, 2 * i + 1] = min(len(text) / total, _MAX_SHARE)
    return out


def with_votes(inputs: np.ndarray, texts: Sequence[str], outputs: Sequence[str]) -> np.ndarray:
    """A blend model's inputs: BlockNet's raw `inputs` of the blocks (their `texts`) and the peers' columns for their
    `outputs` beside them."""
    return np.hstack([inputs, peer_columns(texts, outputs)])


def build_peer(name: str) -> Cleaner:
    """One peer cleaner by its registry name, with its packaged settings."""
    from ..registry import build_method  # the registry imports the method classes lazily

    return build_method(name)


class PeerVotes:
    """The peers (PEERS, or the subset a model reads), built once per worker; `outputs(page)` runs them on one
    page."""

    def __init__(self, peers: Sequence[str] = PEERS) -> None:
        self.peers = tuple(peers)
        self.methods = [build_peer(name) for name in self.peers]

    def outputs(self, page: ParsedPage) -> list[str]:
        texts = []
        for method in self.methods:
            try:
                texts.append(method.process(page).text or "")
            except PageTimeout:
                raise                       # the page's time is up: the runner makes it a status row
            except Exception as exc:  # noqa: BLE001 - a peer that fails on a page votes for no block
                failure_of(exc)     # logged once per kind per worker, as the runner does for a method's failures
                texts.append("")
        return texts
