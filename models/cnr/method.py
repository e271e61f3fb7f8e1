"""CNR content extraction: Algorithm 1 (chars-nodes ratios) and Algorithm 2 (blocks).

The DOM is flattened into arrays in pre-order, so a node's subtree is the index range
`i..end[i]`, children come after parents, and both algorithms run as loops with no recursion.
Text nodes are nodes of their own, as in the paper's DOM: lxml keeps them as `.text`/`.tail`
strings, so they get indices here too. Whitespace-only text nodes are not counted; the paper
makes the ratio independent of formatting, and such nodes exist only because of formatting.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from lxml import etree

from ..page import (
    END,
    SKIP,
    START,
    Cleaner,
    CleanResult,
    ParsedPage,
    page_title,
    visible_text,
    walk_tree,
    xpath_of,
)
from .settings import CNRSettings

__all__ = ["CNR", "NodeTable", "compute_cnr", "select_blocks"]


@dataclass(slots=True)
class NodeTable:
    """Algorithm 1's attributes for every node, indexed in document pre-order (0 = the root)."""

    elements: list[etree._Element | None]   # None for text nodes
    parent: list[int]                       # -1 for the root
    end: list[int]                          # last index of the node's subtree
    depth: list[int]
    weight: list[int]
    text_length: list[int]

    def cnr(self, i: int) -> float:
        return self.text_length[i] / self.weight[i]

    def is_text(self, i: int) -> bool:
        return self.elements[i] is None

    def __len__(self) -> int:
        return len(self.parent)


def _chars(text: str | None) -> int:
    """Characters of a text node, spaces and line breaks ignored (section 4)."""
    return sum(map(len, text.split())) if text else 0


def compute_cnr(root: etree._Element, non_content: frozenset[str]) -> NodeTable:
    """Algorithm 1 over the subtree of `root`, bottom-up, iteratively."""
    t = NodeTable([], [], [], [], [], [])

    def add(element: etree._Element | None, parent: int, chars: int) -> int:
        t.elements.append(element)
        t.parent.append(parent)
        t.end.append(len(t.parent) - 1)
        t.depth.append(t.depth[parent] + 1 if parent >= 0 else 0)
        t.weight.append(1)
        t.text_length.append(chars)
        return len(t.parent) - 1

    open_nodes: list[int] = []   # stack of element indices; never empty below the root, where all text lies
    for kind, node, text in walk_tree(root, non_content):
        if kind == START:
            open_nodes.append(add(node, open_nodes[-1] if open_nodes else -1, 0))
            if n := _chars(text):
                add(None, open_nodes[-1], n)
            continue
        if kind == END:
            t.end[open_nodes.pop()] = len(t.parent) - 1
        elif kind == SKIP:
            add(node, open_nodes[-1], 0)             # nonContentNode: weight 1, textLength 0
        # a tail (the root's END has none) is a text node of the enclosing element; a comment is no node
        if n := _chars(text):
            add(None, open_nodes[-1], n)
    # children follow their parents in pre-order, so one reverse sweep accumulates bottom-up
    weight, length, parent = t.weight, t.text_length, t.parent
    for i in range(len(parent) - 1, 0, -1):
        p = parent[i]
        weight[p] += weight[i]
        length[p] += length[i]
    return t


def _drop_descendants(t: NodeTable, blocks: set[int]) -> set[int]:
    """Step (1) of Algorithm 2: keep only the nodes with no ancestor in the set."""
    kept: set[int] = set()
    covered_until = -1
    for i in sorted(blocks):
        if i > covered_until:
            kept.add(i)
            covered_until = t.end[i]
    return kept


def select_blocks(t: NodeTable, seeds: set[int]) -> set[int]:
    """Algorithm 2: propagate the seed nodes bottom-up until no two blocks are siblings."""
    blocks = _drop_descendants(t, seeds)
    while True:
        children_in_blocks: dict[int, int] = {}
        for b in blocks:
            if (p := t.parent[b]) >= 0:
                children_in_blocks[p] = children_in_blocks.get(p, 0) + 1
        merge = {p for p, count in children_in_blocks.items() if count >= 2}
        if not merge:
            return blocks
        blocks = _drop_descendants(t, {b for b in blocks if t.parent[b] not in merge} | merge)


class CNR(Cleaner):
    """Main-content extraction by chars-nodes ratio; returns the text of the block with most text."""

    name = "cnr"
    version = 1                      # bump when output changes; lands in `documents.method` as "cnr/1"
    settings_class = CNRSettings

    def __init__(self, settings: CNRSettings | None = None) -> None:
        self.settings = settings or CNRSettings.load()
        self._non_content = frozenset(tag.lower() for tag in self.settings.non_content_tags)

    def seeds(self, t: NodeTable) -> set[int]:
        """The top-CNR nodes, text nodes standing for their element (lxml cannot address them)."""
        candidates = [i for i in range(len(t)) if t.text_length[i] > 0]
        k = max(self.settings.top_min, math.ceil(self.settings.top_fraction * len(candidates)))
        top = sorted(candidates, key=lambda i: (-t.cnr(i), i))[:k]
        return {t.parent[i] if t.is_text(i) else i for i in top}

    def main_block(self, page: ParsedPage) -> etree._Element | None:
        """The DOM node chosen as the main content, or None when the page has no countable text."""
        t = compute_cnr(page.body, self._non_content)
        if t.text_length[0] == 0:
            return None
        blocks = select_blocks(t, self.seeds(t))
        best = max(sorted(blocks), key=lambda i: t.text_length[i])   # ties: first in document order
        return self._adjust(t, best)

    def _adjust(self, t: NodeTable, index: int) -> etree._Element:
        """Section 6: +k -> parent k times; -k -> the element child with the highest CNR k times."""
        steps = self.settings.adjust
        while steps > 0 and t.parent[index] >= 0:
            index, steps = t.parent[index], steps - 1
        while steps < 0:
            children = [c for c in range(index + 1, t.end[index] + 1)
                        if t.parent[c] == index and not t.is_text(c)]
            if not children:
                break
            index = max(children, key=lambda c: (t.cnr(c), -c))
            steps += 1
        return t.elements[index]

    def process(self, page: ParsedPage) -> CleanResult:
        title = page_title(page.root)
        block = self.main_block(page)
        if block is None:
            return CleanResult(status="empty", title=title, error="no text in the page body")
        text = visible_text(block)
        if not text:
            return CleanResult(status="empty", title=title, content_xpaths=(xpath_of(block),),
                               error="main block has no visible text")
        return CleanResult(title=title, text=text, content_xpaths=(xpath_of(block),))
