"""Decoded text -> lxml tree, parsed once and shared by every method.

The parser never touches the network and resolves no external entities. libxml2 stops at a
nesting depth of 2048 and silently drops the rest of the document; when its error log says so we
rebuild the tree from lexbor (resiliparse), which has no depth limit, attaching anything deeper
than the cap to the ancestor at the cap, so no text is lost and no traversal can recurse deeply.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lxml import etree

from .decode import DecodedText, decode_body, looks_binary
from .dom import shown_chars
from .errors import EmptyPageError, NotHtmlError, ParseError
from .modals import empty_modals
from .resources import SubResource

__all__ = ["ParsedPage", "decode_page", "page_from_decoded", "page_markup", "parse_html", "parse_page",
           "strip_internal_subsets", "xml_compatible", "MAX_DEPTH"]

MAX_DEPTH = 2048
_HTML_TYPES = ("text/html", "application/xhtml+xml", "application/xml", "text/xml", "text/plain", "")


@dataclass(frozen=True, slots=True, eq=False)
class ParsedPage:
    """A decoded, parsed page. Methods read it and never mutate `root`."""

    root: etree._Element
    url: str | None = None
    page_id: str | None = None
    encoding: str = "utf-8"
    encoding_source: str = "given"
    lossy_decoding: bool = False
    flattened: bool = False
    markup: str | None = None    # the decoded HTML, for peers that parse it themselves
    meta: dict = field(default_factory=dict)
    resources: tuple[SubResource, ...] = ()   # archived stylesheets it loads, for a renderer (VIPS)

    @property
    def body(self) -> etree._Element:
        """The `<body>` element, or the root when the document has none."""
        body = self.root.find("body")
        return body if body is not None else self.root


def page_markup(page: ParsedPage) -> str:
    """The page as HTML text for a library that parses it itself (the peers): the decoded markup when
    the page came from bytes, else our tree serialised as HTML. Never XML: an HTML5 parser reads an
    XML-style `<script src=x/>` as an open script that swallows the rest of the page (resiliparse
    returned empty text on 7 of the 24 Scrapinghub pages that way)."""
    if page.markup is not None:
        return page.markup
    return etree.tostring(page.root, encoding="unicode", method="html")


# libxml2's HTML parser does not know a DOCTYPE's internal subset (`<!DOCTYPE x [ ... ]>`): it ends the
# doctype at the first `>` and the rest (`%p; %d;]>`, `]>`) becomes text of the body (issue 22).
_SUBSET = re.compile(r"(<!doctype\b[^\[>]*)\[(.*?)\]\s*>", re.IGNORECASE | re.DOTALL)
_ENTITY_DECL = re.compile(r"<!ENTITY\s+([^\s%\"'>]+)", re.IGNORECASE)


def strip_internal_subsets(text: str) -> str:
    """Markup without the internal subsets of its DOCTYPEs, nor references to the entities they declared.

    The entities are never expanded (no entity resolution: docs/design.md#rules-that-hold-everywhere), so
    `&lol9;` of a "billion laughs" page is not text the page shows either. Other unknown references (`&nbsp`
    typos) are left to the parser.

    Args:
        text: decoded HTML.

    Returns:
        The same text when it has no DOCTYPE with an internal subset (the usual case).
    """
    if "[" not in text or not _SUBSET.search(text):
        return text
    names: set[str] = set()

    def drop(match: re.Match[str]) -> str:
        names.update(_ENTITY_DECL.findall(match.group(2)))
        return match.group(1).rstrip() + ">"

    text = _SUBSET.sub(drop, text)
    if names:
        text = re.sub("&(?:" + "|".join(map(re.escape, sorted(names))) + ");", "", text)
    return text


def _parser() -> etree.HTMLParser:
    # collect_ids=False: libxml2 would also file every `id` in a hash table, read only by XPath's id() and DTD
    # validation, which nothing here uses; the tree is the same (~10% of the parse, every page of every method)
    return etree.HTMLParser(recover=True, no_network=True, huge_tree=True, remove_pis=True,
                            remove_blank_text=False, encoding="utf-8", default_doctype=False, collect_ids=False)


def _too_deep(parser: etree.HTMLParser) -> bool:
    return any(entry.type_name == "ERR_RESOURCE_LIMIT" for entry in parser.error_log)


def _from_lexbor(text: str) -> tuple[etree._Element, bool]:
    """Build an lxml tree from lexbor's DOM with an explicit stack, flattening below MAX_DEPTH: (root, whether
    some element lay below MAX_DEPTH and had its children lifted up)."""
    from resiliparse.parse.html import HTMLTree, NodeType

    document = HTMLTree.parse(text).document
    html = document.first_element_child
    if html is None:
        raise EmptyPageError("document has no element")
    root = etree.Element("html")
    stack = [(child, root, 1) for child in reversed(_children(html))]
    last_child: dict[etree._Element, etree._Element] = {}  # parent -> its last element child, for tails
    flattened = False
    while stack:
        node, parent, depth = stack.pop()
        if node.type == NodeType.TEXT:
            _add_text(parent, last_child.get(parent), node.text)
            continue
        if node.type != NodeType.ELEMENT:
            continue
        tag = node.tag if _valid_tag(node.tag) else "span"
        element = etree.SubElement(parent, tag)
        for name in node.attribute_names:
            if _valid_tag(name):
                element.set(name, xml_compatible(node.getattr(name) or ""))
        last_child[parent] = element
        # below the cap an element stays empty and its children follow it as siblings
        children = _children(node)
        into = element if depth < MAX_DEPTH else parent
        flattened = flattened or (into is parent and bool(children))
        stack.extend((child, into, depth + 1) for child in reversed(children))
    return root, flattened


def _children(node) -> list:
    """A lexbor node's children, in order. Not `node.child_nodes`: resiliparse builds that list in worse than
    quadratic time (measured on a `<dl>` of unclosed `<dd>`: 1,000 children 6.6 s, 4,000 122 s; any element with
    thousands of children is the same case); the sibling pointers give the same nodes in linear time (4,000 in
    0.04 s)."""
    out, child = [], node.first_child
    while child is not None:
        out.append(child)
        child = child.next_sibling
    return out


def _valid_tag(name: str) -> bool:
    return bool(name) and (name[0].isalpha() or name[0] == "_") and all(c.isalnum() or c in "-_." for c in name)


def parse_html(text: str, *, mend_title: bool = True) -> tuple[etree._Element, bool]:
    """Parse markup into an lxml tree, TeX formulas read as their source and modal dialogs emptied (`modals`).

    Args:
        text: decoded HTML.
        mend_title: close a `<title>` that swallowed the page (a lost `</title>`) and parse again.

    Returns:
        (root element, flattened): `flattened` is True when the tree kept is lexbor's and some of its elements
        lay below MAX_DEPTH, their children lifted up (libxml2 stops at that depth, so such a page is rebuilt
        from lexbor, which nests as a browser does: often less deep, and then nothing is lifted).

    Raises:
        EmptyPageError: no element content at all (empty or whitespace-only markup).
        ParseError: the parser produced no tree.
    """
    root, flattened = _parse_tree(text, mend_title)
    if "<math" in text or "<MATH" in text:      # a substring test, in C: most pages have no formula
        _math_as_tex(root)
    # likewise for modals (modals.py); case-sensitive, as pages write them: of the 3,800 benchmark pages, 38 say
    # "Dialog" or "DIALOG" only, none of them in a modal (a case-blind regex would cost 20-40x the test)
    if "dialog" in text or "aria-modal" in text:
        empty_modals(root)
    return root, flattened


def _parse_tree(text: str, mend_title: bool) -> tuple[etree._Element, bool]:
    if not text or text.isspace():          # = `not text.strip()`, without copying the page
        raise EmptyPageError("empty document")
    data = strip_internal_subsets(text.replace("\x00", "")).encode("utf-8", "surrogatepass")
    parser = _parser()
    try:
        root = etree.fromstring(data, parser)
    except (etree.ParserError, etree.XMLSyntaxError, ValueError) as exc:
        raise ParseError(str(exc)[:200]) from exc
    if root is not None and _too_deep(parser):
        return _from_lexbor(data.decode("utf-8", "replace"))
    if root is None:
        raise EmptyPageError("no element content")
    if mend_title and (cut := _swallowing_title_end(root, text)) is not None:
        return _parse_tree(text[:cut] + "</title>" + text[cut:], mend_title=False)
    _adopt_content_after_html(root)
    if len(data) <= SECOND_PARSE_MAX_BYTES and (shown := shown_chars(root, LITTLE_TEXT_CHARS)) < LITTLE_TEXT_CHARS:
        return _read_as_a_browser_does(root, data, shown)
    return root, False


# A formula in MathML is a tree of one-glyph elements (`<mi>a</mi><mo>=</mo>...`) whose text reads as token soup,
# so the walk never renders `<math>` (dom.INVISIBLE_TAGS). Where the page carries the formula's LaTeX source (a TeX
# `<annotation>`, as Wikipedia and MathJax write it, else the `alttext` attribute), the formula becomes that source
# between `\(` `\)` (`\[` `\]` for display="block"), as trafilatura writes it: a corpus of web text keeps its
# formulas, in the notation language models read. A `<math>` without either stays unrendered.
_TEX_ANNOTATION = etree.XPath('.//*[local-name()="annotation"][@encoding="application/x-tex"]')


def _math_as_tex(root: etree._Element) -> None:
    for math in list(root.iter("math")):
        annotation = _TEX_ANNOTATION(math)
        tex = " ".join(((annotation[0].text if annotation else None) or math.get("alttext") or "").split())
        if not tex:
            continue
        opening, closing = ("\\[", "\\]") if math.get("display") == "block" else ("\\(", "\\)")
        # the element stays (so the XPaths of its siblings still name the page's own elements), read as text after it
        math.tail = xml_compatible(opening + tex + closing) + (math.tail or "")


# libxml2 gives up on some broken markup that a browser reads: a start tag whose attributes run into the page
# (`<html xmogo.jpg" alt=...`: one L3S-GN1 page, an empty tree) or a `<button>` left open past `</button>`, which
# keeps the rest of the page inside the button (four WCXB pages). Where libxml2's body shows under
# LITTLE_TEXT_CHARS, lexbor (an HTML5 parser, as a browser's) parses the page too, and its tree is kept when it
# shows at least MORE_TEXT_CHARS more. Few pages show so little (landing pages, redirects); lexbor's parse and the
# tree built from it cost a few milliseconds there. Markup over SECOND_PARSE_MAX_BYTES is not parsed again: a
# large page that shows nothing is more often a hostile one (a million empty elements), and the tree built from
# lexbor's is built in Python, without the walk's limits on nodes.
LITTLE_TEXT_CHARS = 200
MORE_TEXT_CHARS = 500
SECOND_PARSE_MAX_BYTES = 1_000_000


def _read_as_a_browser_does(root: etree._Element, data: bytes, shown: int) -> tuple[etree._Element, bool]:
    try:
        other, flattened = _from_lexbor(data.decode("utf-8", "replace"))
    except EmptyPageError:
        return root, False
    if shown_chars(other, shown + MORE_TEXT_CHARS) >= shown + MORE_TEXT_CHARS:
        return other, flattened
    return root, False


# A crawl that lost the bytes of `</title>` leaves a title that reads to the end of the page (title text is raw
# text to both libxml2 and a browser, so both show an empty page). Six of L3S-GN1's 416 pages are such, their
# whole article in the title; no peer reads them. Markup a title cannot hold tells them from a long title.
_SWALLOWED = re.compile(r"<(?:body|/head)\b", re.IGNORECASE)
_TITLE_START = re.compile(r"<title\b[^>]*>", re.IGNORECASE)
SWALLOWING_TITLE_CHARS = 1_000


def _swallowing_title_end(root: etree._Element, text: str) -> int | None:
    """Where in `text` a `</title>` belongs, when the page's title swallowed its body: before the first `<`
    after the title's start tag (the lost end tag stood at or before it); None for every other page."""
    title = root.find("head/title")
    if title is None or len(title.text or "") < SWALLOWING_TITLE_CHARS or not _SWALLOWED.search(title.text):
        return None
    start = _TITLE_START.search(text)
    cut = -1 if start is None else text.find("<", start.end())
    return cut if cut > 0 else None


