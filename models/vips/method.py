"""The two VIPS methods: `VIPS` (a segmenter -> `segments`) and `VIPSCleaner` (a cleaner -> `documents`).

Both render the page in the worker's browser (`needs = "rendered"`: built on first use, shut by
`close()`), run the algorithm of `structure.py` on the visual DOM, and choose the main content
(`main.py`); the segmenter writes the whole tree with `is_main` on the chosen blocks, the cleaner their text.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from pagesieve.models.page import (
    BBox,
    Cleaner,
    CleanResult,
    EmptyPageError,
    ParsedPage,
    Segment,
    Segmenter,
    SegmentResult,
    page_markup,
)

from .extraction import VisualTree
from .main import LeafText, choose_main, leaf_text
from .render import Renderer, VisualPage, archived_lookup
from .settings import VIPSSettings
from .structure import VipsBlock, segment_tree

__all__ = ["VIPS", "VIPSCleaner", "Analysis", "analyse", "segments_of"]

log = logging.getLogger(__name__)


@dataclass(slots=True)
class Analysis:
    """One page through VIPS: the visual DOM, the block tree, leaf texts and the main leaves (by id)."""

    visual: VisualPage
    tree: VisualTree
    root: VipsBlock
    texts: dict[int, LeafText]
    main: set[int]
    segment_ms: float


def analyse(visual: VisualPage, settings: VIPSSettings) -> Analysis:
    """Segment a rendered page and choose its main content."""
    start = time.perf_counter()
    tree = VisualTree(visual, settings)
    root = segment_tree(tree)
    texts = {id(leaf): leaf_text(tree, leaf) for leaf in root.leaves()}
    main = choose_main(root, texts, settings)
    return Analysis(visual, tree, root, texts, main, (time.perf_counter() - start) * 1000)


def segments_of(analysis: Analysis) -> tuple[Segment, ...]:
    """The block tree as `segments` rows' values, parents before children, ids as dotted paths."""
    tree, texts, main = analysis.tree, analysis.texts, analysis.main
    # (xpaths, text, all leaves main) per block, children before parents
    order, stack = [], [analysis.root]
    while stack:
        b = stack.pop()
        order.append(b)
        stack.extend(b.children)
    summary: dict[int, tuple[tuple[str, ...], str, bool]] = {}
    for b in reversed(order):
        if b.children:
            parts = [summary[id(c)] for c in b.children]
            summary[id(b)] = (tuple(x for p in parts for x in p[0]), "\n".join(p[1] for p in parts if p[1]),
                              all(p[2] for p in parts))
        else:
            xpaths = (tree.nodes[b.node].xpath,) if b.node is not None else ()
            summary[id(b)] = (xpaths, texts[id(b)].text, id(b) in main)
    out: list[Segment] = []
    work: list[tuple[VipsBlock, str, str | None]] = [(analysis.root, "1", None)]
    while work:
        b, block_id, parent_id = work.pop(0)
        xpaths, text, is_main = summary[id(b)]
        box = BBox(b.box.x0, b.box.y0, b.box.x1 - b.box.x0, b.box.y1 - b.box.y0)
        out.append(Segment(block_id, parent_id, b.doc, box, xpaths, text, is_main and bool(text)))
        work += [(c, f"{block_id}.{k}", block_id) for k, c in enumerate(b.children, 1)]
    return tuple(out)


class _Rendering:
    """What both VIPS methods are: one name and settings, and the browser they own (built on first use in the
    worker, shut by `close()`)."""

    name = "vips"
    version = 1
    settings_class = VIPSSettings
    needs = "rendered"
    settings: VIPSSettings
    _renderer: Renderer | None = None

    def renderer(self) -> Renderer:
        if self._renderer is None:
            self._renderer = Renderer(self.settings.render_options())
        return self._renderer

    def analyse_page(self, page: ParsedPage) -> Analysis:
        visual = self.renderer().render(page_markup(page), page.url, archived_lookup(page.resources))
        if len(visual.nodes) <= 1 and not visual.title:
            raise EmptyPageError("the rendered page has no content")
        return analyse(visual, self.settings)

    def close(self) -> None:
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None


class VIPS(_Rendering, Segmenter):
    """VIPS page segmentation (Cai et al. 2003): the visual block tree of a page -> `segments`."""

    def process(self, page: ParsedPage) -> SegmentResult:
        return SegmentResult(segments=segments_of(self.analyse_page(page)))


class VIPSCleaner(_Rendering, Cleaner):
    """Main content from the VIPS block tree (`main.py`) -> `documents`."""

    def process(self, page: ParsedPage) -> CleanResult:
        analysis = self.analyse_page(page)
        leaves = [leaf for leaf in analysis.root.leaves() if id(leaf) in analysis.main]
        if not leaves:
            return CleanResult(status="empty", title=analysis.visual.title or None, error="no main content block")
        text = "\n\n".join(analysis.texts[id(leaf)].text for leaf in leaves)
        xpaths = tuple(analysis.tree.nodes[leaf.node].xpath for leaf in leaves if leaf.node is not None)
        return CleanResult(title=analysis.visual.title or None, text=text, content_xpaths=xpaths)
