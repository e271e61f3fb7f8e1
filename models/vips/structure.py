"""Content structure construction (section 4.3) and the rounds of VIPS (Figure 2).

One round on a sub-page: extract its pool of blocks, detect separators among them, weigh them, and build
the hierarchy. The paper merges the blocks beside the lightest separators first, level by level, up to
the heaviest; we build the same tree from the other end: the region is cut at its heaviest separators,
then each part is cut at the heaviest separators found *within it*, and so on down to single blocks.
For separators in one direction the two give the same tree; re-detecting within each part also finds a
horizontal separator that runs inside one column only (at the level of the whole region the other
column crosses it). A new block's DoC comes from the heaviest separator inside it (10 - floor(weight)).

After a round, every leaf whose DoC is not above PDoC is a sub-page for the next round, from its DOM root
(rule 3 divides that root); leaves that cannot be divided (a text node, an image) stay leaves. A round
that yields a single block does not add a level: that block replaces the leaf. Finally every block's DoC
is lowered to its children's lowest, so that a child is never less coherent than its parent (section 3).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .extraction import Box, PoolBlock, VisualTree, extract_blocks
from .separators import Separator, block_info, detect_separators, facing, weigh_separator

__all__ = ["VipsBlock", "segment_tree", "doc_of_weight"]


@dataclass(slots=True)
class VipsBlock:
    """A node of the vision-based content structure. A leaf has `node` (its DOM root); others, children."""

    box: Box
    doc: int
    node: int | None = None
    rule: int | None = None                 # the extraction rule that kept a leaf whole
    children: list[VipsBlock] = field(default_factory=list)
    separators: list[Separator] = field(default_factory=list)   # the ones its children were cut at

    def leaves(self) -> list[VipsBlock]:
        out, stack = [], [self]
        while stack:
            b = stack.pop()
            if b.children:
                stack.extend(reversed(b.children))
            else:
                out.append(b)
        return out


def doc_of_weight(weight: float) -> int:
    return max(1, min(10, 10 - math.floor(weight)))


def _cut(tree: VisualTree, pool: list[PoolBlock], region: Box) -> VipsBlock:
    """The hierarchy of one round's pool inside `region` (iterative: a work list of regions to cut)."""
    root = VipsBlock(region, 10)
    work = [(root, list(range(len(pool))))]
    infos = {b.node: block_info(tree, b.node) for b in pool}
    while work:
        holder, members = work.pop()
        if len(members) == 1:
            b = pool[members[0]]
            holder.box, holder.doc, holder.node, holder.rule = b.box, b.doc, b.node, b.rule
            continue
        boxes = [pool[m].box for m in members]
        box = Box.union([holder.box, *boxes]) if holder is root else Box.union(boxes)
        holder.box = box
        seps = detect_separators(boxes, box, True) + detect_separators(boxes, box, False)
        if not seps:                               # overlapping blocks: nothing to cut at, children as they are
            holder.doc = min(pool[m].doc for m in members)
            holder.children = [VipsBlock(pool[m].box, pool[m].doc, pool[m].node, pool[m].rule) for m in members]
            continue
        for sep in seps:
            before = [infos[pool[members[i]].node] for i in facing(boxes, sep, True)]
            after = [infos[pool[members[i]].node] for i in facing(boxes, sep, False)]
            weigh_separator(sep, before, after, tree.hr_boxes, box, tree.settings)
        top = max(s.weight for s in seps)
        horizontal = any(s.horizontal and s.weight == top for s in seps)
        cuts = sorted((s for s in seps if s.horizontal == horizontal and s.weight == top), key=lambda s: s.start)
        holder.doc, holder.separators = doc_of_weight(top), cuts
        bands: list[list[int]] = [[] for _ in range(len(cuts) + 1)]
        for m in members:
            b = pool[m].box
            centre = (b.y0 + b.y1) / 2 if horizontal else (b.x0 + b.x1) / 2
            bands[sum(1 for c in cuts if centre > (c.start + c.end) / 2)].append(m)   # by the midline
        if max(len(b) for b in bands) == len(members):
            # cannot happen with the midline rule above; kept so that a degenerate pool can never loop
            holder.doc = min(pool[m].doc for m in members)
            holder.children = [VipsBlock(pool[m].box, pool[m].doc, pool[m].node, pool[m].rule) for m in members]
            continue
        for band in bands:
            if band:
                child = VipsBlock(Box.union([pool[m].box for m in band]), 10)
                holder.children.append(child)
                work.append((child, band))
    return root


def _divisible(tree: VisualTree, block: VipsBlock) -> bool:
    return block.node is not None and bool(tree.valid_children[block.node])


def segment_tree(tree: VisualTree) -> VipsBlock:
    """The vision-based content structure of a rendered page (Figure 2's rounds until DoC > PDoC)."""
    s = tree.settings
    page = Box(0.0, 0.0, max(tree.page.width, 1.0), max(tree.page.height, 1.0))
    pool = extract_blocks(tree, [0], page.area)
    root = _cut(tree, pool, page) if pool else VipsBlock(page, 10, 0)
    if len(pool) == 1:
        root.box = page
    work = [(leaf, 1) for leaf in root.leaves()]
    while work:
        leaf, rounds = work.pop()
        if leaf.doc > s.pdoc or rounds >= s.max_rounds or not _divisible(tree, leaf):
            continue
        sub = extract_blocks(tree, [leaf.node], max(leaf.box.area, 1.0))
        if not sub:
            continue
        if len(sub) == 1:                          # no new level: the deeper block replaces the leaf
            if sub[0].node == leaf.node:
                continue
            leaf.node, leaf.doc, leaf.rule, leaf.box = sub[0].node, sub[0].doc, sub[0].rule, sub[0].box
            work.append((leaf, rounds + 1))
            continue
        built = _cut(tree, sub, leaf.box)
        leaf.node, leaf.rule = None, None
        leaf.children, leaf.separators, leaf.doc = built.children, built.separators, min(leaf.doc, built.doc)
        work += [(b, rounds + 1) for b in leaf.leaves()]
    _monotone(root)
    return root


def _monotone(root: VipsBlock) -> None:
    """Lower each block's DoC to its children's lowest (children before parents)."""
    order, stack = [], [root]
    while stack:
        b = stack.pop()
        order.append(b)
        stack.extend(b.children)
    for b in reversed(order):
        if b.children:
            b.doc = min(b.doc, *(c.doc for c in b.children))
