"""Visual block extraction (section 4.1): `DivideDomtree` with the 13 rules of Table 1, per Table 2.

`VisualTree` holds what the rules ask of a node of the rendered page (valid, text, inline, virtual text,
effective background, size); `extract_blocks` walks one sub-page top-down with an explicit stack and
returns its pool of blocks, each with the rule that made it and its DoC.
"""

from __future__ import annotations

from dataclasses import dataclass

from .render import VisualNode, VisualPage
from .settings import VIPSSettings

__all__ = ["Box", "PoolBlock", "VisualTree", "extract_blocks", "RULES_BY_ROW", "row_of"]

# Table 2: the rules applied to a node, by the kind of node, in Table 1's priority order.
RULES_BY_ROW: dict[str, tuple[int, ...]] = {
    "inline": (1, 2, 3, 4, 5, 6, 7, 9, 10, 12),
    "table": (1, 2, 3, 8, 10, 13),
    "tr": (1, 2, 3, 7, 8, 10, 13),
    "td": (1, 2, 3, 4, 9, 10, 11, 13),
    "p": (1, 2, 3, 4, 5, 6, 7, 9, 10, 12),
    "other": (1, 2, 3, 4, 6, 7, 9, 10, 12),
}
DIVIDE, KEEP, CUT = "divide", "keep", "cut"


@dataclass(frozen=True, slots=True)
class Box:
    """An axis-aligned box by its edges, in CSS pixels of the document."""

    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def area(self) -> float:
        return max(self.x1 - self.x0, 0.0) * max(self.y1 - self.y0, 0.0)

    @classmethod
    def of(cls, node: VisualNode) -> Box:
        return cls(node.x, node.y, node.x + node.w, node.y + node.h)

    @classmethod
    def union(cls, boxes: list[Box]) -> Box:
        return cls(min(b.x0 for b in boxes), min(b.y0 for b in boxes), max(b.x1 for b in boxes),
                   max(b.y1 for b in boxes))


@dataclass(frozen=True, slots=True)
class PoolBlock:
    """A block put into the pool: the DOM subtree rooted at `node`, kept whole in this round."""

    node: int
    doc: int
    rule: int          # the rule of Table 1 that kept it (0: a text node, which has no rule)
    box: Box


class VisualTree:
    """The rendered page with what the rules ask of its nodes, computed once per page."""

    def __init__(self, page: VisualPage, settings: VIPSSettings) -> None:
        self.page = page
        self.nodes = page.nodes
        self.settings = settings
        n = len(self.nodes)
        self.valid = [False] * n
        self.background: list[str | None] = [None] * n       # effective: own colour, else the parent's
        self.inline = [False] * n
        self.virtual_text = [False] * n
        for node in self.nodes:                               # parents come before children
            shown = node.visibility not in ("hidden", "collapse") and node.display != "none"
            self.valid[node.index] = shown and node.w > 0 and node.h > 0
            inherited = self.background[node.parent] if node.parent >= 0 else None
            self.background[node.index] = node.background or inherited
            self.inline[node.index] = (not node.is_text and node.tag in settings.inline_tags
                                       and node.display == "inline")
        # An invalid node is not a block, but what it holds may still be seen: a wrapper of floats or of a
        # fixed header has height 0 while its children are drawn. Its valid descendants are adopted by the
        # nearest valid ancestor, as if the wrapper were not there (cutting them with it lost whole pages).
        self.valid_children: list[list[int]] = [[] for _ in range(n)]
        for node in reversed(self.nodes):                     # children before parents
            kids = self.valid_children[node.index]
            for c in node.children:
                kids.extend([c] if self.valid[c] else self.valid_children[c])
        for node in reversed(self.nodes):                     # children before parents
            kids = self.valid_children[node.index]
            self.virtual_text[node.index] = self.inline[node.index] and bool(kids) and all(
                self.nodes[c].is_text or self.virtual_text[c] for c in kids)
        self.hr_boxes = [Box.of(node) for node in self.nodes if node.tag == "hr" and self.valid[node.index]]

    def is_text_like(self, i: int) -> bool:
        """A text node or a virtual text node."""
        return self.nodes[i].is_text or self.virtual_text[i]

    def is_line_break(self, i: int) -> bool:
        return not self.nodes[i].is_text and not self.inline[i]

    def subtree(self, i: int) -> list[int]:
        """Node indices of the subtree at `i`, in document order (valid nodes only below the root)."""
        out, stack = [], [i]
        while stack:
            j = stack.pop()
            out.append(j)
            stack.extend(reversed(self.valid_children[j]))
        return out

    def text_nodes(self, i: int) -> list[VisualNode]:
        return [self.nodes[j] for j in self.subtree(i) if self.nodes[j].is_text]


def row_of(tree: VisualTree, i: int) -> str:
    """The row of Table 2 for node `i`."""
    tag = tree.nodes[i].tag
    if tree.inline[i]:
        return "inline"
    if tag in ("table", "tr", "p"):
        return tag
    if tag in ("td", "th"):
        return "td"
    return "other"


