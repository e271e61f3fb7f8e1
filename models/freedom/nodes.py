"""Candidate text nodes of a page, and the per-site filter that keeps only the nodes that vary.

FreeDOM (patent, "node-level module", pre-processing): a detail page's field values sit in text nodes whose
XPath is the same on every page of a site while their text changes; template text (labels, menus, footers)
repeats unchanged. So per site we keep the text nodes whose XPath takes at least two distinct values across
the site's pages, and of those the top N XPaths by number of distinct values.

Span splitting (`page_nodes(..., spans=True)`, models trained with `--spans`): a text node that holds several
fields (`Publisher: X / Pub. date: Y`, `X · Y · 352 pages`, `0316125581 / 9780316125581`) is also cut at
separators (`/`, `|`, `·`, `•`, `;`, ` - ` between spaces; not inside the node's first `Label:`, as in
`EAN / ISBN-13: ...`) into spans, each one more candidate beside the
whole node: the part's value after its `Label:` when it has one, else the part. A span's preceding text ends
with the node's text before it (its label), so the label reads as for a node of its own; its XPath is the
node's with `#j` (the j-th span). A node without a separator stays whole (`Publisher: X` alone is one node, the
value SWDE labels).

A one-page site has no second page to compare with: every XPath has one value, so the filter would keep
nothing. We then keep all the page's text nodes (up to N, in document order) and let the model decide; the
result is marked by `SiteNodes.filtered = False`.
"""

from __future__ import annotations

import html
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from lxml import etree

from ..page.dom import text_nodes, title_elements, xpaths_of

__all__ = ["TextNode", "SiteNodes", "normalise", "document_titles", "title_match", "spans_of", "page_nodes",
           "select_site_nodes"]

# Longest node text kept: a node of several hundred characters is a description, never one of our fields.
MAX_CHARS = 300
# Words of preceding text the model reads (the patent's "last 10 words").
PRECEDING_WORDS = 10


def normalise(text: str) -> str:
    """SWDE's comparison form: entities unescaped, whitespace runs collapsed, ends stripped."""
    return " ".join(html.unescape(text).split())


@dataclass(frozen=True, slots=True)
class TextNode:
    """One visible text node: its holder's XPath (with `/text()[k]` when the holder has several), text,
    the leaf tag, the last words of the text before it on the page, where its text stands in the page's
    document title (`title_match`: 0 not in it, 1 inside it, 2 at its start), and its `label`: the text node
    just before it (a node `Label: value` and a span: their own `Label`), where sites put a field's label."""

    xpath: str
    text: str
    tag: str
    preceding: str
    title_match: int = 0
    label: str = ""


# Shorter texts ("by", "A", a lone digit) sit inside any title by chance.
MIN_TITLE_MATCH = 3


def document_titles(root: etree._Element) -> tuple[str, ...]:
    """The page's `<title>` and `og:title`, lower-cased and whitespace-collapsed: the one place where nearly
    every detail page names its entity, whatever its template (a heading's tag and classes vary by site)."""
    found = ["".join(el.itertext()) for el in title_elements(root)]
    found += [el.get("content") or "" for el in root.iterfind(".//meta[@property='og:title']")]
    return tuple(t for t in (normalise(v).lower() for v in found) if t)


def title_match(text: str, titles: Sequence[str]) -> int:
    """2 if `text` starts one of `titles`, 1 if it is inside one, 0 otherwise (case-insensitive)."""
    if len(text) < MIN_TITLE_MATCH:
        return 0
    lowered = text.lower()
    if any(t.startswith(lowered) for t in titles):
        return 2
    return 1 if any(lowered in t for t in titles) else 0


# Between fields sharing a node: a slash, bar, dot or semicolon, a dash only between spaces (not `ISBN-13`,
# `2010-06-15`), a slash only between spaces (not `06/15/2010`, `EAN/ISBN-13`).
_SEPARATOR = re.compile(r"\s*(?:[|·•;]|\s/\s|\s[-–—]\s)\s*")
_LABEL_VALUE = re.compile(r"^([^:]{1,40}?)\s*:\s*(\S.*)$")
MAX_SPANS = 8            # parts of one node: more is prose or a menu, not a list of fields
MAX_SPAN_CHARS = 80      # longest part: a field value is short


