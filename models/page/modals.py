"""Modal dialogs out of the page: overlays a script opens over it, not the page itself.

A closed `<dialog>` is never rendered (the browser's own stylesheet hides it), and an element with
`role="dialog"` / `"alertdialog"` or `aria-modal="true"` is an overlay the page's CSS hides until a click
opens it, or a cookie banner laid over the page: a login or newsletter form, a seller card, a size guide, a
product page's whole privacy policy. Readability drops `role="dialog"` with `aria-modal="true"` for the same
reason. In WCXB's fit and validation pages (2025-26) such elements hold 474,000 characters on 221 pages, next
to none of it in the gold (0.00 of its characters), and blocknet kept a third of it; in the other seven pools
they hold little and no gold (one Google Trends page's video-player dialog aside). See docs/experiments.md
(2026-11-29, modal dialogs).

A modal's element stays in the tree, emptied, so the XPaths of the elements after it still name the page's own
elements. A page whose text lies all in modals (under `KEPT_TEXT_CHARS` shown outside them) keeps them: a
page is never emptied by this rule.
"""

from __future__ import annotations

from lxml import etree

from .dom import shown_chars

__all__ = ["KEPT_TEXT_CHARS", "empty_modals", "is_modal"]

KEPT_TEXT_CHARS = 200

_CANDIDATES = etree.XPath("//dialog | //*[@role or @aria-modal]")


def is_modal(element: etree._Element) -> bool:
    """A closed `<dialog>`, or an element whose role is dialog / alertdialog or whose aria-modal is true."""
    if element.tag == "dialog" and element.get("open") is None:
        return True
    role = (element.get("role") or "").strip().lower()
    return role in ("dialog", "alertdialog") or (element.get("aria-modal") or "").strip().lower() == "true"


def empty_modals(root: etree._Element) -> int:
    """Empty every modal of the tree in place (text and children; the element and its tail stay); returns how
    many were emptied. Left as they were when the page would show under KEPT_TEXT_CHARS without them."""
    emptied = []
    for element in _CANDIDATES(root):
        if is_modal(element) and _attached(element, root):      # not inside a modal emptied already
            emptied.append((element, element.text, list(element)))
            element.text = None
            for child in list(element):
                element.remove(child)           # its tail goes with it: text inside the modal
    if emptied and shown_chars(root, KEPT_TEXT_CHARS) < KEPT_TEXT_CHARS:
        for element, text, children in reversed(emptied):
            element.text = text
            element.extend(children)
        return 0
    return len(emptied)


def _attached(element: etree._Element, root: etree._Element) -> bool:
    # lxml keeps a removed element in its document, so getroottree() still names the page's root: walk up
    top = element
    while (parent := top.getparent()) is not None:
        top = parent
    return top is root