def doc_of(settings: VIPSSettings, tag: str, share: float, low: int, high: int) -> int:
    """DoC of a block kept whole by rules 8-13: by tag, one step down for a big block, up for a small one."""
    doc = int(settings.doc_by_tag.get(tag, settings.doc_by_tag["default"]))
    doc += -2 if share > 0.5 else -1 if share > 0.2 else 1 if share < 0.05 else 0
    return max(low, min(high, doc))


def _uniform_font(tree: VisualTree, i: int) -> bool:
    fonts = {(t.font_size, t.font_weight) for t in tree.text_nodes(i)}
    return len(fonts) <= 1


def _decide(tree: VisualTree, i: int, area: float, is_root: bool, prev_kept: bool
            ) -> tuple[str, int, int, list[int]]:
    """(decision, rule, DoC, children put into the pool whole by rule 8) for node `i`."""
    s = tree.settings
    node = tree.nodes[i]
    kids = tree.valid_children[i]
    share = node.area / area if area > 0 else 1.0
    for rule in RULES_BY_ROW[row_of(tree, i)]:
        if rule == 1 and not kids:
            return (KEEP, 1, doc_of(s, node.tag, share, 1, 10), []) if node.tag in s.replaced_tags else (CUT, 1, 0, [])
        if rule == 2 and len(kids) == 1 and not tree.nodes[kids[0]].is_text:
            return DIVIDE, 2, 0, []
        if rule == 3 and is_root:
            return DIVIDE, 3, 0, []
        if rule == 4 and all(tree.is_text_like(c) for c in kids):
            return KEEP, 4, 10 if _uniform_font(tree, i) else 9, []
        if rule == 5 and any(tree.is_line_break(c) for c in kids):
            return DIVIDE, 5, 0, []
        if rule == 6 and any(tree.nodes[c].tag == "hr" for c in kids):
            return DIVIDE, 6, 0, []
        if rule == 7 and sum(tree.nodes[c].area for c in kids) > node.area + 1.0:
            return DIVIDE, 7, 0, []
        if rule == 8:
            own = tree.background[i]
            different = [c for c in kids if tree.nodes[c].background is not None and tree.nodes[c].background != own]
            if different:
                return DIVIDE, 8, 0, different
        if rule == 9 and any(tree.is_text_like(c) for c in kids) and share < s.share("text_block_share", node.tag):
            return KEEP, 9, doc_of(s, node.tag, share, 5, 8), []
        if rule == 10 and max(tree.nodes[c].area for c in kids) / area < s.share("small_child_share", node.tag):
            return KEEP, 10, doc_of(s, node.tag, share, 1, 8), []
        if rule == 11 and prev_kept:
            return KEEP, 11, doc_of(s, node.tag, share, 1, 8), []
        if rule == 12:
            return DIVIDE, 12, 0, []
        if rule == 13:
            return KEEP, 13, doc_of(s, node.tag, share, 1, 8), []
    raise AssertionError(f"no rule decided node {i}")   # every row ends in rule 12 or 13


def extract_blocks(tree: VisualTree, roots: list[int], area: float) -> list[PoolBlock]:
    """The pool of one round: `DivideDomtree` (Figure 6) from the sub-page's root nodes.

    Args:
        tree: the page.
        roots: the DOM roots of the sub-page (the page: [0], the <body>).
        area: the sub-page's area, the denominator of the relative sizes.

    Returns:
        The blocks in document order. Nodes cut by rule 1 and invalid nodes are in no block.
    """
    pool: list[PoolBlock] = []
    kept: dict[int, bool] = {}            # node -> kept whole (rule 11 asks it of the previous sibling)
    single_root = len(roots) == 1
    # (node, is the sub-page's root, previous valid sibling, kept whole by rule 8 of its parent)
    stack: list[tuple[int, bool, int | None, bool]] = [(r, True, None, False) for r in reversed(roots)]
    while stack:
        i, is_root, prev, by_rule8 = stack.pop()
        node = tree.nodes[i]
        share = node.area / area if area > 0 else 1.0
        if by_rule8:                          # rule 8: DoC 6-8 from its tag and size
            decision, rule, doc, whole = KEEP, 8, doc_of(tree.settings, node.tag, share, 6, 8), []
        elif node.is_text:                    # free text: a block as it is, nothing to divide
            decision, rule, doc, whole = KEEP, 0, 10, []
        else:
            prev_kept = prev is not None and kept.get(prev, False)
            decision, rule, doc, whole = _decide(tree, i, area, is_root and single_root, prev_kept)
        kept[i] = decision == KEEP
        if decision == KEEP:
            pool.append(PoolBlock(i, doc, rule, Box.of(node)))
        elif decision == DIVIDE:
            kids = tree.valid_children[i]
            for previous, child in reversed(list(zip([None, *kids[:-1]], kids, strict=True))):
                stack.append((child, False, previous, child in whole))
    return pool
