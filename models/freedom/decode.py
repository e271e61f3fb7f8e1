"""From node probabilities to one value per field and page, and FreeDOM's site-level XPath voting.

Per page (patent, node-level prediction): each node takes its most probable class; for each field, the node of
that class with the highest probability is the page's value. Per site (patent, "XPath voting"): a field's
values on a site's pages mostly come from one XPath, so the XPath chosen on most pages is taken on every page
that has a node there (origin `voted` where that changes the model's choice), and pages without one keep the
model's choice.

With value checks (`checks.py`), a node that fails its field's check is not a candidate for that field: the
page takes the best node of the field's class that passes, or none, and the vote moves a page only to a node
that passes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .checks import PageChecks
from .nodes import TextNode

__all__ = ["Choice", "page_choices", "vote_site"]


@dataclass(frozen=True, slots=True)
class Choice:
    """The value chosen for one field of one page."""

    field: str
    value: str
    xpath: str
    score: float
    origin: str = "model"


def page_choices(nodes: Sequence[TextNode], probs: np.ndarray, fields: Sequence[str],
                 checks: PageChecks | None = None) -> dict[str, Choice]:
    """field -> the best node whose argmax is that field and that passes the field's check (fields with no
    such node are absent).

    Args:
        nodes: a page's candidate nodes.
        probs: (len(nodes), K + 1) probabilities; column K is "none".
        fields: the K field names.
        checks: the page's value checks; None: every node passes.
    """
    out: dict[str, Choice] = {}
    if not len(nodes):
        return out
    best = probs.argmax(axis=1)
    for k, name in enumerate(fields):
        rows = np.flatnonzero((best == k) if checks is None else (best == k) & checks.allowed[:, k])
        if len(rows):
            i = int(rows[np.argmax(probs[rows, k])])     # argmax takes the first of equal scores: page order
            out[name] = Choice(name, value_of(nodes, i, k, checks), nodes[i].xpath, round(float(probs[i, k]), 4))
    return out


def value_of(nodes: Sequence[TextNode], row: int, k: int, checks: PageChecks | None) -> str:
    """The value node `row` gives field k: its text, or the span its check returned."""
    return nodes[row].text if checks is None else checks.value(row, k, nodes[row].text)


def vote_site(pages: Sequence[Sequence[TextNode]], probs: Sequence[np.ndarray], choices: Sequence[dict[str, Choice]],
              fields: Sequence[str], min_pages: int = 3,
              checks: Sequence[PageChecks] | None = None) -> list[dict[str, Choice]]:
    """The choices after XPath voting over a site's pages (unchanged when the site has fewer than `min_pages`).

    Ties between XPaths go to the one whose summed score is higher, then to the smaller string, so the vote
    does not depend on page order. With `checks` (one per page), a page whose node at the winning XPath fails
    the field's check keeps its own choice.
    """
    if len(pages) < min_pages:
        return [dict(c) for c in choices]
    out = [dict(c) for c in choices]
    for k, name in enumerate(fields):
        votes: Counter[str] = Counter(c[name].xpath for c in choices if name in c)
        if not votes:
            continue
        mass: Counter[str] = Counter()
        for c in choices:
            if name in c:
                mass[c[name].xpath] += c[name].score
        winner = min(votes, key=lambda x: (-votes[x], -mass[x], x))
        for p, (nodes, page_probs, page_out) in enumerate(zip(pages, probs, out, strict=True)):
            at = next((i for i, n in enumerate(nodes) if n.xpath == winner), None)
            page_checks = checks[p] if checks is not None else None
            if at is None or (page_checks is not None and not page_checks.allowed[at, k]):
                continue
            current = page_out.get(name)
            if current is None or current.xpath != winner:
                page_out[name] = Choice(name, value_of(nodes, at, k, page_checks), winner,
                                        round(float(page_probs[at, k]), 4), "voted")
    return out
