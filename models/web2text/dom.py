"""Web2Text preprocessing: the Collapsed DOM (section 3.1) and DOM-leaf blocks (section 3.2).

One flat walk (`pagesieve.models.page.walk_tree`) builds a *raw content tree* in pre-order: the
elements under `<body>` plus their text nodes (lxml keeps those as `.text`/`.tail`, so they get
indices here).
Then, with reverse sweeps over the arrays and no recursion:

1. prune: never-rendered subtrees (`INVISIBLE_TAGS`: script, style, head, iframe, input, ...) are
   skipped during the walk, whitespace-only text is dropped, and an element with no text below it
   is removed (`<br>`, `<img>`, `<hr>`, empty `<div>`s).
2. collapse: a node with exactly one remaining child is merged with that child, repeatedly. A node of
   the Collapsed DOM (CDOM) is therefore a maximal chain of single-child nodes; `tags` lists the
   chain's tags top first, with "#text" at the bottom of a leaf.

The CDOM leaves are the blocks (section 3.2): each holds one text node (text nodes separated only by
comments or never-rendered elements are merged; they render as one run of text). The page tree is
never mutated.

Source offsets: lxml keeps no character offsets, so `start`/`stop` count the characters of an
estimated serialisation (tags with their attributes, text, comments). Features that the appendix
defines on "the source code" (relative position, body percentage) use them. A start tag `<tag a="v">`
counts len(tag) + 2, plus len(name) + len(value) + 4 per attribute; an end tag len(tag) + 3; a comment
or PI its text + 7. The walk and `_hidden_len` each count it inline (one read of each tag).

Two walks build the same raw tree: `_cwalk.c` reads libxml2's nodes under the lxml root in C (no Python object per
element; docs/performance.md#the-collapsed-dom-walk-in-c), and `_walk_python`, the reference, runs where the
extension is not built or cannot load (the cluster's zip of .py files) or when PAGESIEVE_PURE_PYTHON=1. The choice
is made once, at import (`_collapse_dom`); the C module also does the collapse (the numpy steps of `_collapse`, in
the same order). tests/models/test_web2text_cwalk.py holds both to identical CollapsedDOMs.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import ModuleType

import numpy as np
from lxml import etree

from ..page import BLOCK_TAGS, INVISIBLE_TAGS, ParsedPage, TooLargeError, xpaths_of
from ..page.context import CACHED_CHARS, CUE_ATTRIBUTES, attribute_bits, cached_attribute_bits, tag_bits
from ..page.dom import load_c_walk

__all__ = ["FORM_TAGS", "NODES_PER_BLOCK", "CollapsedDOM", "Blocks", "collapse_dom", "segment_blocks", "page_blocks"]

# "contains form element" (Appendix A, b48): the appendix names no tags; we take these.
FORM_TAGS = frozenset({"form", "input", "select", "textarea", "button"})
TEXT_TAG = "#text"
# A walk limited to `max_blocks` blocks also stops at this many raw nodes (elements and text nodes under <body>)
# per block allowed, so that a page of text-less elements (`<span></span>` x 2 million) is refused as early:
# on 120 benchmark pages (google-trends, wcxb, dragnet) the raw tree holds 1.3 to 8.7 elements per text node,
# median 2.6. Each raw node costs ~300 bytes of Python lists while the walk runs (scripts/bench_page_memory.py).
NODES_PER_BLOCK = 10


@dataclass(slots=True)
class CollapsedDOM:
    """The CDOM in pre-order (0 = the root, the chain starting at `<body>`); a subtree is `i..end[i]`."""

    parent: list[int]                        # -1 for the root
    end: list[int]                           # last index of the node's subtree
    depth: list[int]                         # 0 for the root
    tags: list[tuple[str, ...]]              # merged chain, top first; leaves end with "#text"
    top: list[etree._Element]                # outermost original element of the chain (a leaf that is a
                                             # lone text node: the element holding the text)
    start: list[int]                         # estimated source offset where the chain starts
    stop: list[int]                          # ... and where it ends
    has_form: list[bool]                     # a FORM_TAGS element inside the chain's original subtree
    text: list[str | None]                   # whitespace-collapsed text of a leaf, None for inner nodes
    holder: list[etree._Element | None]      # leaf: deepest original element holding the text
    in_link: list[bool]                      # leaf: the text lies inside an `<a>`
    break_before: list[bool]                 # leaf: a block-level tag (incl. <br>) opens/closes before it
    glued: list[bool]                        # leaf: no whitespace between the previous text and this one
    class_path: list[int]                    # leaf: interned id of `body>div.x>a.link` for its holder
    context: list[int]                       # leaf: OR of the context bits of the elements above its text
                                             # (`pagesieve.models.page.context`); 0 unless asked for
    holder_depth: list[int]                  # leaf: elements between <body> (depth 1) and the text's holder
    leaves: list[int]                        # CDOM indices of the leaves, in document order
    source_length: int                       # estimated characters of the whole document

    def __len__(self) -> int:
        return len(self.parent)


@dataclass(slots=True)
class Blocks:
    """The block sequence of a page (section 3.2): CDOM leaves in document order."""

    cdom: CollapsedDOM
    node: list[int]              # CDOM index of each block
    text: list[str]
    tag: list[str]               # tag of the deepest original element holding the text

    def __len__(self) -> int:
        return len(self.node)

    def xpaths(self, indices: Sequence[int]) -> list[str]:
        """XPaths of the deepest original elements holding the given blocks' text (on demand: most are not needed)."""
        return xpaths_of([self.cdom.holder[self.node[i]] for i in indices])

    @property
    def xpath(self) -> list[str]:
        return self.xpaths(range(len(self.node)))

    def class_paths(self) -> list[int]:
        """Each block's class path (`CollapsedDOM.class_path` of its text holder; ids of this page only)."""
        return list(map(self.cdom.class_path.__getitem__, self.node))


