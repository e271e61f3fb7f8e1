"""What the elements above a piece of text say about it: one bit per cue, ORed from the body down.

Modern pages mark their regions: HTML5 sectioning tags (`<article>`, `<nav>`, `<footer>`), ARIA roles,
`itemprop="articleBody"`, and class and id words (`comment-list`, `share-bar`, `related-posts`). A text
node's *context* is the OR of the bits of every element between `<body>` and it, so one integer per text
holder says "inside an article, inside a comment list, not in a nav". Tree walkers (the Web2Text Collapsed
DOM) compute it on the way down, `context = parent_context | own_bits(...)`; class and id words are cached
per distinct value, since a page repeats a few hundred class values thousands of times. Only values of at most
CACHED_CHARS characters are cached, so the caches are bounded in bytes, not only in entries (see `CACHED_CHARS`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from .native import load_native
from .selectors import SELECTOR_ATTRIBUTES, SELECTOR_NAMES, selector_bits

__all__ = ["CACHED_CHARS", "CONTEXT_BIT", "CONTEXT_BITS", "CUE_ATTRIBUTES", "attribute_bits", "cached_attribute_bits",
           "own_bits", "tag_bits", "word_bits"]

# Longest value (characters) that the per-process caches keep. A cache keyed by whole values kept up to 16,384 of
# them: pages of long unique attributes (generated ids, tracking blobs) grew a worker by 23 MB a page until it was
# full, +3.4 GB after 150 pages (hostile-pass issue, item 9). With this bound the attribute cache holds at most
# 16,384 x (256 characters + ~150 bytes of key tuple and string headers), ~7 MB (4x for values of 4-byte
# characters), and the class-path cache of the Web2Text DOM ~2 MB. Longer values are computed every time; on 300
# WCXB pages (2025-2026) 530 of 215,757 cue attribute values (0.25%) are longer.
CACHED_CHARS = 256

# bit order is part of the trained models' input (blocknet features): append, never reorder
CONTEXT_BITS: tuple[str, ...] = (
    "article", "main", "nav", "header", "footer", "aside", "list_item", "heading", "figure", "time", "form",
    "control", "table", "paragraph", "quote_or_code",
    "words_content", "words_boilerplate", "itemprop_body", "hidden",  # hidden: inline display: none
    "words_comments", "words_sharing", "words_related", "words_footer", "words_sidebar",
    *(f"selector_{name}" for name in SELECTOR_NAMES),     # trafilatura's rules (selectors.py)
)
CONTEXT_BIT: dict[str, int] = {name: 1 << i for i, name in enumerate(CONTEXT_BITS)}   # name -> its bit
_SELECTOR_SHIFT = CONTEXT_BITS.index(f"selector_{SELECTOR_NAMES[0]}")

_TAG_BITS = {"article": "article", "main": "main", "nav": "nav", "header": "header", "footer": "footer",
             "aside": "aside", "li": "list_item", "dt": "list_item", "dd": "list_item",
             "h1": "heading", "h2": "heading", "h3": "heading", "h4": "heading", "h5": "heading", "h6": "heading",
             "figure": "figure", "figcaption": "figure", "time": "time", "form": "form", "button": "control",
             "label": "control", "select": "control", "table": "table", "p": "paragraph",
             "blockquote": "quote_or_code", "pre": "quote_or_code", "code": "quote_or_code"}
_ROLE_BITS = {"main": "main", "article": "article", "navigation": "nav", "menu": "nav", "menubar": "nav",
              "banner": "header", "contentinfo": "footer", "complementary": "aside"}
_BODY_PROPS = {"articlebody", "text", "reviewbody", "description"}

# class/id words; matched anywhere in the attribute (`post-content`, `commentlist`), case-insensitive. Each is a
# regular expression; the plain ones (letters and `-`) are also looked for in C (`_cwords`)
_WORDS = (
    ("words_content", ("article", "content", "post", "entry", "story", "body", "text", "main", "blog", "news")),
    ("words_boilerplate", ("nav", "menu", "foot", "sidebar", "side-bar", "comment", "share", "social", "related",
                           "promo", "widget", "breadcrumb", "cookie", "newsletter", "subscribe", "popular", "banner",
                           "advert", r"\bad\b", "ads", "sponsor", "header", "masthead", "tags", "meta", "byline",
                           "author", "caption", "recommend", "trending", "most-")),
    ("words_comments", ("comment", "reply", "replies", "respond", "disqus", "discuss", "forum", "thread")),
    ("words_sharing", ("share", "social", "facebook", "twitter", "follow")),
    ("words_related", ("related", "recommend", "more-", "also", "popular", "trending", "latest")),
    ("words_footer", ("footer", "copyright", "legal")),
    ("words_sidebar", ("sidebar", "side-bar", "aside", "widget", "rail")),
)
_WORD_PATTERNS = tuple((CONTEXT_BIT[name], re.compile("|".join(words), re.I)) for name, words in _WORDS)
# The same patterns without re.I, for lower-cased ASCII values: on ASCII text, matching the lower-cased value
# is exactly what re.I does (the patterns are lower case), and Python's case-insensitive matching is ~4x
# slower. Non-ASCII values keep re.I (its Unicode case folding, e.g. the Kelvin sign K for "k", is not lower()).
_ASCII_WORD_PATTERNS = tuple((CONTEXT_BIT[name], re.compile("|".join(words))) for name, words in _WORDS)
# For the C search of lower-cased ASCII values: the plain words (a pattern matches where one of them occurs), and
# the other words as patterns of their own (`\bad\b`)
_PLAIN = re.compile(r"[a-z-]+")
_PLAIN_WORDS = tuple((CONTEXT_BIT[name], word) for name, words in _WORDS for word in words
                     if _PLAIN.fullmatch(word))
_OTHER_WORDS = tuple((CONTEXT_BIT[name], re.compile(word)) for name, words in _WORDS for word in words
                     if not _PLAIN.fullmatch(word))
_cwords = load_native("page._cwords")
if _cwords is not None:
    _cwords.configure(_PLAIN_WORDS)


_TAG_BIT = {tag: CONTEXT_BIT[name] for tag, name in _TAG_BITS.items()}
_ANY_WORD = re.compile("|".join(w for _, words in _WORDS for w in words), re.I)   # one search rules most values out
_ASCII_ANY_WORD = re.compile(_ANY_WORD.pattern)


def tag_bits(tag: str) -> int:
    """Bits of a lower-cased tag alone."""
    return _TAG_BIT.get(tag, 0)


def word_bits(value: str | None) -> int:
    """Bits of the words in a class or id value (`post-content`, `commentlist`)."""
    return _word_bits(value) if value is not None and len(value) > CACHED_CHARS else _cached_word_bits(value)


def _word_bits(value: str | None) -> int:
    # uncached: `attribute_bits` caches by (name, value) already, and a second cache would only cost a miss more
    if not value:
        return 0
    # a page of a new site brings a hundred unseen values: this runs once for each (see _ASCII_WORD_PATTERNS)
    if value.isascii():
        value = value.lower()
        if _cwords is not None:             # the same bits as the patterns below, ~10x faster
            bits = _cwords.literal_bits(value)
            for bit, pattern in _OTHER_WORDS:
                if not bits & bit and pattern.search(value):
                    bits |= bit
            return bits
        any_word, patterns = _ASCII_ANY_WORD, _ASCII_WORD_PATTERNS
    else:
        any_word, patterns = _ANY_WORD, _WORD_PATTERNS
    if not any_word.search(value):
        return 0
    return sum(bit for bit, pattern in patterns if pattern.search(value))


def own_bits(tag: str, attrs: Sequence[tuple[str, str]]) -> int:
    """Bits of one element: its tag, class and id words, ARIA role, itemprop and an inline `display: none`.

    `attrs` is the element's attribute list as lxml's `element.items()` gives it (tree walkers already read it
    for other needs). The cost is per element of every page: one pass over the attributes, each cue looked up
    once per distinct (name, value) of the process.
    """
    bits = _TAG_BIT.get(tag, 0)
    for name, value in attrs:
        if name in CUE_ATTRIBUTES:
            bits |= attribute_bits(name, value)
    return bits


def attribute_bits(name: str, value: str) -> int:
    """Bits of one attribute named in CUE_ATTRIBUTES (`own_bits` is the tag's bits ORed with these); cached per
    (name, value) for values of at most CACHED_CHARS characters."""
    return _attribute_bits(name, value) if len(value) > CACHED_CHARS else cached_attribute_bits(name, value)


# the attributes that carry cues; a walker that reads the attributes anyway ORs `attribute_bits` of these itself
CUE_ATTRIBUTES = frozenset({"class", "id", "role", "itemprop", "style"}) | SELECTOR_ATTRIBUTES


def _attribute_bits(name: str, value: str) -> int:
    return _own_attribute_bits(name, value) | selector_bits(name, value) << _SELECTOR_SHIFT


def _own_attribute_bits(name: str, value: str) -> int:
    if name == "class" or name == "id":
        return _word_bits(value)
    if name == "role":
        return CONTEXT_BIT.get(_ROLE_BITS.get(value.strip().lower(), ""), 0)
    if name == "itemprop":
        return CONTEXT_BIT["itemprop_body"] if value.strip().lower() in _BODY_PROPS else 0
    if name != "style":
        return 0
    # style: only an inline `display: none` counts
    return CONTEXT_BIT["hidden"] if "none" in value and "display:none" in value.replace(" ", "").lower() else 0


# the caches: call them only with values of at most CACHED_CHARS characters (a hot loop that checks the length
# itself calls `cached_attribute_bits` directly, one Python call less per attribute)
cached_attribute_bits = lru_cache(maxsize=16384)(_attribute_bits)
_cached_word_bits = lru_cache(maxsize=16384)(_word_bits)
