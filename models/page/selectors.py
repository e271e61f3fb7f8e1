"""trafilatura's selectors as attribute cues: which class, id, role and other attribute values its XPath rules take for
a main body, a comment section or a section to discard.

trafilatura finds a page's main text with XPath rules (its `xpaths.py`): the first element whose class or id reads
like an article body (`entry-content`, `post-body`, `story-body`...), and inside it it discards comment lists,
sharing bars, navigation, teasers and hidden blocks named by their attributes. Those rules are its sites'
conventions written down by hand over years; BlockNet's own class and id words (`context._WORDS`) are coarser.
Here each rule is a test of one attribute's value, on any element at any depth; ORed down the tree like the other
context bits, a block's bit says "an element above this text matches this rule of trafilatura's". Not kept from the
rules: their tag conditions (`self::div or self::section`), "the first such element of the page", and which body
rule trafilatura settles on; left out of training benchmark by benchmark, the bits without those did as well as
with them (docs/experiments.md, 2026-11-30).

The words are transcribed from trafilatura 2.3.1's regular expressions (Apache-2.0) and frozen here: they are
inputs of the trained models, so a newer trafilatura must not move them. Each is a literal, matched as
`Word.mode` says; `{a,b,}` in a word stands for its alternatives ("" included), as a shell expands it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from .native import load_native

__all__ = ["SELECTOR_ATTRIBUTES", "SELECTOR_NAMES", "selector_bits"]

# how a word must sit in the value: anywhere, at its start, at its end, or the whole value; "-i": ignoring case
_MODES = ("in", "start", "end", "equals")
_START, _END = "\x02", "\x03"           # the value is searched as _START + value + _END (see _wrapped)
_SPACE = " \t\n\r\f\v"


@dataclass(frozen=True)
class Word:
    attribute: str
    text: str
    mode: str = "in"
    fold: bool = False           # matched in the lower-cased value (trafilatura's `re:test(..., 'i')`, `translate`)

    def literals(self) -> Iterator[str]:
        """The word as literals to find in the wrapped value (`_wrapped`)."""
        for text in _expand(self.text):
            if self.mode == "in":
                yield text
            elif self.mode == "start":
                yield _START + text
            elif self.mode == "end":
                yield text + _END
            else:
                yield _START + text + _END


def _expand(text: str) -> list[str]:
    head, brace, rest = text.partition("{")
    if not brace:
        return [text]
    inner, _, tail = rest.partition("}")
    return [head + choice + after for choice in inner.split(",") for after in _expand(tail)]


def _words(attribute: str, *texts: str, mode: str = "in", fold: bool = False) -> list[Word]:
    return [Word(attribute, text, mode, fold) for text in texts]


def _both(*texts: str, mode: str = "in", fold: bool = False) -> list[Word]:
    return _words("class", *texts, mode=mode, fold=fold) + _words("id", *texts, mode=mode, fold=fold)


def _spaced(attribute: str, text: str) -> list[Word]:
    """`text` as a whole space-separated token of the value: `(^|\\s)text` or `text(\\s|$)` (its two sides)."""
    return (_words(attribute, text, mode="start") + _words(attribute, text, mode="end")
            + [Word(attribute, f"{space}{text}") for space in _SPACE]
            + [Word(attribute, f"{text}{space}") for space in _SPACE])


def _token(attribute: str, text: str) -> list[Word]:
    r"""`text` as a whole space-separated token of the value: `(^|\s)text(\s|$)`."""
    return (_words(attribute, text, mode="equals")
            + [Word(attribute, f"{text}{space}", "start") for space in _SPACE]
            + [Word(attribute, f"{space}{text}", "end") for space in _SPACE]
            + [Word(attribute, f"{before}{text}{after}") for before in _SPACE for after in _SPACE])


_ARTICLE_BOTH = ("{entry,article,art}-content", "article__content", "article{-,__,}body", "articleBody", "body-text")
_DISCARD_BOTH = ("social", "viral", "newsletter", "syndication", "tags", "sidebar", "banner", "bread{-,}crumb",
                 "button", "author", "cookie")

# name -> words; a name's bit is set when any of its words is found
_RULES: dict[str, list[Word]] = {
    # trafilatura's first body rule: article-body class and id words
    "article_body": (_words("class", "post", "entry", mode="equals") + _words("itemprop", "articleBody", mode="equals")
                     + _words("id", "articleContent", mode="equals") + _words("id", *_ARTICLE_BOTH)
                     + _words("class", *_ARTICLE_BOTH, "post{-,_}text", "post-body", "post{-,}entry",
                              "post{-,_,}content", "postContent", "post_inner_wrapper", "article{-,}text",
                              "articleText", "{page,text}-content", "ArticleContent", "article__container")),
    # its third: story and single-post containers (its second is the <article> tag, a context bit already)
    "story": (_words("role", "article", mode="equals") + _words("id", "article", "story", mode="equals")
              + _words("id", "primary", mode="start") + _words("id", "story-body")
              + _words("class", "postarea", "art-postcontent", "text", "cell", "story", mode="equals")
              + _words("class", "fulltext", fold=True) + _words("class", "article ", mode="start")
              + _words("class", "post-bodycopy", "story{-,}content", "{theme,blog,section,single}-content",
                       "single-post", "main-column", "wpb_text_column", "story-body", "field-body")),
    # its fourth: content containers
    "main_content": (_both("content", mode="equals") + _both("main-content", fold=True)
                     + _words("id", "content-main", "content-body", "contentBody")
                     + _words("class", "content{-,_}main", "content{-,__}body")
                     + _words("class", "page-content", fold=True)),
    # its fifth: values that start with "main"
    "main": _words("class", "main", mode="start") + _words("id", "main", mode="start")
            + _words("role", "main", mode="start"),
    # comment sections (its comment rules)
    "comments": (_both("comment{-,}list") + _both("comment{s,-}", mode="start")
                 + _words("id", "comol", "disqus_thread", "dsq-comments", "social", mode="start")
                 + _words("class", "Comments", mode="start")
                 + _words("class", "comment-page", "comments-content", "post-comments", "article-comments",
                          "comment")),
    # sections it discards everywhere: sharing, navigation, ads, footers, bylines, related links, consent
    "boilerplate": (_words("data-lp-replacement-content", "", mode="start") + _words("role", "nav", fold=True)
                    + _words("data-component", "MostPopularStories") + _both("shar", mode="start")
                    + _both(*_DISCARD_BOTH)
                    + _words("id", "jp-", "dpsp-content", "ad-", mode="start")
                    + _words("id", "bmdh", "footer", "Footer", "share", "Share", "nav", "Nav", "menu", "related",
                             "message-container", "premium")
                    + _words("class", "nav", "post-nav", "ZendeskForm", "ad-", mode="start")
                    + _words("class", "subnav", "avigation", "navbar", "navbox", "menu", "bar", " ad ", "-ad-",
                             " ad-", "dfp{A,a}d", "outbrain", "taboola", "criteo", "paid{-,}content", "widget",
                             "footer", "Footer", "byline", "Byline", "share-", "sociable", "embedded", "embed",
                             "tag-list", "consent", "modal-content", "permission", "elated", "next-", "-stories",
                             "most-popular", "more-on", "meta", "rating", "attachment", "timestamp", "user-info",
                             "user-profile", "-icon", "article-infos", "message-container", "slide", "viewport",
                             "overlay", "options", "expand", "obfuscated", "blurred", "mol-factbox", "yin",
                             "zlylin", "nfoline")),
    # and hidden blocks, reply forms, comment titles
    "hidden_or_reply": (_both("reply-", mode="start") + _words("class", "hide-", mode="start")
                        + _words("class", "comments-title", "nocomments", "-reply-", "message", "akismet",
                                 "suggest-links", "-hide-", "hide-print", " hidden", " hide", "noprint", "notloaded")
                        + _words("id", "hidden", "reader-comments", "akismet")
                        + _words("style", "hidden", "display:none", "display: none")
                        + _words("aria-hidden", "true", mode="equals")),
    # teasers, and what it drops for precision: page bottoms, link lists, bordered boxes
    "teaser_or_bottom": (_both("teaser", fold=True) + _spaced("class", "bottom") + _spaced("id", "bottom")
                         + _token("class", "link") + _token("id", "link")
                         + _words("style", "border")),
}
SELECTOR_NAMES: tuple[str, ...] = tuple(_RULES)
SELECTOR_ATTRIBUTES = frozenset(w.attribute for words in _RULES.values() for w in words)


def _tables() -> dict[str, tuple[tuple[tuple[str, int], ...], tuple[tuple[str, int], ...]]]:
    """attribute -> (its case-sensitive (literal, bit) pairs, its case-folded ones)"""
    out: dict[str, tuple[list, list]] = {}
    for k, words in enumerate(_RULES.values()):
        for word in words:
            exact, folded = out.setdefault(word.attribute, ([], []))
            (folded if word.fold else exact).extend((literal, 1 << k) for literal in word.literals())
    return {attribute: (tuple(dict.fromkeys(exact)), tuple(dict.fromkeys(folded)))
            for attribute, (exact, folded) in out.items()}


def _c_tables() -> dict[str, tuple[int, int]]:
    """Each attribute's two word tables configured in `_cwords` (its table numbers; 0: that case has no words), or
    none where the extension is not built (the Python search below gives the same bits, ~8x slower)."""
    if _cwords is None or not hasattr(_cwords, "table_bits"):
        return {}
    out: dict[str, tuple[int, int]] = {}
    for attribute, (exact, folded) in _TABLES.items():
        numbers = []
        for k, pairs in enumerate((exact, folded)):
            number = 2 * len(out) + 1 + k if pairs else 0
            if pairs:
                _cwords.configure_table(number, [(bit, literal) for literal, bit in pairs])
            numbers.append(number)
        out[attribute] = (numbers[0], numbers[1])
    return out


_TABLES = _tables()
_cwords = load_native("page._cwords")
_C_TABLES = _c_tables()


def selector_bits(name: str, value: str) -> int:
    """The rules one attribute's value matches: bit k for `SELECTOR_NAMES[k]` (0 for an attribute no rule reads)."""
    pairs = _TABLES.get(name)
    if pairs is None:
        return 0
    wrapped = _START + value + _END
    slots = _C_TABLES.get(name)
    if slots is not None:
        bits = _cwords.table_bits(slots[0], wrapped) if slots[0] else 0
        if slots[1]:
            bits |= _cwords.table_bits(slots[1], wrapped.lower())
        return bits
    bits = 0
    for literal, bit in pairs[0]:
        if not bits & bit and literal in wrapped:
            bits |= bit
    if pairs[1]:
        lowered = wrapped.lower()
        for literal, bit in pairs[1]:
            if not bits & bit and literal in lowered:
                bits |= bit
    return bits
