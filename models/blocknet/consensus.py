"""Consensus: the main text most extractors agree on, page by page.

The candidates are BlockNet's text, blend's (its network reading the peers' votes) and the texts of the three peers
(trafilatura, readability, resiliparse; `peers.PEERS`); the page gets the candidate whose bag-of-words F1 against
the others is highest on average (their medoid). Where BlockNet keeps a comment thread that the peers drop, or a
peer takes a sidebar for the article, the others outvote it. The choice learns no weight, so it was fitted to no
benchmark's convention; the two networks are its only trained parts. Left out of training it scored above blocknet
and blend on the eight pools' macro; on the held-out test parts it is level with blend and above blocknet
(docs/methods/blocknet.md#consensus).
It runs the three peers and both networks on every page: quality first, below a third of trafilatura's pages/s.
Both networks read the same blocks and inputs (blend's adds the peers' votes) and each text is its network's
content blocks with the markup's rules, without a second opinion: resiliparse's text is a candidate already.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ..page import CleanResult
from ..page.overlap import bag_prf, tokenize
from ..web2text.method import PageBlocks, blocks_text
from .method import BlockNet, load_blend, peer_result, pull_blocks
from .model import INPUT_PEERS, BlockNetModel
from .peers import PEERS, PeerVotes, with_votes
from .settings import ConsensusSettings

__all__ = ["Consensus", "medoid"]


def medoid(texts: Sequence[str]) -> int:
    """The index of the text with the highest mean bag-of-words F1 against the other non-empty texts (the
    evaluation's own measure, `page.overlap.bag_of_words_prf`); ties go to the earlier text. With fewer than three
    non-empty texts there is no majority: the first non-empty one (0 when all are empty)."""
    live = [i for i, text in enumerate(texts) if text.strip()]
    if len(live) < 3:
        return live[0] if live else 0
    bags = {i: Counter(tokenize(texts[i])) for i in live}     # each text tokenized once, not once per pair
    agree = {i: 0.0 for i in live}
    for a, i in enumerate(live):               # F1 is symmetric: each pair once
        for j in live[a + 1 :]:
            f1 = bag_prf(bags[i], bags[j]).f1
            agree[i] += f1
            agree[j] += f1
    return max(live, key=lambda i: (agree[i], -i))


class Consensus(BlockNet):
    """BlockNet's text, blend's or one of the peers', whichever agrees most with the rest (`medoid`). The
    document's `method` names the other when its text was chosen (`consensus/1+blend`, `consensus/1+trafilatura`)."""

    name = "consensus"
    version = 1
    settings_class = ConsensusSettings

    def __init__(self, settings: ConsensusSettings | None = None) -> None:
        super().__init__(settings or ConsensusSettings.load())
        if self.peers is not None:
            raise ValueError(f"consensus.model {self.settings.model!r} reads the peers' votes; consensus needs a "
                             "BlockNet model whose text is a candidate of its own (blend's goes in "
                             "consensus.blend_model)")
        self.blend: BlockNetModel | None = None
        if self.settings.blend_model:
            self.blend = load_blend(self.settings.blend_model, "consensus.blend_model", self.settings.trees,
                                    self.device)
            if INPUT_PEERS[self.blend.inputs] != PEERS:
                raise ValueError(f"consensus.blend_model {self.settings.blend_model!r} reads "
                                 f"{', '.join(INPUT_PEERS[self.blend.inputs])} only; consensus runs all three peers "
                                 "(\"blend\", or \"\" for no blend candidate)")
        self.votes = PeerVotes(PEERS)
        self.chosen = {name: 0 for name in ("blocknet", "blend", *PEERS)}   # pages per candidate, this process

    def batch_results(self, inputs: Sequence[PageBlocks | CleanResult]) -> list[CleanResult]:
        results = super().batch_results(inputs)
        pages = [i for i, x in enumerate(inputs) if isinstance(x, PageBlocks)]  # with no blocks too: the peers
        outputs = {i: self.votes.outputs(inputs[i].page) for i in pages}        # may read what the blocks miss
        blended = self._blend_texts(inputs, outputs)
        names = ["blocknet", *(["blend"] if self.blend is not None else []), *PEERS]
        for i in pages:
            texts = [results[i].text, *([blended[i]] if self.blend is not None else []), *outputs[i]]
            chosen = medoid(texts)
            self.chosen[names[chosen]] += 1
            if chosen:
                results[i] = peer_result(inputs[i].blocks, results[i], texts[chosen], names[chosen])
        return results

    def _blend_texts(self, inputs: Sequence[PageBlocks | CleanResult], outputs: dict[int, list[str]]
                     ) -> dict[int, str]:
        """blend's text of each page that has blocks: its network and trees over BlockNet's inputs and the votes,
        pulled toward the class paths by `blend_path_pull` (blend's own pull, as blend makes its text)."""
        if self.blend is None:
            return {}
        fits = [i for i in outputs if len(inputs[i].blocks)]
        logits = self.predict_logits([with_votes(inputs[i].inputs[0], inputs[i].blocks.text, outputs[i]) for i in fits],
                                     self.blend)
        texts = {i: "" for i in outputs}
        for i, page_logits in zip(fits, logits, strict=True):     # the text alone: no title or XPaths to discard
            page_logits = pull_blocks(inputs[i].blocks, page_logits, self.settings.blend_path_pull)
            texts[i] = blocks_text(inputs[i].blocks, self.content(inputs[i].blocks, page_logits))
        return texts