_NODES = (etree.Element, etree.Comment, etree.ProcessingInstruction)   # what iterwalk reports: no entities
# `walk_tree`'s events: "comment" and "pi" must be asked for, or the text after a comment (its tail) is lost
_EVENTS = ("start", "end", "comment", "pi")


def _hidden_len(element: etree._Element) -> int:
    """Estimated characters of a never-rendered subtree, from its start tag to its end tag (its tail not
    included): what the walk would count node by node, summed in one C-level pass instead, since none
    of it becomes text."""
    n = -len(element.tail or "")
    for node in element.iter(*_NODES):
        tag = node.tag
        if isinstance(tag, str):                                # start and end tag (see the module docstring)
            n += 2 * len(tag) + 5 + len(node.text or "") + len(node.tail or "")
            if items := node.items():
                for name, value in items:
                    n += len(name) + len(value) + 4
        else:                                                   # comment or PI: ~7 chars of markup
            n += len(node.text or "") + 7 + len(node.tail or "")
    return n


def _class_token(tag: str, class_attr: str | None) -> str:
    """One class-path step: `a.link.nav` (classes sorted, so attribute order does not matter)."""
    return ".".join([tag.lower(), *sorted((class_attr or "").split())])


# pages repeat a few (tag, class) pairs thousands of times, hence the cache; only for class values of at most
# CACHED_CHARS characters, so that it stays bounded in bytes (`pagesieve.models.page.context.CACHED_CHARS`)
_cached_token = functools.lru_cache(maxsize=4096)(_class_token)


@dataclass(slots=True)
class _Raw:
    """Raw content tree in pre-order: elements under the body (pruned later) and text nodes."""

    element: list[etree._Element]    # for a text node: the element holding it
    is_text: list[bool]
    parent: list[int]
    text: list[str]                  # text node: its text; element: its lower-cased tag
    last: list[int]                  # index of the last node of the subtree (a text node: itself)
    start: list[int]
    stop: list[int]
    form: list[bool]
    in_link: list[bool]
    break_before: list[bool]
    class_path: list[int]
    context: list[int]               # context bits (an element: its own and its ancestors'; text: its holder's)
    depth: list[int]                 # open elements from <body> down to the node, itself included


