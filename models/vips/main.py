"""Main content from the block tree (the `vips` cleaner): which blocks hold the page's main text.

Not in the paper (it segments; section 5.3 uses the blocks of PDoC 6 and drops blocks under 10 words).
Our choice, on the final leaves of the tree:

1. A leaf is *content evidence* when it has at least `main_min_words` words and at most
   `main_max_link_density` of them inside links (text density and link density); every other leaf with
   words is *boilerplate evidence*.
2. Position and size: the main region is the block of the tree (any level) with the highest
   content words - `main_boilerplate_penalty` x boilerplate words, so a block that spans the whole page
   pays for its menus and footers, and a block smaller than the article loses the words it leaves out.
   A leaf outside the region never counts, however long: a side column loses to the central one.
   The region then grows to its parent block while that costs at most `main_expand_share` of its score:
   the heading above an article's paragraphs is a short block that the best region would leave out.
3. Inside that region every leaf with words whose link density is under the limit is main content,
   short ones included (headings, captions, a one-line paragraph): the region vouches for them.

Words: `models.page.words.count_words` (every Han ideograph and kana is a word of its own).

The text is the chosen leaves' text in the tree's (visual) order, one block per paragraph.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..page.words import count_words
from .extraction import VisualTree
from .render import VisualNode
from .settings import VIPSSettings
from .structure import VipsBlock

__all__ = ["LeafText", "leaf_text", "choose_main"]

@dataclass(frozen=True, slots=True)
class LeafText:
    text: str
    words: int
    link_words: int

    @property
    def link_density(self) -> float:
        return self.link_words / self.words if self.words else 0.0


def leaf_text(tree: VisualTree, block: VipsBlock) -> LeafText:
    """The visible text of a leaf (its text nodes in document order) and how much of it is in links."""
    if block.node is None:
        return LeafText("", 0, 0)
    text, words, link_words, last = "", 0, 0, None
    for t in tree.text_nodes(block.node):
        tokens = (t.text or "").split()
        if not tokens:
            continue
        part = " ".join(tokens)
        n = count_words(part)
        words += n
        link_words += n if t.in_link else 0
        text = part if last is None else text + ("" if _glued(last, t) else " ") + part
        last = t
    return LeafText(text, words, link_words)


def _glued(before: VisualNode, after: VisualNode) -> bool:
    """Whether two text nodes are one run of text: no whitespace between them in the markup, and `after` starts
    where `before` ends on its line (`<a>Reuters</a>,` is "Reuters," not "Reuters ,"; two table cells or list
    items side by side stay apart)."""
    if before.text[-1:].isspace() or after.text[:1].isspace():
        return False
    if not (after.y < before.y + before.h and before.y < after.y + after.h):
        return False
    end = before.x + before.w
    if after.h > 1.5 * before.h:   # `after` wraps: its box starts at its column's left, left of where `before` ends
        return after.x < end
    return abs(after.x - end) <= 1.0


def choose_main(root: VipsBlock, texts: dict[int, LeafText], settings: VIPSSettings) -> set[int]:
    """`id()`s of the leaves that are main content (see the module docstring).

    Args:
        root: the block tree.
        texts: leaf text by `id(leaf)`.
        settings: main_min_words, main_max_link_density, main_boilerplate_penalty.

    Returns:
        An empty set when no leaf is content evidence.
    """
    def gain(leaf: VipsBlock) -> float:
        t = texts[id(leaf)]
        good = t.words >= settings.main_min_words and t.link_density <= settings.main_max_link_density
        return t.words if good else -settings.main_boilerplate_penalty * t.words

    order, stack = [], [(root, None)]
    parent: dict[int, VipsBlock | None] = {}
    while stack:
        b, up = stack.pop()
        order.append(b)
        parent[id(b)] = up
        stack.extend((c, b) for c in b.children)
    score: dict[int, float] = {}
    for b in reversed(order):                     # children before parents
        score[id(b)] = gain(b) if not b.children else sum(score[id(c)] for c in b.children)
    best = max(order, key=lambda b: score[id(b)])   # ties: the first in pre-order, the larger block
    top = score[id(best)]
    if top <= 0:
        return set()
    while (up := parent[id(best)]) is not None and score[id(up)] >= top * (1 - settings.main_expand_share):
        best = up
    return {id(leaf) for leaf in best.leaves()
            if texts[id(leaf)].words and texts[id(leaf)].link_density <= settings.main_max_link_density}