def _adopt_content_after_html(root: etree._Element) -> None:
    """Move what libxml2 put after the document's `<body>` or `<html>` into the body, as a browser does.

    Markup after a stray `</body></html>` (a template that closes the page after its header, then prints the
    article) becomes a second top-level `<html>` in libxml2's tree, outside the one every method reads; an
    HTML5 parser puts it back into the body. 74 of the 3,800 benchmark pages have some, one its whole article.
    After a stray `</body>` alone, libxml2 puts the rest beside the body, under `<html>` (79 pages; one CleanEval
    page its whole text).
    """
    body = root.find("body")
    if body is None:                        # a frameset page: nothing to put it in
        return
    _append_text(body, body.tail)           # after a stray </body>, libxml2 puts the rest beside the body
    body.tail = None
    for sibling in list(body.itersiblings()):
        body.append(sibling)                # a comment too: its tail is text
    for sibling in list(root.itersiblings()):
        if not isinstance(sibling.tag, str):
            continue                        # a comment after </html> stays where it is
        if sibling.tag != "html":
            body.append(sibling)            # moves it, with its tail
            continue
        _append_text(body, sibling.text)
        for child in list(sibling):
            if child.tag in ("head", "body"):   # their content, not the elements: the page has its own
                _append_text(body, child.text)
                for part in list(child):
                    body.append(part)
                _append_text(body, child.tail)
            else:
                body.append(child)


