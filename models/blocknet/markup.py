"""Blocks the page's markup rules out as content, whatever the model says of them.

- a hidden copy: a block under an element with an inline `display: none` whose exact text a shown block of the page
  also holds (a second layout of the article for another screen size, a print copy). Hidden text that is no copy
  stays the model's to judge: a read-more's rest and a tab's panels are content in WCXB's gold;
- a site landmark: a block under a navigation, footer or complementary landmark (`<nav>`, `<footer>`, `<aside>` or
  their ARIA roles) and under neither `<main>` nor `<article>` (a site's menus, also where they are custom elements
  without links, which the model's link features miss; its footer and sidebars; an article's own footer stays).

The model reads the same context bits as inputs; the rules settle what it learned from pools where these blocks
are never content but does not apply on pages unlike them. They act on the content blocks the model and its
fallback rule chose (`BlockNet.content`), taking the ruled-out ones away, unless that would leave none: they start no
fallback and never empty a page, and the second opinion's uncertainty reads the model's own logits. Each rule chosen
leaving whole benchmarks out (docs/methods/blocknet.md#blocks-the-markup-rules-out); scripts/eval/lobo_blocknet.py
scores them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..page.context import CONTEXT_BIT
from ..web2text import Blocks

__all__ = ["block_context", "hidden_copies", "landmarks", "rule_out", "ruled_out"]

def block_context(blocks: Blocks) -> np.ndarray:
    """Each block's context bits (`models.page.context`; blocks built with `context=True`), as int64."""
    return np.fromiter(map(blocks.cdom.context.__getitem__, blocks.node), dtype=np.int64, count=len(blocks))


def hidden_copies(texts: Sequence[str], context: np.ndarray) -> np.ndarray:
    """Which blocks lie under an inline `display: none` and have the exact text of a block that does not."""
    hidden = (context & CONTEXT_BIT["hidden"]) != 0
    if not hidden.any():
        return hidden
    flags = hidden.tolist()
    shown = {text for text, h in zip(texts, flags, strict=True) if not h}
    return np.fromiter((h and text in shown for text, h in zip(texts, flags, strict=True)), dtype=bool,
                       count=len(flags))


def landmarks(context: np.ndarray) -> np.ndarray:
    """Which blocks lie under a site landmark (`<nav>`, `<footer>`, `<aside>` or their roles) and under neither
    `<main>` nor `<article>`."""
    site = CONTEXT_BIT["nav"] | CONTEXT_BIT["footer"] | CONTEXT_BIT["aside"]
    return ((context & site) != 0) & ((context & (CONTEXT_BIT["main"] | CONTEXT_BIT["article"])) == 0)


def ruled_out(texts: Sequence[str], context: np.ndarray, *, hidden: bool, site: bool) -> np.ndarray:
    """The blocks the rules that are on (`hidden`: hidden copies, `site`: site landmarks) rule out."""
    out = hidden_copies(texts, context) if hidden else np.zeros(len(texts), dtype=bool)
    return (out | landmarks(context)) if site else out


def rule_out(content: np.ndarray, ruled: np.ndarray) -> np.ndarray:
    """`content` (a mask of blocks) without the `ruled` ones, or `content` itself where none would be left."""
    kept = content & ~ruled
    return kept if kept.any() or not content.any() else content
