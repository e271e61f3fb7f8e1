"""BlockNet as a cleaning method: blocks + inputs -> one batched forward pass -> logits -> content blocks -> text."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import torch

from ..page import Cleaner, CleanResult, ParsedPage, failure_of, hidden_chars
from ..page.guard import PageTimeout
from ..page.words import count_words, fold_space
from ..web2text import Blocks, blocks_result, length_groups, pick_device
from ..web2text.method import PageBlocks, content_xpaths, page_blocks_within
from .features import block_inputs
from .markup import block_context, rule_out, ruled_out
from .model import INPUT_PEERS, BlockNetModel
from .peers import PeerVotes, build_peer, held_by, with_votes
from .settings import BlendSettings, BlockNetSettings, CascadeSettings

__all__ = ["BlockNet", "Blend", "Cascade", "content_blocks", "hands_over", "load_blend", "peer_result", "pull_blocks",
           "pull_to_paths", "uncertainty"]


def content_blocks(blocks: Blocks, logits: np.ndarray, settings: BlockNetSettings) -> np.ndarray:
    """Blocks above the threshold; on a page where they hold fewer than `min_words` words (a landing page, a
    short notice: the model is unsure of everything), the blocks within `fallback_margin` of the page's best.
    A rule of the settings alone (no model): scripts/eval/cv_blocknet_fallback.py scores it on logits of other
    models."""
    content = logits > settings.threshold
    if len(logits) and settings.min_words > 0:
        words = 0
        for i in np.flatnonzero(content).tolist():        # stops at min_words: most pages pass in a few blocks
            words += count_words(blocks.text[i])        # CJK: each ideograph and kana a word
            if words >= settings.min_words:
                break
        if words < settings.min_words:
            content = logits > min(settings.threshold, float(logits.max()) - settings.fallback_margin)
    return content


def pull_to_paths(logits: np.ndarray, paths: Sequence[int], lengths: Sequence[int], share: float) -> np.ndarray:
    """Each block's logit moved `share` of the way to the mean logit of the page's blocks on its class path
    (`CollapsedDOM.class_path`: the tags and classes from `<body>` down to the text's holder), each block weighted by
    its characters (`lengths`): one kind of element, one decision (a comment list's items, a listing's cards, an
    article's paragraphs), the long blocks' decisions weighing most, so that a short item of a list the model keeps
    is kept with it. A block alone on its path keeps its logit; share 0 changes nothing. Float32, as the logits."""
    if share == 0 or len(logits) < 2:
        return logits
    _, group = np.unique(np.asarray(paths, dtype=np.int64), return_inverse=True)
    weights = np.asarray(lengths, dtype=np.float64)
    own = np.asarray(logits, dtype=np.float64)
    mean = np.bincount(group, weights=own * weights) / np.maximum(np.bincount(group, weights=weights), 1e-9)
    return ((1 - share) * own + share * mean[group]).astype(np.float32)


# A page whose text the blocks miss holds at least HIDDEN_MIN_CHARS in <noscript> or <button> (less is a label
# or a "please enable JavaScript" line), and its blocks less than HIDDEN_MAX_SHOWN_CHARS and under a fifth of
# that. On WCXB's 1,497 pages the 23 such pages (20 with no block, or only "Skip to content") are far from the
# pages whose <noscript> repeats text they show or whose buttons hold menus (docs/methods/blocknet.md)
HIDDEN_MIN_CHARS = 200
HIDDEN_MAX_SHOWN_CHARS = 500


def text_hidden(page: ParsedPage, blocks: Blocks) -> bool:
    """Whether the page's text lies where the blocks never read it (`dom.HIDING_TAGS`): a JavaScript app's
    `<noscript>`, or an unclosed `<button>` that holds the rest of the page."""
    return _text_hidden(blocks.text, lambda: hidden_chars(page.root))


def _text_hidden(texts: Sequence[str], hidden: Callable[[], int]) -> bool:
    shown = sum(map(len, texts))
    return shown < HIDDEN_MAX_SHOWN_CHARS and hides_text(shown, hidden())   # most pages never count the hidden


def hides_text(shown: int, hidden: int) -> bool:
    """`text_hidden`'s rule on a page's counts: the characters its blocks hold (`shown`), and those inside
    `HIDING_TAGS` (`hidden`, as `dom.hidden_chars` counts them)."""
    return shown < HIDDEN_MAX_SHOWN_CHARS and hidden >= HIDDEN_MIN_CHARS and hidden > 5 * shown


def hands_over(texts: Sequence[str], logits: np.ndarray | None, unsure: float, hidden: Callable[[], int]) -> bool:
    """Whether BlockNet gives a page to its second opinion (`unsure_peer`): it is unsure of the page
    (`uncertainty` of its block `logits` above `unsure`; None for a page without blocks), or the page's text lies
    where its blocks never read it (`hides_text`). `hidden()` counts the characters inside HIDING_TAGS; it is
    called only for a page whose blocks show little, so most pages never count them. The shipped method and the
    leave-one-benchmark-out script both decide with this."""
    return logits is not None and uncertainty(texts, logits) > unsure or _text_hidden(texts, hidden)


def uncertainty(texts: Sequence[str], logits: np.ndarray) -> float:
    """How unsure a model is of a page: the mean over its blocks of min(p, 1 - p), p the block's content
    probability, each block weighted by its characters + 1. 0: every block certain; 0.5: every block a coin toss."""
    if not len(logits):
        return 0.0
    weights = np.fromiter(map(len, texts), dtype=np.float64, count=len(texts)) + 1
    p = 1 / (1 + np.exp(-np.asarray(logits, dtype=np.float64)))
    return float((weights * np.minimum(p, 1 - p)).sum() / weights.sum())


class BlockNet(Cleaner):
    """Web2Text's blocks with context features, labelled by a dilated CNN (see the package docs)."""

    name = "blocknet"
    version = 1
    batched = True
    settings_class = BlockNetSettings

    def __init__(self, settings: BlockNetSettings | None = None) -> None:
        self.settings = settings or BlockNetSettings.load()
        self.device = pick_device(self.settings.device)
        if self.device.type == "cpu":
            torch.set_num_threads(self.settings.threads)  # per process; Spark runs one worker per core
        self.model = BlockNetModel.load(self.settings.model, trees=self.settings.trees).to(self.device)
        self.peers = PeerVotes(INPUT_PEERS[self.model.inputs]) if self.model.inputs in INPUT_PEERS else None
        self.unsure_peer = build_peer(self.settings.unsure_peer) if self.settings.unsure_peer else None
        self.unsure_pages = 0          # pages whose text came from unsure_peer in this process

    def batches(self) -> bool:
        # On the CPU the model runs each page alone (BlockNetModel.logits): a batch bought no speed there and held
        # every page's tree, blocks and inputs until the batch's pass: two Spark workers with 256-page Arrow batches
        # peaked at 1,740 MiB, 969 page by page (docs/memory.md). On CUDA one padded pass per batch is the point.
        return self.device.type != "cpu"

    def predict_logits(self, inputs: Sequence[np.ndarray], model: BlockNetModel | None = None) -> list[np.ndarray]:
        """Content logits per block from raw inputs (by `model`, default the method's); on CUDA pages are padded in
        groups of similar length (on the CPU the model runs each page alone: `BlockNetModel.logits`)."""
        model = model or self.model
        logits: list[np.ndarray] = [np.zeros(0, dtype=np.float32)] * len(inputs)
        for group in length_groups([len(a) for a in inputs], self.settings.max_batch_blocks):
            for i, page_logits in zip(group, model.logits([inputs[i] for i in group]), strict=True):
                logits[i] = page_logits
        return logits

    def content(self, blocks: Blocks, logits: np.ndarray) -> np.ndarray:
        """The content blocks: `content_blocks`, less those the markup's rules that are on rule out (`markup`)."""
        content = content_blocks(blocks, logits, self.settings)
        if self.settings.drop_hidden_copies or self.settings.drop_landmarks:
            content = rule_out(content, ruled_out(blocks.text, block_context(blocks),
                                                  hidden=self.settings.drop_hidden_copies,
                                                  site=self.settings.drop_landmarks))
        return content

    def process(self, page: ParsedPage) -> CleanResult:
        return self.process_batch([page])[0]

    def process_batch(self, pages: Sequence[ParsedPage]) -> list[CleanResult]:
        return self.batch_results([self.batch_inputs(p) for p in pages])

    def batch_inputs(self, page: ParsedPage) -> PageBlocks | CleanResult:
        """Blocks and raw inputs of one page, or its `too_large` result."""
        blocks = page_blocks_within(page, self.settings.max_blocks, f"{self.name}.max_blocks", context=True)
        if isinstance(blocks, CleanResult):
            return blocks
        inputs = block_inputs(blocks, self.model.stopwords)
        if self.peers is not None and len(blocks):
            inputs = with_votes(inputs, blocks.text, self.peers.outputs(page))
        return PageBlocks(page, blocks, (inputs,))

    def batch_weight(self, inputs: PageBlocks | CleanResult) -> float:
        return 0.0 if isinstance(inputs, CleanResult) else float(len(inputs.blocks))

    def batch_results(self, inputs: Sequence[PageBlocks | CleanResult]) -> list[CleanResult]:
        """One forward pass over the pages that have blocks."""
        fits = [i for i, x in enumerate(inputs) if isinstance(x, PageBlocks) and len(x.blocks)]
        logits = self.page_logits(inputs, fits)
        results = [x if isinstance(x, CleanResult) else
                   blocks_result(x.page, x.blocks, self.content(x.blocks, logits[i]) if i in logits
                                 else np.zeros(0, dtype=bool))
                   for i, x in enumerate(inputs)]
        if self.unsure_peer is not None:
            for i, x in enumerate(inputs):
                if isinstance(x, PageBlocks) and hands_over(x.blocks.text, logits.get(i), self.settings.unsure,
                                                            lambda x=x: hidden_chars(x.page.root)):
                    results[i] = self.second_opinion(x, results[i])
        return results

    def second_opinion(self, inputs: PageBlocks, own: CleanResult) -> CleanResult:
        """`unsure_peer`'s text for a page BlockNet is unsure of, or one whose text is hidden from its blocks
        (`text_hidden`; the peer reads it), with the XPaths of the blocks that text holds (none where it holds
        none); BlockNet's own result when the peer finds nothing or fails. Left out of training, resiliparse's text beat
        BlockNet's on such pages (docs/methods/blocknet.md#unsure-pages); the blocks it holds, assembled as
        BlockNet assembles its own, did less well, so the text is the peer's."""
        try:
            result = self.unsure_peer.process(inputs.page)
        except PageTimeout:
            raise                           # the page's time is up: the runner makes it a status row
        except Exception as exc:  # noqa: BLE001 - a peer that fails keeps BlockNet's text
            failure_of(exc)
            return own
        if not result.text.strip():
            return own
        self.unsure_pages += 1
        return peer_result(inputs.blocks, own, result.text, self.settings.unsure_peer)

    def page_logits(self, inputs: Sequence[PageBlocks | CleanResult], fits: list[int]) -> dict[int, np.ndarray]:
        """Block logits of the pages `fits` (indices into `inputs`, each a PageBlocks with blocks), pulled toward
        their class paths' means by `path_pull` (`pull_to_paths`) before anything reads them."""
        logits = dict(zip(fits, self.predict_logits([inputs[i].inputs[0] for i in fits]), strict=True))
        for i in fits:
            logits[i] = pull_blocks(inputs[i].blocks, logits[i], self.settings.path_pull)
        return logits


def pull_blocks(blocks: Blocks, logits: np.ndarray, share: float) -> np.ndarray:
    """`pull_to_paths` over a page's blocks: their class paths, their characters as weights (share 0: the logits
    as they are, the paths never read)."""
    if not share:
        return logits
    return pull_to_paths(logits, blocks.class_paths(), list(map(len, blocks.text)), share)


def peer_result(blocks: Blocks, own: CleanResult, text: str, peer: str) -> CleanResult:
    """A peer's `text` for a page in place of BlockNet's result `own` (its title kept), with the XPaths of the
    `blocks` that text holds (none where it holds none), and the peer named in `text_from`."""
    held = held_by([fold_space(t) for t in blocks.text], fold_space(text))
    return CleanResult(title=own.title, text=text, content_xpaths=content_xpaths(blocks, held), text_from=peer)


def load_blend(name: str, key: str, trees: bool, device: torch.device) -> BlockNetModel:
    """The blend model `name` (setting `key`) on `device`, refused if it does not read the peers' votes."""
    model = BlockNetModel.load(name, trees=trees).to(device)
    _require_peer_inputs(model, key, name)
    return model


def _require_peer_inputs(model: BlockNetModel, key: str, value: str) -> None:
    """A blend model's inputs hold the peers' votes; a plain BlockNet model in its place is a setting's mistake."""
    if model.inputs not in INPUT_PEERS:
        raise ValueError(f"{key} {value!r} does not read the peers' votes: train one with "
                         "scripts/train/train_blocknet.py --inputs blend (or blend-lite)")


class Blend(BlockNet):
    """Quality first: BlockNet whose model also reads, per block, whether its peers keep it (trafilatura,
    readability and resiliparse with the packaged `blend` model, the first and last with `blend-lite`;
    `model.INPUT_PEERS`). It runs those peers on every page, several times BlockNet's time per page."""

    name = "blend"
    settings_class = BlendSettings

    def __init__(self, settings: BlendSettings | None = None) -> None:
        super().__init__(settings or BlendSettings.load())
        _require_peer_inputs(self.model, "blend.model", self.settings.model)


class Cascade(BlockNet):
    """BlockNet on every page, and blend on the pages BlockNet is unsure of (`uncertainty` above `unsure`): the
    three peers run on those pages only (about one in twenty at the default), so it keeps part of blend's gain
    at a fraction of its cost (docs/methods/blocknet.md#cascade-blend-where-blocknet-is-unsure)."""

    name = "cascade"
    settings_class = CascadeSettings

    def __init__(self, settings: CascadeSettings | None = None) -> None:
        super().__init__(settings or CascadeSettings.load())
        if self.peers is not None:
            raise ValueError(f"cascade.model {self.settings.model!r} reads the peers' votes: the first pass must be "
                             "a BlockNet model (blend's goes in cascade.blend_model)")
        # `trees` for both passes: the cascade's routing and its measures are of the two networks alone
        self.blend = load_blend(self.settings.blend_model, "cascade.blend_model", self.settings.trees, self.device)
        self.votes = PeerVotes(INPUT_PEERS[self.blend.inputs])
        self.blended_pages = 0         # pages this instance sent to blend (read by tests; no report shows it yet)

    def page_logits(self, inputs: Sequence[PageBlocks | CleanResult], fits: list[int]) -> dict[int, np.ndarray]:
        logits = super().page_logits(inputs, fits)
        unsure = [i for i in fits if uncertainty(inputs[i].blocks.text, logits[i]) > self.settings.unsure]
        if unsure:
            blend_inputs = [with_votes(inputs[i].inputs[0], inputs[i].blocks.text, self.votes.outputs(inputs[i].page))
                            for i in unsure]
            logits.update(zip(unsure, self.predict_logits(blend_inputs, self.blend), strict=True))
            self.blended_pages += len(unsure)
        return logits