def _too_many_blocks(max_blocks: int) -> TooLargeError:
    return TooLargeError(f"more than {max_blocks} blocks")


def _too_many_nodes(max_nodes: int) -> TooLargeError:
    return TooLargeError(f"more than {max_nodes} elements and text nodes in the body "
                         f"({NODES_PER_BLOCK} per block allowed)")


def _limits(max_blocks: int | None) -> tuple[int, int]:
    """(text nodes, raw nodes) allowed; -1 for no limit."""
    if max_blocks is None:
        return -1, -1
    return max_blocks, max_blocks * NODES_PER_BLOCK


def _walk_python(page: ParsedPage, context: bool, max_blocks: int | None = None) -> tuple[_Raw, int]:
    """Build the raw content tree of the body and the estimated source length of the whole page (with each
    node's context bits if `context`, else zeros: they cost about 1 us per element, which Web2Text never reads).
    With `max_blocks`, raise TooLargeError as soon as the tree holds more text nodes (each is one block) or more
    than NODES_PER_BLOCK times as many nodes: the limit bounds the walk's memory, not only what comes after it.

    This loop runs once per element and text node of every page and is most of the Collapsed DOM's time, hence
    `walk_tree`'s events inlined here (lxml's iterwalk, no generator in between), each element's tag and
    attributes read once (lxml builds a new string on every `.tag`), the context bits ORed in the same pass
    over the attributes, and the list methods bound to locals."""
    body = page.body
    root = page.root
    r = _Raw([], [], [], [], [], [], [], [], [], [], [], [], [])
    element, is_text, parents, texts, starts, stops = r.element, r.is_text, r.parent, r.text, r.start, r.stop
    forms, in_links, breaks, contexts, depths, lasts = r.form, r.in_link, r.break_before, r.context, r.depth, r.last
    add_element, add_is_text, add_parent, add_text = element.append, is_text.append, parents.append, texts.append
    add_last = lasts.append
    add_start, add_stop, add_form, add_in_link = starts.append, stops.append, forms.append, in_links.append
    add_break, add_context, add_depth = breaks.append, contexts.append, depths.append
    paths: dict[tuple[int, str], int] = {}
    path_of: list[int] = []          # per raw node: class-path id (elements) / holder's (text)
    add_path = path_of.append
    open_nodes: list[int] = []
    open_tags: list[str] = []        # lower-cased tags of open_nodes, so that END need not lower them again
    pos = 0
    inside = body is page.root
    links = 0
    pending_break = False
    last_text = -1                   # raw index of the latest text node
    n_texts = 0
    max_texts, max_nodes = _limits(max_blocks)

    # `walk_tree(root, INVISIBLE_TAGS)`, inlined: the walk skips the never-rendered subtrees (head, scripts, ...)
    # but the estimate counts their markup
    walker = etree.iterwalk(root, events=_EVENTS)
    for event, node in walker:
        if event == "start":
            tag_name = node.tag
            tag = tag_name.lower()
            if tag in INVISIBLE_TAGS and node is not root:       # walk_tree's SKIP
                walker.skip_subtree()
                next(walker)                                    # the skipped element's own "end", at once
                if inside and open_nodes and tag in FORM_TAGS:
                    forms[open_nodes[-1]] = True
                pos += _hidden_len(node)
                text = node.tail
            else:                                               # START
                text = node.text
                begin = pos
                pos += len(tag_name) + 2
                class_attr = None
                if node is body:
                    inside = True
                parent = open_nodes[-1] if open_nodes else -1
                # `own_bits(tag, items)`, ORed in the pass below; <body>'s own classes (`single-post`, `home`)
                # would mark every block of the page alike, so it has none
                own = inside and context and parent >= 0
                bits = tag_bits(tag) if own else 0
                if items := node.items():      # (module docstring) read once for the offsets, class path and context
                    for name, value in items:
                        pos += len(name) + len(value) + 4
                        if name == "class":
                            class_attr = value
                        if own and name in CUE_ATTRIBUTES:
                            bits |= (cached_attribute_bits(name, value) if len(value) <= CACHED_CHARS
                                     else attribute_bits(name, value))
                if inside:
                    if len(parents) == max_nodes:
                        raise _too_many_nodes(max_nodes)
                    if tag in BLOCK_TAGS:
                        pending_break = True
                    add_element(node)
                    add_is_text(False)
                    add_parent(parent)
                    add_text(tag)
                    add_last(-1)                                # set at the element's end
                    add_start(begin)
                    add_stop(begin)
                    add_form(tag in FORM_TAGS)
                    add_in_link(links > 0)
                    add_break(False)
                    add_context(contexts[parent] | bits if own else 0)
                    add_depth(len(open_nodes) + 1)
                    token = (_cached_token(tag_name, class_attr)
                             if class_attr is None or len(class_attr) <= CACHED_CHARS
                             else _class_token(tag_name, class_attr))
                    key = (path_of[parent] if parent >= 0 else -1, token)
                    add_path(paths.setdefault(key, len(paths)))
                    open_nodes.append(len(parents) - 1)
                    open_tags.append(tag)
                    if tag == "a":
                        links += 1
        elif event == "end":
            text = node.tail if node is not root else None
            pos += len(node.tag) + 3
            if inside:
                closed = open_nodes.pop()
                stops[closed] = pos
                lasts[closed] = len(parents) - 1
                tag = open_tags.pop()
                if tag == "a":
                    links -= 1
                if tag in BLOCK_TAGS:
                    pending_break = True
                if node is body:
                    inside = False
                    open_nodes.clear()
                    open_tags.clear()
        else:                                                   # comment or PI: ~7 chars of markup
            text = node.tail
            pos += len(node.text or "") + 7
        # START: the element's first text node; otherwise the text node after the element or comment
        if text:
            if inside and open_nodes and not text.isspace():
                holder = open_nodes[-1]
                if last_text == len(parents) - 1 and parents[last_text] == holder:
                    texts[last_text] += text                    # only comments / hidden tags in between
                    stops[last_text] = pos + len(text)
                else:
                    if n_texts == max_texts or len(parents) == max_nodes:
                        raise _too_many_blocks(max_blocks) if n_texts == max_texts else _too_many_nodes(max_nodes)
                    n_texts += 1
                    add_element(element[holder])
                    add_is_text(True)
                    add_parent(holder)
                    add_text(text)
                    add_last(len(parents) - 1)
                    add_start(pos)
                    add_stop(pos + len(text))
                    add_form(False)
                    add_in_link(links > 0)
                    add_break(pending_break)
                    add_context(contexts[holder])
                    add_depth(depths[holder])
                    add_path(path_of[holder])
                    pending_break = False
                    last_text = len(parents) - 1
            pos += len(text)
    pos += len(root.tail or "")                                 # the walk leaves the root's tail out
    r.class_path = path_of
    return r, pos


