"""Consensus: the main text most extractors agree on, page by page.

BlockNet's text (its network and trees, the markup's rules; no second opinion) and the texts of its three peers
(trafilatura, readability, resiliparse; `peers.PEERS`) are the candidates; the page gets the candidate whose
bag-of-words F1 against the others is highest on average (their medoid). Where BlockNet keeps a comment thread that
all three peers drop, or takes a sidebar for the article, the peers outvote it; where one peer fails, the others
outvote that peer. No weight is learned, so nothing in it was fitted to a benchmark's convention. Left out of
training, it scored above blocknet and blend on the eight pools' macro (docs/methods/blocknet.md#consensus). It
runs the three peers on every page, as blend does: quality first, at about a third of trafilatura's pages/s.
"""

from __future__ import annotations

from collections.abc import Sequence

from pagesieve.eval.metrics import bag_of_words_prf

from ..page import CleanResult
from ..web2text.method import PageBlocks
from .method import BlockNet, peer_result
from .peers import PEERS, PeerVotes
from .settings import ConsensusSettings

__all__ = ["Consensus", "medoid"]


def medoid(texts: Sequence[str]) -> int:
    """The index of the text with the highest mean bag-of-words F1 against the other non-empty texts (the
    evaluation's own measure, `eval.metrics.bag_of_words_prf`); ties go to the earlier text. With fewer than three
    non-empty texts there is no majority: the first non-empty one (0 when all are empty)."""
    live = [i for i, text in enumerate(texts) if text.strip()]
    if len(live) < 3:
        return live[0] if live else 0
    agree = {i: 0.0 for i in live}
    for a, i in enumerate(live):               # F1 is symmetric: each pair once
        for j in live[a + 1 :]:
            f1 = bag_of_words_prf(texts[i], texts[j]).f1
            agree[i] += f1
            agree[j] += f1
    return max(live, key=lambda i: (agree[i], -i))


class Consensus(BlockNet):
    """BlockNet's text or one of its peers', whichever agrees most with the rest (`medoid`). The document's
    `method` names the peer when its text was chosen (`consensus/1+trafilatura`)."""

    name = "consensus"
    version = 1
    settings_class = ConsensusSettings

    def __init__(self, settings: ConsensusSettings | None = None) -> None:
        super().__init__(settings or ConsensusSettings.load())
        if self.peers is not None:
            raise ValueError(f"consensus.model {self.settings.model!r} reads the peers' votes; consensus needs a "
                             "BlockNet model whose text is a candidate of its own (\"default\" or a path)")
        self.votes = PeerVotes(PEERS)
        self.peer_pages = 0            # pages whose text came from a peer in this process (read by tests)

    def batch_results(self, inputs: Sequence[PageBlocks | CleanResult]) -> list[CleanResult]:
        results = super().batch_results(inputs)
        for i, x in enumerate(inputs):
            if isinstance(x, PageBlocks):   # a page without blocks too: the peers may read what the blocks miss
                outputs = self.votes.outputs(x.page)
                chosen = medoid([results[i].text, *outputs])
                if chosen:
                    self.peer_pages += 1
                    results[i] = peer_result(x.blocks, results[i], outputs[chosen - 1], PEERS[chosen - 1])
        return results
