"""The ablations of AMBER's record finding (Algorithms 2-3), for `AmberSettings.mode`.

AMBER's claim (Furche et al., sections 3 and 6) is that neither half of its evidence suffices alone:
repeated structure cannot tell the result list from the other repeated parts of a page (menus, footers,
pagination; the MDR comparison of section 6.3), and automatic annotations are too noisy to place records
by themselves (70% of the paper's pages carry false PRICE annotations, section 6.1). AMBER uses the pivot
annotations to locate data areas and the repeated structure to check and segment them. Each variant here
keeps one half and drops the other; `Amber` then aligns the attributes of their records as usual, so the
record scores of the three modes compare only how records are found.

- "structure" (no annotation guides segmentation; an MDR-style finder, Liu et al. 2003): every element's
  children are scanned for runs of consecutive, structurally similar children (same tag, Jaccard
  similarity of their tag-path sets down to three levels >= `SIMILARITY`; children without visible text
  or image are separators, as in AMBER's segmentation). The element holding the longest run of >=
  `MIN_RUN` such children wins (ties: the run with more text); each of its runs of >= `MIN_RUN` children
  is a data area and each child a record. A long menu beats a short result list: the failure AMBER's
  annotations avoid.
- "annotations" (no consistency checks of Algorithms 2-3): one data area at the least common ancestor of
  all pivot nodes, each pivot's leading node (the child of that ancestor holding it) a record. One noisy
  price outside the list lifts the area to a common ancestor of list and noise, and its leading nodes are
  whole page sections: the failure the depth/distance clustering and the leading-space segmentation avoid.

Both take the page's body and the pivot nodes in document order, and return data areas, each a list of
records, each record a list of consecutive sibling elements (children of the area's root). DOM walks are
iterative; both are linear in the page size (the structure finder's tag-path sets are bounded by depth).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from lxml import etree

from ..page import INVISIBLE_TAGS

__all__ = ["ABLATIONS", "MIN_RUN", "SIMILARITY", "annotation_records", "structure_records"]

Areas = list[list[list[etree._Element]]]

MIN_RUN = 3          # records of a data area: MDR's and the paper's "at least a few" (section 6.1: >= 3 works)
SIMILARITY = 0.5     # Jaccard of tag-path sets; records differ by optional fields, menus items not at all
_DEPTH = 3           # tag paths this deep: deep enough to tell a card from a link, cheap on a 1 MB page


def structure_records(body: etree._Element, pivots: Sequence[etree._Element] = ()) -> Areas:
    """Records from repeated structure alone (the "structure" ablation); `pivots` are ignored.

    Args:
        body: the page's body (or any root); not modified.
        pivots: unused: the point of the ablation.

    Returns:
        The runs of >= MIN_RUN similar children of the element with the longest run, one data area per
        run, one record per child; [] when no element has such a run.
    """
    elements = _visible_elements(body)
    paths, weight = _signatures(elements)
    best: tuple[int, int] = (0, 0)
    best_runs: list[list[etree._Element]] = []
    for parent in elements:
        if len(parent) < MIN_RUN:
            continue
        runs = _similar_runs([c for c in parent if weight.get(c, 0) > 0], paths)
        if not runs:
            continue
        top = max((len(run), sum(weight[c] for c in run)) for run in runs)
        if top > best:
            best, best_runs = top, runs
    return [[[child] for child in run] for run in best_runs]


def _visible_elements(root: etree._Element) -> list[etree._Element]:
    """Elements under `root` (itself included) outside invisible subtrees (scripts, forms' options, ...), in
    document order: a `<select>` of 200 options is no repeated structure anyone sees."""
    hidden: set[etree._Element] = set()
    for element in root.iter(*INVISIBLE_TAGS):
        if element not in hidden:
            hidden.update(element.iter())
    return [e for e in root.iter() if isinstance(e.tag, str) and e not in hidden]


def _signatures(elements: list[etree._Element]) -> tuple[dict[etree._Element, frozenset[str]],
                                                          dict[etree._Element, int]]:
    """Per element: its tag paths down to _DEPTH levels ("a", "a/img", ...), and its visible weight (text
    characters, an image counts one); one bottom-up pass, no recursion."""
    levels: dict[etree._Element, list[set[str]]] = {}
    weight: dict[etree._Element, int] = {}
    paths: dict[etree._Element, frozenset[str]] = {}
    for element in reversed(elements):            # descendants come before their ancestors
        own: list[set[str]] = [set() for _ in range(_DEPTH)]
        w = len(element.text.strip()) if element.text else 0
        w += element.tag == "img"
        for child in element:
            if child not in levels:                # comments, invisible subtrees
                continue
            tag = child.tag
            own[0].add(tag)
            below = levels[child]
            for depth in range(1, _DEPTH):
                own[depth].update(f"{tag}/{p}" for p in below[depth - 1])
            w += weight[child] + (len(child.tail.strip()) if child.tail else 0)
        levels[element] = own
        weight[element] = w
        paths[element] = frozenset().union(*own)
    return paths, weight


def _similar_runs(children: list[etree._Element], paths: dict[etree._Element, frozenset[str]]
                  ) -> list[list[etree._Element]]:
    """Maximal runs (>= MIN_RUN) of consecutive children, each similar to the one before."""
    runs: list[list[etree._Element]] = []
    run: list[etree._Element] = []
    for child in children:
        if run and _similar(run[-1], child, paths):
            run.append(child)
            continue
        if len(run) >= MIN_RUN:
            runs.append(run)
        run = [child]
    if len(run) >= MIN_RUN:
        runs.append(run)
    return runs


def _similar(a: etree._Element, b: etree._Element, paths: dict[etree._Element, frozenset[str]]) -> bool:
    if a.tag != b.tag:
        return False
    pa, pb = paths[a], paths[b]
    if not pa and not pb:                          # two leaves of one tag: <li>text</li>
        return True
    return len(pa & pb) >= SIMILARITY * len(pa | pb)


def annotation_records(body: etree._Element, pivots: Sequence[etree._Element]) -> Areas:
    """Records from the pivot annotations alone (the "annotations" ablation): no clustering, no segmentation.

    Args:
        body: the page's body; not modified.
        pivots: the elements holding a pivot annotation, in document order (repeats allowed).

    Returns:
        One data area at the least common ancestor of all pivot nodes, with one record per distinct leading
        node, in document order; [] with fewer than two distinct pivot nodes (Definition 4 (1)).
    """
    distinct = list(dict.fromkeys(pivots))
    if len(distinct) < 2:
        return []
    root = _lca(distinct)
    leading: dict[etree._Element, None] = {}
    for node in distinct:
        lead = _leading_node(node, root)
        if lead is not None:                       # a pivot at the ancestor itself has no leading node
            leading[lead] = None
    return [[[lead] for lead in leading]] if leading else []


def _lca(nodes: list[etree._Element]) -> etree._Element:
    """The least common ancestor (or self) of `nodes`: the first node's ancestor path, cut at each other
    node's first ancestor on it; O(total depth)."""
    path = [nodes[0], *nodes[0].iterancestors()][::-1]         # root first
    index = {node: i for i, node in enumerate(path)}
    keep = len(path)
    for node in nodes[1:]:
        current = node
        while current is not None and (current not in index or index[current] >= keep):
            current = current.getparent()
        if current is None:                        # not in one tree: cannot happen for one page
            raise ValueError("pivot nodes of different trees")
        keep = index[current] + 1
    return path[keep - 1]


def _leading_node(node: etree._Element, root: etree._Element) -> etree._Element | None:
    """The child of `root` holding `node`; None for `root` itself."""
    current = node
    parent = current.getparent()
    while parent is not None and parent is not root:
        current, parent = parent, parent.getparent()
    return current if parent is root else None


ABLATIONS: dict[str, Callable[[etree._Element, Sequence[etree._Element]], Areas]] = {
    "structure": structure_records,
    "annotations": annotation_records,
}