def _c_call(function: Callable, page: ParsedPage, context: bool, max_blocks: int | None) -> tuple | None:
    """`function(root, body, context, max_texts, max_nodes)` of `_cwalk`, its TooLargeError codes raised here;
    None where the C walk does not handle the tree (namespaces, entity references: never from lxml's HTML
    parser), which the caller hands to the Python walk."""
    root, body = page.root, page.body
    max_texts, max_nodes = _limits(max_blocks)
    if not (isinstance(root, etree._Element) and isinstance(body, etree._Element)) or max_nodes > sys.maxsize:
        return None
    out = function(root, body, context, max_texts, max_nodes)
    if out == 1:
        raise _too_many_blocks(max_blocks)
    if out == 2:
        raise _too_many_nodes(max_nodes)
    return out


def _c_tree(page: ParsedPage, context: bool, max_blocks: int | None = None) -> tuple[_Raw, int]:
    """The C walk's raw tree as `_walk_python` gives it, for the tests (`_c_collapse` collapses it in C)."""
    out = _c_call(_cwalk.walk, page, context, max_blocks)
    if out is None:
        return _walk_python(page, context, max_blocks)
    (source_length, parent, last, start, stop, depth, ctx, class_path, is_text, form, in_link, break_before,
     nodes, text) = out

    def ints(data: bytes) -> list[int]:
        return np.frombuffer(data, dtype=np.int64).tolist()

    def flags(data: bytes) -> list[bool]:
        return np.frombuffer(data, dtype=bool).tolist()

    return _Raw(element=nodes.take(range(len(text))), is_text=flags(is_text), parent=ints(parent), text=text,
                last=ints(last), start=ints(start), stop=ints(stop), form=flags(form), in_link=flags(in_link),
                break_before=flags(break_before), class_path=ints(class_path), context=ints(ctx),
                depth=ints(depth)), source_length


