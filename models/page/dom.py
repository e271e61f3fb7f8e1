"""DOM helpers shared by the methods. Every walk is iterative (lxml's C iterators or an explicit
stack): a page may nest thousands of levels deep."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from types import ModuleType

from lxml import etree

from .native import load_native

__all__ = ["INVISIBLE_TAGS", "BLOCK_TAGS", "is_element", "xpath_of", "xpaths_of", "tag_path", "page_title",
           "title_elements", "START", "END", "SKIP", "COMMENT", "WalkEvent", "walk_tree", "iter_text_chunks",
           "join_paragraphs", "HIDING_TAGS", "hidden_chars", "shown_chars", "visible_text"]

# Never rendered as text. Ruby annotations count as not rendered: `<rt>` is the reading printed above a word
# (furigana, pinyin), `<rp>` the parentheses a browser without ruby shows; kept, they split the words of a
# Japanese or Chinese text ("子こども"), and trafilatura and browsers' copied text drop them too.
INVISIBLE_TAGS = frozenset({"script", "style", "noscript", "template", "head", "title", "meta", "link",
                            "svg", "math", "iframe", "object", "embed", "canvas", "select", "option",
                            "datalist", "textarea", "input", "button", "rt", "rp"})
# Elements that start a new line when rendered; text on either side goes to separate paragraphs.
BLOCK_TAGS = frozenset({"address", "article", "aside", "blockquote", "body", "br", "caption", "center", "dd",
                        "details", "dialog", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer",
                        "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "html", "li", "main", "nav",
                        "ol", "p", "pre", "section", "summary", "table", "tbody", "td", "tfoot", "th", "thead",
                        "tr", "ul", "frame", "frameset", "menu", "legend"})


def is_element(node: object) -> bool:
    """True for element nodes (lxml yields comments and PIs from iter() too; their tag is not a str)."""
    return isinstance(node, etree._Element) and isinstance(node.tag, str)


def xpath_of(element: etree._Element) -> str:
    """Absolute XPath of an element, e.g. `/html/body/div[2]/p[1]` (computed in C by libxml2)."""
    return element.getroottree().getpath(element)


def xpaths_of(elements: Sequence[etree._Element]) -> list[str]:
    """`xpath_of` for many elements of one tree, in time linear in the tree.

    libxml2's getpath counts an element's same-tag siblings on every call, so the XPaths of the 20,000
    paragraphs under one `<body>` cost 20,000 squared steps; here each parent's children are numbered once
    and each ancestor's path is built once. Same strings as getpath (`[n]` only where a parent has several
    children of that tag); namespaced tag names are left to getpath.

    Runs in C (`xpaths_of` of models/web2text/_cwalk.c, ~10x faster: docs/performance.md) where the extension
    is built, else in Python (`_python_xpaths_of`); PAGESIEVE_PURE_PYTHON=1 forces the Python one.
    """
    return _xpaths_of(elements)


def _python_xpaths_of(elements: Sequence[etree._Element]) -> list[str]:
    paths: dict[etree._Element, str] = {}
    numbered: set[etree._Element] = set()

    def number_children(parent: etree._Element) -> None:
        # once per parent of a content block, over all its children (a <body> may have thousands): each tag read
        # once, the element children picked in C, the counting in C (Counter of a list)
        numbered.add(parent)
        prefix = paths[parent]
        children = list(parent.iterchildren(etree.Element))     # elements only: no comments or PIs
        tags = [c.tag for c in children]
        if len(set(tags)) == len(tags):     # most parents (a chain, a <tr> of <td>...): no tag twice, no numbers
            for c, tag in zip(children, tags, strict=True):
                paths[c] = f"{prefix}/{tag}"
            return
        counts = Counter(tags)
        seen: dict[str, int] = {}
        for c, tag in zip(children, tags, strict=True):
            if counts[tag] == 1:
                paths[c] = f"{prefix}/{tag}"
            else:
                seen[tag] = number = seen.get(tag, 0) + 1
                paths[c] = f"{prefix}/{tag}[{number}]"

    out = []
    for element in elements:
        chain = [element]                        # up to the nearest element whose path is known
        while chain[-1] not in paths:
            parent = chain[-1].getparent()
            if parent is None:
                paths[chain[-1]] = _top_path(chain[-1])
                break
            chain.append(parent)
        for node in reversed(chain[:-1]):        # outermost first: each parent numbers its children once
            parent = node.getparent()
            if parent not in numbered:
                number_children(parent)
        path = paths[element]
        out.append(xpath_of(element) if ":" in path or "{" in path else path)
    return out


def _top_path(element: etree._Element) -> str:
    """The path of an element without a parent element: `/tag`, numbered among the document's top-level elements
    of its tag as getpath does (markup after `</html>` can make libxml2's HTML parser add a second `<html>`)."""
    path = "/" + element.tag        # a comment's tag is a function: TypeError, as before tops were numbered
    before = sum(1 for _ in element.itersiblings(element.tag, preceding=True))
    if before or next(element.itersiblings(element.tag), None) is not None:
        return f"{path}[{before + 1}]"
    return path


def _c_xpaths_of(elements: Sequence[etree._Element]) -> list[str]:
    if not isinstance(elements, list | tuple):      # a generator is read once, and the Python one may need it
        elements = list(elements)
    out = _cwalk.xpaths_of(elements, xpath_of)       # namespaced elements: xpath_of, called from C
    # None: an input the C one does not answer (not an element proxy): the Python one raises what it raises
    return _python_xpaths_of(elements) if out is None else out


def load_c_walk() -> ModuleType | None:
    """The C extension models/web2text/_cwalk.c (the Web2Text walk and `xpaths_of`), or None (`load_native`)."""
    return load_native("web2text._cwalk")


_cwalk = load_c_walk()
# chosen once: what every xpaths_of runs
_xpaths_of: Callable[[Sequence[etree._Element]], list[str]] = _c_xpaths_of if _cwalk is not None else _python_xpaths_of


def tag_path(element: etree._Element) -> str:
    """Tag names from the root down to the element, e.g. `html/body/div/p`."""
    tags = [element.tag] + [a.tag for a in element.iterancestors()]
    return "/".join(reversed([t for t in tags if isinstance(t, str)]))


def title_elements(root: etree._Element) -> Iterator[etree._Element]:
    """The page's `<title>` elements in document order, without those of inline SVG (an icon's tooltip,
    `<svg><title>Search</title>...`, is not the document's title)."""
    for title in root.iter("title"):
        if next(title.iterancestors("svg"), None) is None:
            yield title


def page_title(root: etree._Element) -> str | None:
    """`<title>`, else `og:title`, else the first `<h1>`; whitespace collapsed; None if none."""
    # one search at a time: most pages have a <title>, and each search may walk the whole tree
    searches = (lambda: next(title_elements(root), None), lambda: root.find(".//meta[@property='og:title']"),
                lambda: root.find(".//h1"))
    for search in searches:
        found = search()
        if found is None:
            continue
        value = found.get("content") if found.tag == "meta" else "".join(found.itertext())
        value = " ".join((value or "").split())
        if value:
            return value
    return None


START, END, SKIP, COMMENT = 0, 1, 2, 3
# (kind, node, text): START -> (element, its .text); END / SKIP / COMMENT -> (node, its .tail)
WalkEvent = tuple[int, etree._Element, str | None]
# "comment" and "pi" must be asked for: with start/end only, iterwalk never yields them, and the text
# after a comment (its tail) is lost
_EVENTS = ("start", "end", "comment", "pi")


def walk_tree(root: etree._Element, skip: frozenset[str] = frozenset()) -> Iterator[WalkEvent]:
    """The one DOM walk the methods share: every text node under `root`, in document order.

    A flat event walk over lxml's C iterator (no recursion, so any depth). Each event is a tuple
    `(kind, node, text)`:

    - `(START, element, element.text)`: an element opens; `text` is its first text node.
    - `(END, element, element.tail)`: it closes; `text` is the text node after it, in its parent.
    - `(SKIP, element, element.tail)`: an element whose lower-cased tag is in `skip`, in place of its
      START/END pair. Nothing inside it is yielded (lxml does not even visit it); its tail is text.
    - `(COMMENT, node, node.tail)`: a comment or processing instruction. It is not text, but its
      tail is a text node of the enclosing element.

    `root` itself is always walked, whatever its tag, and its tail is not part of its subtree: the
    root's END carries None. Text values are lxml's, unnormalised, and may be None or empty.

    Args:
        root: the subtree to walk.
        skip: lower-case tag names whose subtrees hold no text (e.g. `INVISIBLE_TAGS`).

    Yields:
        One `WalkEvent` per element boundary, skipped element, comment and processing instruction.
    """
    walker = etree.iterwalk(root, events=_EVENTS)
    for event, node in walker:
        if event == "start":
            if node.tag.lower() in skip and node is not root:
                walker.skip_subtree()
                next(walker)                     # the skipped element's own "end", which comes at once
                yield SKIP, node, node.tail
            else:
                yield START, node, node.text
        elif event == "end":
            yield END, node, node.tail if node is not root else None
        else:
            yield COMMENT, node, node.tail


def text_nodes(root: etree._Element) -> Iterator[tuple[etree._Element, str]]:
    """(holder element, text) for every visible text node: an element's text, or a child's tail (held by
    the parent), in document order."""
    open_elements: list[etree._Element] = []
    for kind, node, text in walk_tree(root, INVISIBLE_TAGS):
        if kind == START:
            open_elements.append(node)
            if text and text.strip():
                yield node, text
        elif kind == END:
            open_elements.pop()
            if text and text.strip() and open_elements:
                yield open_elements[-1], text
        elif text and text.strip() and open_elements:      # SKIP or COMMENT: its tail is the parent's text
            yield open_elements[-1], text


# Line breaks in the source are formatting, not paragraph breaks: only block elements break lines.
_SOURCE_NEWLINES = str.maketrans({"\n": " ", "\r": " ", "\f": " ", "\v": " "})


def iter_text_chunks(element: etree._Element, skip: frozenset[str] = INVISIBLE_TAGS) -> Iterator[str]:
    """Visible text under `element` in document order, with "\\n" yielded at block boundaries.

    Subtrees whose tag is in `skip` are left out, their tails kept (an `element` whose own tag is
    in `skip` has no visible text). Comments and processing instructions are left out, their tails
    kept. Newlines inside text nodes come out as spaces, so every "\\n" in the output is a block
    boundary.
    """
    if isinstance(element.tag, str) and element.tag.lower() in skip:
        return
    for kind, node, text in walk_tree(element, skip):
        # a block element's start or end is a line break, before the text that follows it
        if kind in (START, END) and node.tag.lower() in BLOCK_TAGS:
            yield "\n"
        if text:
            yield text.translate(_SOURCE_NEWLINES)


# Skipped elements a page's whole text can lie in: a JavaScript app serves it to crawlers in <noscript>
# (Discourse's forum threads), and libxml2 keeps an unclosed <button> open to the end of the page where a
# browser's parser closes it at </button> (`<button><div></button>`: the rest of the page inside the button).
HIDING_TAGS = ("noscript", "button")


def hidden_chars(root: etree._Element) -> int:
    """Characters of text (each text node stripped) inside the page's outermost `HIDING_TAGS` elements, which
    every walk skips. Elsewhere they hold a line ("Menu", "please enable JavaScript") or a tracking pixel."""
    total = 0
    for element in root.iter(*HIDING_TAGS):
        if not any(a.tag in HIDING_TAGS for a in element.iterancestors()):    # nested ones counted once
            total += sum(len(t.strip()) for t in element.itertext())
    return total


def shown_chars(root: etree._Element, enough: int) -> int:
    """Characters of visible text in the body (each chunk stripped), counted up to `enough` (most pages pass in
    their first lines)."""
    body = root.find("body")
    n = 0
    if body is not None:
        for chunk in iter_text_chunks(body):
            n += len(chunk.strip())
            if n >= enough:
                break
    return n


def join_paragraphs(text: str) -> str:
    """The `documents.text` layout: each line of `text` one paragraph, whitespace collapsed,
    empty ones dropped, paragraphs separated by a blank line."""
    return "\n\n".join(p for p in (" ".join(line.split()) for line in text.split("\n")) if p)


def visible_text(element: etree._Element, skip: frozenset[str] = INVISIBLE_TAGS) -> str:
    """Rendered-looking text of a subtree: one paragraph per block (see `join_paragraphs`)."""
    return join_paragraphs("".join(iter_text_chunks(element, skip)))