def spans_of(text: str) -> list[tuple[str, str]]:
    """(text of the node before the span, span) for each field-like part of a node's (normalised) text; [] when
    the node has no separator or looks like prose (more than MAX_SPANS parts, a part over MAX_SPAN_CHARS).

    >>> spans_of("Publisher: X / Date: June 2010")
    [('Publisher', 'X'), ('Publisher: X Date', 'June 2010')]
    """
    return [(before, span) for before, _, span in _parts(text)]


def _parts(text: str) -> list[tuple[str, str, str]]:
    """`spans_of` with each span's own label ("" when its part has none)."""
    # A separator before the node's first `Label:` colon is inside that label (`EAN / ISBN-13: ...`,
    # `ISBN-10 | 13: ...`, common on book sites), not a field boundary: split only what follows the label.
    head = _LABEL_VALUE.match(text)
    prefix = text[: head.start(2)] if head else ""
    parts = [p for p in _SEPARATOR.split(text[len(prefix):]) if p]
    if parts:
        parts[0] = prefix + parts[0]
    if not 2 <= len(parts) <= MAX_SPANS or max(map(len, parts)) > MAX_SPAN_CHARS:
        return []
    out, before = [], []
    for part in parts:
        match = _LABEL_VALUE.match(part)
        label, value = (match.group(1), match.group(2)) if match else ("", part)
        out.append((" ".join(before + [label]).strip(), label, value))
        before.append(part)
    return out


def page_nodes(root: etree._Element, spans: bool = False) -> list[TextNode]:
    """Every visible, non-empty text node of a page in document order (iterative walk, no recursion); with
    `spans`, each node that holds several fields is followed by its spans (module docstring)."""
    raw = [(holder, normalise(text)) for holder, text in text_nodes(root)]
    holders = [h for h, _ in raw]
    paths = xpaths_of(holders) if holders else []
    seen: dict[str, int] = defaultdict(int)
    out: list[TextNode] = []
    previous: list[str] = []
    label = ""
    titles = document_titles(root)
    for (holder, text), path in zip(raw, paths, strict=True):
        if not text:
            continue
        seen[path] += 1
        xpath = f"{path}/text()[{seen[path]}]"
        tag = holder.tag.lower() if isinstance(holder.tag, str) else "other"
        if len(text) <= MAX_CHARS:
            inline = _LABEL_VALUE.match(text)          # "Publisher: X" in one node labels itself
            out.append(TextNode(xpath, text, tag, " ".join(previous[-PRECEDING_WORDS:]), title_match(text, titles),
                                inline.group(1) if inline else label))
            for j, (before, own, span) in enumerate(_parts(text) if spans else (), start=1):
                preceding = " ".join((previous + before.split())[-PRECEDING_WORDS:])
                out.append(TextNode(f"{xpath}#{j}", span, tag, preceding, title_match(span, titles), own or label))
        previous = (previous + text.split())[-PRECEDING_WORDS:]
        label = text
    return out


@dataclass(frozen=True, slots=True)
class SiteNodes:
    """The candidate nodes of each page of one site, and whether the variability filter applied."""

    pages: tuple[tuple[TextNode, ...], ...]
    filtered: bool


def select_site_nodes(pages: Sequence[Sequence[TextNode]], top_n: int) -> SiteNodes:
    """Keep, on every page, the nodes whose XPath takes >= 2 distinct texts across the site's pages, limited to
    the `top_n` XPaths with the most distinct texts (ties: first seen). With fewer than two pages, each page
    keeps its first `top_n` nodes (see the module docstring).

    Args:
        pages: `page_nodes` of each page of one site.
        top_n: how many XPaths to keep (>= 1).

    Returns:
        The kept nodes per page, in document order.
    """
    if top_n < 1:
        raise ValueError(f"top_n must be >= 1, got {top_n}")
    if len(pages) < 2:
        return SiteNodes(tuple(tuple(p[:top_n]) for p in pages), filtered=False)
    values: dict[str, set[str]] = {}
    for nodes in pages:
        for node in nodes:
            values.setdefault(node.xpath, set()).add(node.text)
    order = {x: i for i, x in enumerate(values)}
    varying = sorted((x for x, v in values.items() if len(v) >= 2), key=lambda x: (-len(values[x]), order[x]))
    keep = set(varying[:top_n])
    return SiteNodes(tuple(tuple(n for n in nodes if n.xpath in keep) for nodes in pages), filtered=True)
