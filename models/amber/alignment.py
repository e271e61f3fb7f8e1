"""Attribute alignment (AMBER, section 3.5, Algorithm 4).

The position of a node in its record is its characteristic tag path (Definition 6): the tags from the
record down to the node, each step written as `first-child::tag` or `next-sibl::tag`. A record of several
children of the data area is treated as one virtual node whose children are those children. The support
of a path for an attribute type (Definition 7) is the share of the area's records holding a node of that
type at that path. A node becomes an attribute if its path's support exceeds Θinfer, or if it was
annotated and the support exceeds Θkeep (Definition 8; regular and optional types have their own
thresholds); of the nodes of one type in a record, the first in document order wins (Lines 5-7).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from lxml import etree

__all__ = ["Candidate", "Aligned", "tag_paths", "align_records"]

TagPath = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Candidate:
    """An annotation on a node: the node (the element holding the text), its type and its value."""

    node: etree._Element
    type: str
    value: str


@dataclass(frozen=True, slots=True)
class Aligned:
    """An attribute of a record after alignment."""

    type: str
    node: etree._Element
    value: str | None         # None for an inferred node: the caller reads the value from the node
    origin: str               # annotated | inferred
    support: float


def tag_paths(record: Sequence[etree._Element]) -> dict[etree._Element, TagPath]:
    """The characteristic tag path of every element of a record, in document order (iterative)."""
    paths: dict[etree._Element, TagPath] = {}
    stack: list[tuple[Sequence[etree._Element], TagPath]] = [(record, ("record",))]
    while stack:
        siblings, prefix = stack.pop()
        steps: list[str] = []
        for i, node in enumerate(s for s in siblings if isinstance(s.tag, str)):
            steps.append(f"{'first-child' if i == 0 else 'next-sibl'}::{node.tag}")
            path = prefix + tuple(steps)
            paths[node] = path
            children = [c for c in node if isinstance(c.tag, str)]
            if children:
                stack.append((children, path))
    return paths


def align_records(records: Sequence[Sequence[etree._Element]], candidates: Sequence[Candidate],
                  thresholds: dict[str, tuple[float, float]]) -> list[dict[str, Aligned]]:
    """Algorithm 4 over the records of one data area.

    Args:
        records: each a list of consecutive children of the data area.
        candidates: the annotations of the page (those outside the records are ignored).
        thresholds: attribute type -> (Θinfer, Θkeep) for that type (regular or optional).

    Returns:
        One {type: Aligned} per record, in record order.
    """
    paths = [tag_paths(r) for r in records]
    in_order = [[e for top in r for e in top.iter() if isinstance(e.tag, str)] for r in records]
    record_of = {node: k for k, record_paths in enumerate(paths) for node in record_paths}
    annotated: dict[str, dict[etree._Element, Candidate]] = defaultdict(dict)
    for c in candidates:
        if c.node in record_of and c.type in thresholds:
            annotated[c.type].setdefault(c.node, c)     # the first annotation of a type on a node
    n = max(len(records), 1)
    out: list[dict[str, Aligned]] = [{} for _ in records]
    for type_, (theta_infer, theta_keep) in thresholds.items():
        nodes = annotated.get(type_, {})
        records_at: dict[TagPath, set[int]] = defaultdict(set)
        for node in nodes:
            records_at[paths[record_of[node]][node]].add(record_of[node])
        support = {path: len(ks) / n for path, ks in records_at.items()}
        for k, record_paths in enumerate(paths):
            for node in in_order[k]:                          # document order: the first one wins
                s = support.get(record_paths[node], 0.0)
                if node in nodes and s > theta_keep:
                    out[k][type_] = Aligned(type_, node, nodes[node].value, "annotated", s)
                elif s > theta_infer:
                    out[k][type_] = Aligned(type_, node, None, "inferred", s)
                else:
                    continue
                break
    return out