def _c_collapse(page: ParsedPage, context: bool, max_blocks: int | None = None) -> CollapsedDOM:
    """`collapse_dom` in C (`_cwalk.c`: the walk, then `_collapse`'s steps over its arrays); the Python walk and
    `_collapse` for a tree the C walk does not handle."""
    out = _c_call(_cwalk.collapse_dom, page, context, max_blocks)
    if out is None:
        return _python_collapse(page, context, max_blocks)
    return CollapsedDOM(*out)


def _python_collapse(page: ParsedPage, context: bool, max_blocks: int | None = None) -> CollapsedDOM:
    return _collapse(*_walk_python(page, context, max_blocks))


def _load_c_walk() -> ModuleType | None:
    """The C walk's module (`load_c_walk`: None where not built or PAGESIEVE_PURE_PYTHON=1), configured."""
    module = load_c_walk()
    if module is not None:
        module.configure(invisible=INVISIBLE_TAGS, block=BLOCK_TAGS, form=FORM_TAGS, cue=CUE_ATTRIBUTES,
                         tag_bits=tag_bits, attribute_bits=attribute_bits, class_token=_class_token)
    return module


_cwalk = _load_c_walk()
# chosen once: what every collapse_dom runs
_collapse_dom: Callable[[ParsedPage, bool, int | None], CollapsedDOM] = (
    _c_collapse if _cwalk is not None else _python_collapse)


def collapse_dom(page: ParsedPage, context: bool = False, max_blocks: int | None = None) -> CollapsedDOM:
    """Section 3.1: prune the body's tree and merge single-child parents into their child.

    With `context`, each leaf also gets the context bits of the elements above its text (`CollapsedDOM.context`,
    used by blocknet; all zero otherwise). With `max_blocks`, a page with more blocks (or more than
    NODES_PER_BLOCK times as many raw nodes) raises TooLargeError during the walk, before the rest is built.

    The raw tree is in pre-order and each node knows its subtree's last node, so the subtree sums (has it text,
    has it a form element), the kept children, the chains and each CDOM node's end are numpy over the raw
    arrays, not Python loops over every raw node. Where the C module is built, all of it runs in C instead
    (module docstring).
    """
    return _collapse_dom(page, context, max_blocks)


