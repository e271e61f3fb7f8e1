"""Record segmentation (AMBER, section 3.4, Algorithm 3).

Within a data area d, the leading node of a pivot is the child of d that contains it. Records are runs of
Len consecutive (non-empty) children of d, each holding at least one leading node, where Len is the
shortest of the most frequent leading spaces (sibling distances between consecutive leading nodes);
leading nodes closer than Len to the previous one are dropped (noise prefix and suffix, Lines 4-7), then
every shift of the record starts to the left is tried and the segmentation of least irregularity wins.
Irregularity is the summed tree edit distance (APTED, the `apted` package) between the records,
normalised by the larger record; with Len = 1 there is only one candidate and no distance is computed.

Three simplifications, for speed (APTED in pure Python took 3.5 of 3.7 s on a 1 MB autoscout24 page), all
exact when the records are regular: the irregularity compares each record with the next one (not all
pairs), over the first 6 pairs, and a record's tree is cut to its first `max_tree_nodes` elements in
document order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from lxml import etree

from ..page import INVISIBLE_TAGS, text_nodes
from .areas import lca, role_of

__all__ = ["segment_records", "leading_nodes", "is_empty", "irregularity", "content_letters", "pivot_subtrees",
           "grid_rows"]


# Elements that show something without text: a child holding one is content, not a separator.
_SHOWING = frozenset({"img", "picture", "svg", "video", "iframe", "input", "select", "textarea", "button", "canvas"})


def is_empty(node: etree._Element) -> bool:
    """A child that shows nothing: no visible text and no image or form control below it (`<br>`, an
    empty `<div>`, an ad slot that scripts would fill: autoscout24 puts one between some records and not
    others, which made Algorithm 3's record length 2 and lost the records that follow one another)."""
    if not isinstance(node.tag, str) or node.tag in INVISIBLE_TAGS:
        return True
    for element in node.iter():
        if isinstance(element.tag, str) and element.tag in _SHOWING:
            return False
    return not any(text.strip() for _, text in text_nodes(node))


def leading_nodes(root: etree._Element, children: Sequence[etree._Element],
                  pivots: Sequence[etree._Element]) -> list[int]:
    """Indices into `children` of the leading nodes of the pivots, in document order, without repeats."""
    index = {id(c): i for i, c in enumerate(children)}
    found: list[int] = []
    for pivot in pivots:
        node = pivot
        while node is not None and node.getparent() is not root:
            node = node.getparent()
        i = index.get(id(node)) if node is not None else None
        if i is not None and (not found or found[-1] != i):
            found.append(i)
    return sorted(set(found))


def _spaces(leads: list[int]) -> list[int]:
    return [b - a for a, b in zip(leads, leads[1:], strict=False)]


def _record_length(leads: list[int]) -> int:
    spaces = _spaces(leads)
    if not spaces:
        return 1
    counts = Counter(spaces)
    top = max(counts.values())
    return min(s for s, c in counts.items() if c == top)


def _tree(nodes: Sequence[etree._Element], max_nodes: int):
    from apted.helpers import Tree

    root = Tree("record")
    stack = [(n, root) for n in reversed(nodes)]
    count = 0
    while stack and count < max_nodes:
        node, parent = stack.pop()
        if not isinstance(node.tag, str):
            continue
        tree = Tree(node.tag)
        parent.children.append(tree)
        count += 1
        stack.extend((c, tree) for c in reversed(node))
    return root, count + 1


def irregularity(records: Sequence[Sequence[etree._Element]], max_tree_nodes: int = 60, max_pairs: int = 6
                 ) -> float:
    """Summed normalised tree edit distance between each record and the next, over the first `max_pairs`
    pairs (the score only ranks the shifts of one segmentation, whose records repeat one template)."""
    from apted import APTED

    trees = [_tree(r, max_tree_nodes) for r in records[:max_pairs + 1]]
    total = 0.0
    for (a, na), (b, nb) in zip(trees, trees[1:], strict=False):
        total += APTED(a, b).compute_edit_distance() / max(na, nb)
    return total


def segment_records(root: etree._Element, pivots: Sequence[etree._Element],
                    max_tree_nodes: int = 60) -> list[list[etree._Element]]:
    """Algorithm 3 for one data area: its records, each a list of consecutive children, in document order."""
    children = [c for c in root if isinstance(c.tag, str) and not is_empty(c)]
    leads = leading_nodes(root, children, pivots)
    if not leads:
        return []
    length = _record_length(leads)
    if length > 1 and _one_kind(children, leads):
        length = 1          # unpriced records between the priced ones, not records of several children
    while len(leads) > 1 and leads[1] - leads[0] < length:          # noise prefix (Lines 4-5)
        leads.pop(0)
    kept = [leads[0]]
    for lead in leads[1:]:                                          # too close to the previous one (6-7)
        if lead - kept[-1] >= length:
            kept.append(lead)
    candidates = []
    for shift in range(length):                                     # start candidates (Line 8)
        starts = [lead - shift for lead in kept]
        if starts[0] >= 0:
            # the last record may end early (a grid's last row without its trailing separator row)
            candidates.append([children[s:s + length] for s in starts])
    if len(candidates) > 1:
        # the tree edit distance only decides between the shifts whose records' children repeat one
        # sequence of tags and classes most often (usually one: then no distance is computed at all)
        off = [_off_template(records) for records in candidates]
        candidates = [records for records, n in zip(candidates, off, strict=True) if n == min(off)]
    best: list[list[etree._Element]] | None = candidates[0] if candidates else None
    if len(candidates) > 1:
        scores = [irregularity(records, max_tree_nodes) for records in candidates]
        best = candidates[scores.index(min(scores))]
    if best and length == 1:
        best = _with_unpriced(children, best)
    return best or []


def _off_template(records: Sequence[Sequence[etree._Element]]) -> int:
    """Records whose children's (tag, class) sequence is not the most common one."""
    shapes = Counter(tuple((c.tag, c.get("class")) for c in record) for record in records)
    return len(records) - shapes.most_common(1)[0][1]


def _classes(node: etree._Element) -> frozenset[str]:
    return frozenset((node.get("class") or "").split())


def _same_kind(a: etree._Element, tag: str, classes: frozenset[str]) -> bool:
    other = _classes(a)
    return a.tag == tag and 2 * len(classes & other) > len(classes | other)


def _majority_kind(nodes: Sequence[etree._Element]) -> tuple[str, frozenset[str]] | None:
    """The (tag, classes) at least half of `nodes` share, when those classes are not empty; else None."""
    (tag, classes), count = Counter((n.tag, _classes(n)) for n in nodes).most_common(1)[0]
    return (tag, classes) if classes and 2 * count >= len(nodes) else None


def _one_kind(children: Sequence[etree._Element], leads: list[int]) -> bool:
    """Whether the leading children and the children between them are of one kind (tag and most classes;
    4 in 5 of them, for a sponsored record in the run): then the spacing of the leading nodes comes from
    records without a pivot, not from long records."""
    kind = _majority_kind([children[i] for i in leads])
    if kind is None:
        return False
    tag, classes = kind
    span = range(leads[0], leads[-1] + 1)
    return 5 * sum(_same_kind(children[i], tag, classes) for i in span) >= 4 * len(span)


def _with_unpriced(children: Sequence[etree._Element], records: list[list[etree._Element]]
                   ) -> list[list[etree._Element]]:
    """Records of one child each, plus the children of the same kind that hold no pivot.

    The pivot is a regular attribute, present in most records (R4), not all: a job without a stated salary,
    a car "price on request" (indeed lists salaries for a third of its jobs). A child with the records' tag
    and most of their classes (Jaccard > 0.5 with the classes most records share) is a record too; records
    without a class give no such evidence and are left as they are.
    """
    kind = _majority_kind([r[0] for r in records])
    if kind is None:
        return records
    tag, classes = kind
    taken = {id(r[0]) for r in records}
    out = []
    for child in children:
        if id(child) in taken or _same_kind(child, tag, classes):
            out.append([child])
    return out


def pivot_subtrees(pivots: Sequence[etree._Element]) -> set[etree._Element]:
    """The pivots and everything below them: what `content_letters` leaves out."""
    return {e for p in pivots for e in p.iter()}


def content_letters(nodes: Sequence[etree._Element], inside: set[etree._Element], enough: int = 1 << 30) -> int:
    """Letters in the visible text of `nodes` outside `inside` (`pivot_subtrees` of the pivots; counting
    stops at `enough`).

    A record is a multi-attribute object: a filter menu's "£500 - £1,000" or "500万円以上" has a price and
    nothing else, and is not one.
    """
    count = 0
    for node in nodes:
        for holder, text in text_nodes(node):
            if holder not in inside:
                count += sum(ch.isalpha() for ch in text)
                if count >= enough:
                    return count
    return count


def _top(node: etree._Element, root: etree._Element) -> etree._Element | None:
    """The child of `root` that holds `node` (None when `node` is not below `root`)."""
    for ancestor in (node, *node.iterancestors()):
        if ancestor.getparent() is root:
            return ancestor
    return None


def grid_rows(root: etree._Element, records: Sequence[Sequence[etree._Element]], pivots: Sequence[etree._Element],
              min_letters: int = 4) -> list[tuple[etree._Element | None, list[etree._Element]]] | None:
    """The rows of a grid, when the records Algorithm 3 found are rows rather than objects.

    A grid (bestbuy's four products a row, IKEA's five a table row) puts the same-role pivots of a row
    in one record, each in its own child of their common ancestor, and that child carries an object
    (more text than its price). When at least half of the records look so, one (row, its pivots) per
    record is returned, the row to be segmented again as a data area of its own, or None as the row of a
    record that is not a row and stays whole; otherwise None.
    """
    record_of = {id(top): k for k, record in enumerate(records) for top in record}
    inside: list[list[etree._Element]] = [[] for _ in records]
    for pivot in pivots:
        top = _top(pivot, root)
        if top is not None and id(top) in record_of:
            inside[record_of[id(top)]].append(pivot)
    rows: list[tuple[etree._Element | None, list[etree._Element]]] = []
    for found in inside:
        roles: dict[tuple[str, ...], list[etree._Element]] = {}
        for pivot in found:
            roles.setdefault(role_of(pivot), []).append(pivot)
        same = max(roles.values(), key=len, default=[])
        if len(same) < 2:
            rows.append((None, found))
            continue
        row = lca(same)
        cells = {id(c): c for c in (_top(p, row) for p in same) if c is not None}
        inside = pivot_subtrees(found)
        if len(cells) >= 2 and all(content_letters([c], inside, min_letters) >= min_letters
                                   for c in cells.values()):
            rows.append((row, [p for p in found if _top(p, row) is not None]))
            continue
        rows.append((None, found))
    grid = sum(row is not None for row, _ in rows)
    return rows if grid and 2 * grid >= len(records) else None
