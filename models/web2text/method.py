"""Web2Text as a cleaning method: blocks -> features -> one batched forward pass -> Viterbi -> text."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from ..page import Cleaner, CleanResult, ParsedPage, TooLargeError, join_paragraphs, page_title
from .dom import Blocks, page_blocks
from .features import page_features
from .model import Web2TextModel, pick_device
from .settings import Web2TextSettings

__all__ = ["Web2Text", "PageBlocks", "length_groups", "blocks_text", "blocks_result", "content_xpaths",
           "page_blocks_within"]


@dataclass(frozen=True, slots=True)
class PageBlocks:
    """A page's own stage of a block method's batch (`Method.batch_inputs`): its blocks and their raw inputs."""

    page: ParsedPage
    blocks: Blocks
    inputs: tuple[np.ndarray, ...]


def page_blocks_within(page: ParsedPage, max_blocks: int, setting: str, context: bool = False
                       ) -> Blocks | CleanResult:
    """The page's blocks, or its `too_large` result when it has more than `max_blocks` (checked while the blocks
    are built: `collapse_dom`); `setting` names the limit in the error, e.g. "blocknet.max_blocks"."""
    try:
        return page_blocks(page, context=context, max_blocks=max_blocks)
    except TooLargeError as exc:
        return CleanResult(status="too_large", title=page_title(page.root), error=f"{exc} ({setting} = {max_blocks})")


def length_groups(lengths: Sequence[int], max_blocks: int, min_fill: float = 0.5) -> list[list[int]]:
    """Indices grouped longest first so that each group pads to little: len(group) * longest <= max_blocks
    (a longer page goes alone), and no page is shorter than `min_fill` * the group's longest, so padding
    at most doubles the work."""
    groups: list[list[int]] = []
    for i in sorted(range(len(lengths)), key=lambda i: -lengths[i]):
        if groups:
            longest = max(lengths[groups[-1][0]], 1)
            if (len(groups[-1]) + 1) * longest <= max_blocks and lengths[i] >= min_fill * longest:
                groups[-1].append(i)
                continue
        groups.append([i])
    return groups


def blocks_text(blocks: Blocks, content: np.ndarray) -> str:
    """The content blocks' text: one paragraph per run of blocks with no line break between them.

    Blocks split by inline markup (a link inside a sentence) join with a space, or with nothing where the page
    had no whitespace between them (`<b>2018</b>,`); a block-level tag anywhere between two content blocks
    (even inside dropped boilerplate) starts a new paragraph.
    """
    pieces: list[str] = []
    previous = None
    breaks, glued = blocks.cdom.break_before, blocks.cdom.glued
    for i in np.flatnonzero(content).tolist():       # Python ints: they index the lists below faster
        if previous is not None:
            if any(breaks[blocks.node[j]] for j in range(previous + 1, i + 1)):
                pieces.append("\n")
            elif i > previous + 1 or not glued[blocks.node[i]]:
                pieces.append(" ")
        pieces.append(blocks.text[i])
        previous = i
    return join_paragraphs("".join(pieces))


def blocks_result(page: ParsedPage, blocks: Blocks, content: np.ndarray) -> CleanResult:
    """The clean result of a page whose blocks are labelled `content` (any method over these blocks)."""
    title = page_title(page.root)
    if len(blocks) == 0:
        return CleanResult(status="empty", title=title, error="no text blocks in the page body")
    text = blocks_text(blocks, content)
    if not text:
        return CleanResult(status="empty", title=title, error=f"none of {len(blocks)} blocks labelled content")
    return CleanResult(title=title, text=text, content_xpaths=content_xpaths(blocks, content))


def content_xpaths(blocks: Blocks, content: np.ndarray) -> tuple[str, ...]:
    """The XPaths of the blocks marked in `content`, each once, in page order (a `documents` row's
    content_xpaths)."""
    return tuple(dict.fromkeys(blocks.xpaths(np.flatnonzero(content).tolist())))


class Web2Text(Cleaner):
    """Section 3: DOM-leaf blocks labelled content/boilerplate by two CNNs and Viterbi (see the package docs)."""

    name = "web2text"
    version = 1
    batched = True
    settings_class = Web2TextSettings

    def __init__(self, settings: Web2TextSettings | None = None) -> None:
        self.settings = settings or Web2TextSettings.load()
        self.device = pick_device(self.settings.device)
        if self.device.type == "cpu":
            torch.set_num_threads(self.settings.threads)  # per process; Spark runs one worker per core
        self.model = Web2TextModel.load(self.settings.model).to(self.device)

    def predict_blocks(self, blocks: Sequence[Blocks]) -> list[np.ndarray]:
        """Content labels per block for each page."""
        feats, edges = zip(*(page_features(b) for b in blocks), strict=True) if blocks else ((), ())
        return self.predict_features(feats, edges)

    def predict_features(self, feats: Sequence[np.ndarray], edges: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Content labels from raw block and edge features; pages are padded in groups (`length_groups`)."""
        labels: list[np.ndarray] = [np.zeros(0, dtype=bool)] * len(feats)
        for group in length_groups([len(f) for f in feats], self.settings.max_batch_blocks):
            predicted = self.model.predict([feats[i] for i in group], [edges[i] for i in group], self.settings.lam)
            for i, page_labels in zip(group, predicted, strict=True):
                labels[i] = page_labels
        return labels

    def process(self, page: ParsedPage) -> CleanResult:
        return self.process_batch([page])[0]

    def process_batch(self, pages: Sequence[ParsedPage]) -> list[CleanResult]:
        return self.batch_results([self.batch_inputs(p) for p in pages])

    def batch_inputs(self, page: ParsedPage) -> PageBlocks | CleanResult:
        """Blocks and block/edge features of one page, or its `too_large` result."""
        blocks = page_blocks_within(page, self.settings.max_blocks, "web2text.max_blocks")
        return blocks if isinstance(blocks, CleanResult) else PageBlocks(page, blocks, page_features(blocks))

    def batch_weight(self, inputs: PageBlocks | CleanResult) -> float:
        return 0.0 if isinstance(inputs, CleanResult) else float(len(inputs.blocks))

    def batch_results(self, inputs: Sequence[PageBlocks | CleanResult]) -> list[CleanResult]:
        """One forward pass (and Viterbi) over the pages' features."""
        fits = [i for i, x in enumerate(inputs) if isinstance(x, PageBlocks)]
        labels = dict(zip(fits, self.predict_features([inputs[i].inputs[0] for i in fits],
                                                      [inputs[i].inputs[1] for i in fits]), strict=True))
        return [x if isinstance(x, CleanResult) else blocks_result(x.page, x.blocks, labels[i])
                for i, x in enumerate(inputs)]