def _collapse(r: _Raw, source_length: int) -> CollapsedDOM:
    """`collapse_dom` of the raw tree of `_walk_python` (the C module does the same steps in C)."""
    n = len(r.parent)
    parent = np.array(r.parent, dtype=np.intp)
    last = np.array(r.last, dtype=np.intp)
    first = np.arange(n)

    def in_subtree(flags: list[bool]) -> np.ndarray:
        # True where a node's subtree (itself included) holds a flagged node
        before = np.zeros(n + 1, dtype=np.intp)
        np.cumsum(flags, out=before[1:])
        return before[last + 1] > before[first]

    has_text = in_subtree(r.is_text)
    has_form = in_subtree(r.form)
    has_parent = parent >= 0
    kept_children = np.bincount(parent[has_text & has_parent], minlength=n)
    # a kept node that is its parent's only kept child merges into the parent's chain; the others start one
    merged = has_text & has_parent & (kept_children[np.where(has_parent, parent, 0)] == 1)
    starts_chain = has_text & ~merged
    top = np.where(merged, parent, first)                         # pointer doubling up to the chain's top node
    while True:
        higher = top[top]
        if np.array_equal(higher, top):
            break
        top = higher
    new_before = np.zeros(n + 1, dtype=np.intp)
    np.cumsum(starts_chain, out=new_before[1:])
    cdom_of = new_before[top]                                     # CDOM index of each kept node (its chain's rank)
    tops = np.flatnonzero(starts_chain)
    top_parent = parent[tops]
    cdom_parent = np.where(top_parent >= 0, cdom_of[np.maximum(top_parent, 0)], -1)
    # pre-order: a CDOM node's subtree ends at the last chain that starts inside its top node's raw subtree
    cdom_end = new_before[last[tops] + 1] - 1
    m = len(tops)
    depth = [0] * m
    cdom_parent_list = cdom_parent.tolist()
    for k in range(1, m):
        depth[k] = depth[cdom_parent_list[k]] + 1

    # a chain's nodes follow one another among the kept nodes (the nodes between a parent and its only kept child
    # are text-less), so the chains are the runs of kept nodes that each starting node opens
    kept = np.flatnonzero(has_text)
    kept_list = kept.tolist()
    labels = [TEXT_TAG if is_text else tag for is_text, tag in
              zip(map(r.is_text.__getitem__, kept_list), map(r.text.__getitem__, kept_list), strict=True)]
    bounds = np.flatnonzero(starts_chain[kept]).tolist() + [len(kept_list)]
    tags = [tuple(labels[a:b]) for a, b in zip(bounds, bounds[1:], strict=False)]

    texts = [i for i in kept_list if r.is_text[i]]               # the text nodes, in document order
    leaves = cdom_of[texts].tolist() if texts else []
    text: list[str | None] = [None] * m
    holder: list[etree._Element | None] = [None] * m
    in_link, break_before, glued = [False] * m, [False] * m, [False] * m
    class_path, leaf_context, holder_depth = [-1] * m, [0] * m, [0] * m
    previous_text = None                                         # raw text of the leaf before
    for k, i in zip(leaves, texts, strict=True):
        raw_text = r.text[i]
        text[k] = " ".join(raw_text.split())
        holder[k] = r.element[i]
        in_link[k] = r.in_link[i]
        break_before[k] = r.break_before[i]
        glued[k] = (previous_text is not None and not raw_text[:1].isspace()
                    and not previous_text[-1:].isspace())
        previous_text = raw_text
        class_path[k] = r.class_path[i]
        leaf_context[k] = r.context[i]
        holder_depth[k] = r.depth[i]
    tops_list = tops.tolist()
    return CollapsedDOM(parent=cdom_parent_list, end=cdom_end.tolist(), depth=depth, tags=tags,
                        top=[r.element[i] for i in tops_list], start=[r.start[i] for i in tops_list],
                        stop=[r.stop[i] for i in tops_list], has_form=has_form[tops].tolist(), text=text,
                        holder=holder, in_link=in_link, break_before=break_before, glued=glued,
                        class_path=class_path, context=leaf_context, holder_depth=holder_depth, leaves=leaves,
                        source_length=source_length)


def segment_blocks(cdom: CollapsedDOM) -> Blocks:
    """Section 3.2: the CDOM leaves, in document order, with text and tag."""
    return Blocks(cdom=cdom, node=list(cdom.leaves), text=[cdom.text[k] for k in cdom.leaves],
                  tag=[cdom.holder[k].tag.lower() for k in cdom.leaves])


def page_blocks(page: ParsedPage, context: bool = False, max_blocks: int | None = None) -> Blocks:
    """`segment_blocks(collapse_dom(page, context, max_blocks))`; TooLargeError over `max_blocks`."""
    return segment_blocks(collapse_dom(page, context, max_blocks))