def _append_text(parent: etree._Element, text: str | None) -> None:
    if not text or text.isspace():
        return
    _add_text(parent, parent[-1] if len(parent) else None, text)


def _add_text(parent: etree._Element, last: etree._Element | None, text: str) -> None:
    """Text after `last` (None: at the start of `parent`), without the control characters that libxml2's and
    lexbor's parsers keep and lxml's setters refuse."""
    joined = ((parent.text if last is None else last.tail) or "") + text
    try:
        _set_text(parent, last, joined)
    except ValueError:
        _set_text(parent, last, xml_compatible(joined))


_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_compatible(text: str) -> str:
    """`text` without the characters lxml's setters refuse ("All strings must be XML compatible"): C0 controls
    but tab and newlines, lone surrogates, U+FFFE and U+FFFF. HTML parsers keep them; a browser shows nothing."""
    return _NOT_XML.sub("", text)


def _set_text(parent: etree._Element, last: etree._Element | None, text: str) -> None:
    if last is None:
        parent.text = text
    else:
        last.tail = text


def parse_page(body: bytes | None, *, url: str | None = None, page_id: str | None = None,
               charset_hint: str | None = None, content_type: str | None = None) -> ParsedPage:
    """Bytes + HTTP metadata -> ParsedPage.

    Args:
        body: the undecoded payload.
        url, page_id: carried along for methods that use them.
        charset_hint: charset from the HTTP header (may be wrong: see `decode_body`).
        content_type: media type, lower-cased without parameters.

    Raises:
        NotHtmlError: a media type that is not markup, or bytes that look binary.
        EmptyPageError: an empty body or a document with no elements.
        ParseError: the parser failed.
    """
    return page_from_decoded(decode_page(body, charset_hint=charset_hint, content_type=content_type),
                             url=url, page_id=page_id)


def decode_page(body: bytes | None, *, charset_hint: str | None = None, content_type: str | None = None
                ) -> DecodedText:
    """The checks and the decoding of `parse_page`, without the parse (for callers that time them apart).

    Raises:
        NotHtmlError: a media type that is not markup, or bytes that look binary.
        EmptyPageError: an empty body.
    """
    if content_type and content_type.split(";")[0].strip().lower() not in _HTML_TYPES:
        raise NotHtmlError(f"content type {content_type}")
    if not body or body.isspace():           # = `not body.strip()`, without copying the page
        raise EmptyPageError("empty body")
    if looks_binary(body):
        raise NotHtmlError("binary content")
    return decode_body(body, charset_hint)


def page_from_decoded(decoded: DecodedText, *, url: str | None = None, page_id: str | None = None,
                      resources: tuple[SubResource, ...] = ()) -> ParsedPage:
    """Parse already decoded text into a ParsedPage (for callers that time decoding and parsing apart).

    Raises:
        EmptyPageError, ParseError: as `parse_html`.
    """
    root, flattened = parse_html(decoded.text)
    return ParsedPage(root=root, url=url, page_id=page_id, encoding=decoded.encoding,
                      encoding_source=decoded.source, lossy_decoding=decoded.lossy, flattened=flattened,
                      markup=decoded.text, resources=resources)
