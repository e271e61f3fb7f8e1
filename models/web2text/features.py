"""Web2Text features (section 3.3, Appendix A): 128 per block, 25 per pair of neighbouring blocks.

Raw values only. Section 3.3 clips and standardises the non-binary features with training-set
statistics; `fit_stats` computes those from a training matrix and `standardise` applies them.
Binary features are 1/0 as in Table 3 (the authors' released code used +1/-1).

Ambiguities in Appendix A, and what we chose:
- b21/b22 say "b25 squared/cubed" and b27 says "17 squared": typos for b20 and b26 (the names say so).
- the punctuation set prints as "{, , ? , ; , : , !}": the first character was lost; we read `. , ? ; : !`.
- b49-b69 "parent tag features" list 20 tags with `ul` twice and overlap b69 "has grandparent": the
  count of 128 only works with b49-b68 = the 20 listed tags, so we keep both `ul` columns (identical;
  the authors' code has the same list) and b69 = has grandparent.
- b5/b10 are logs of values that can be 0 (no words, no punctuation): we return the appendix's lower
  clip bound (0 and -4), which is what clipping log(0) = -inf would give.
- ratios over zero words (b6, b8, b20-b22) are 0; `b4 has_word` tells those blocks apart.
- b13 "average sentence length" is in characters (clip range e^2..e^5 = 7..148 fits characters, and
  the authors' code divides characters by sentences); sentences end at `.!?` followed by a space.
- b3 "ratio of nodes with the same class path": nodes = blocks; the path runs from `<body>` to the
  element holding the text, each step `tag.class1.class2` (classes sorted).
- b1/b2 duplicates compare whitespace-collapsed block texts; "at least 10 other" = 11 or more in all.
- b26 "position in the source code" and b29 "ratio of source characters" use the estimated source
  offsets of `dom.py` (lxml keeps none); b29's denominator is the whole document, so the root's b29
  (b90) is the share of the page inside `<body>`.
- b30 link density and the other "p ..." statistics of a CDOM node aggregate the leaves below it.
- ancestor features (b29-b48 and copies) have no value when the ancestor is missing: all 0.
- edge "line break": a block-level tag (BLOCK_TAGS, which includes <br>) opens or closes between the
  two texts in the original DOM, i.e. an unstyled browser would start a new line.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import cache
from importlib import resources

import numpy as np

from .dom import Blocks, CollapsedDOM

__all__ = ["FEATURE_NAMES", "EDGE_FEATURE_NAMES", "BINARY_FEATURES", "BINARY_EDGE_FEATURES", "APPENDIX_CLIP",
           "FeatureStats", "block_features", "edge_features", "page_features", "fit_stats", "standardise",
           "stopwords"]

PUNCTUATION = ".,?;:!"
PARENT_TAGS = ("td", "div", "p", "tr", "table", "body", "ul", "span", "li", "blockquote", "b", "small", "a", "ol",
               "ul", "i", "form", "dl", "strong", "pre")          # b49-b68, `ul` twice as printed
LEAF_TAGS = ("a", "p", "td", "b", "li", "span", "i", "tr", "div", "strong", "em", "h3", "h2", "table", "h4",
             "small", "sup", "h1", "blockquote")                   # b110-b128

# the 20 statistics of an ancestor CDOM node: b29-b48 (parent), b70-b89, b90-b109, edge e6-e25
ANCESTOR_STATS = ("body_percentage", "link_density", "avg_word_length", "has_stopword", "stopword_ratio",
                  "log_n_characters", "log_punctuation_ratio", "has_numeric", "numeric_ratio",
                  "log_avg_sentence_length", "ends_with_punctuation", "ends_with_question_mark",
                  "contains_copyright", "contains_email", "contains_url", "contains_year",
                  "ratio_words_with_capital", "ratio_words_with_capital^2", "ratio_words_with_capital^3",
                  "contains_form_element")
NODE_STATS = ("has_duplicate", "has_10_duplicates", "ratio_same_class_path", "has_word", "log_n_words",
              "avg_word_length", "has_stopword", "stopword_ratio", "log_n_characters", "log_punctuation_ratio",
              "has_numeric", "numeric_ratio", "log_avg_sentence_length", "ends_with_punctuation",
              "ends_with_question_mark", "contains_copyright", "contains_email", "contains_url", "contains_year",
              "ratio_words_with_capital", "ratio_words_with_capital^2", "ratio_words_with_capital^3",
              "contains_punctuation", "n_punctuation", "has_multiple_sentences", "relative_position",
              "relative_position^2")                                # b1-b27


def _names() -> list[str]:
    cols = [f"node.{s}" for s in NODE_STATS] + ["parent.exists"]
    cols += [f"parent.{s}" for s in ANCESTOR_STATS] + [f"parent.tag_{t}" for t in PARENT_TAGS]
    cols += ["grandparent.exists"] + [f"grandparent.{s}" for s in ANCESTOR_STATS]
    cols += [f"root.{s}" for s in ANCESTOR_STATS] + [f"node.tag_{t}" for t in LEAF_TAGS]
    seen: dict[str, int] = {}
    out = []
    for i, c in enumerate(cols, 1):
        seen[c] = seen.get(c, 0) + 1
        out.append(f"b{i}.{c}" + ("_2" if seen[c] > 1 else ""))   # the second parent.tag_ul column
    return out


FEATURE_NAMES: list[str] = _names()
EDGE_FEATURE_NAMES: list[str] = (["e1.tree_distance_2", "e2.tree_distance_3", "e3.tree_distance_4",
                                  "e4.tree_distance_more", "e5.line_break"]
                                 + [f"e{i}.ancestor.{s}" for i, s in enumerate(ANCESTOR_STATS, 6)])

_BINARY_STATS = {"has_duplicate", "has_10_duplicates", "has_word", "has_stopword", "has_numeric",
                 "ends_with_punctuation", "ends_with_question_mark", "contains_copyright", "contains_email",
                 "contains_url", "contains_year", "contains_punctuation", "has_multiple_sentences", "exists",
                 "contains_form_element"}


def _is_binary(name: str) -> bool:
    stat = name.split(".")[-1]
    return stat in _BINARY_STATS or stat.startswith(("tag_", "tree_distance_", "line_break"))


BINARY_FEATURES = np.array([_is_binary(n) for n in FEATURE_NAMES])
BINARY_EDGE_FEATURES = np.array([_is_binary(n) for n in EDGE_FEATURE_NAMES])

# Clip ranges printed in Table 3 (b5, b6, b9, b10, b13), applied to the same statistic of every scope.
# Exception: log(n characters) of an ancestor, where 5.5 (245 characters) would flatten nearly every
# parent and root; we use [2.5, 10] as the authors' released code does for node statistics.
APPENDIX_CLIP = {"log_n_words": (0.0, 3.5), "avg_word_length": (3.0, 15.0), "log_n_characters": (2.5, 5.5),
                 "log_punctuation_ratio": (-4.0, -2.5), "log_avg_sentence_length": (2.0, 5.0)}
_ANCESTOR_LOG_CHARS_CLIP = (2.5, 10.0)

_WORD = re.compile(r"\w+")
_SENTENCE_END = re.compile(r"(?<=[\w)\]\"'])[.!?]+\s+")     # a sentence ends after a word, not at ". Next"
_NON_DIGIT = re.compile(r"\D+")
_DROP_PUNCTUATION = str.maketrans("", "", PUNCTUATION)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_URL = re.compile(r"\b(?:https?|ftp)://\S|\bwww\.[\w-]+\.\w")


@cache
def stopwords() -> frozenset[str]:
    """The shipped English stopword list (`stopwords_en.txt`)."""
    # importlib.resources, not __file__: the package also runs from a zip (spark-submit --py-files)
    lines = resources.files(__package__).joinpath("stopwords_en.txt").read_text(encoding="utf-8").splitlines()
    return frozenset(w.strip() for w in lines if w.strip() and not w.startswith("#"))


# per-node count columns, summed over the leaves below a node
_N_CHARS, _N_WORDS, _WORD_LEN, _N_STOP, _N_PUNCT, _N_DIGITS, _N_SENT, _N_CAP, _LINK_CHARS, \
    _COPYRIGHT, _EMAIL_C, _URL_C, _YEAR = range(13)


def _leaf_counts(text: str, in_link: bool, stop: frozenset[str]) -> list[float]:
    """The 13 counts of one leaf's text (the columns above): the definition that `_leaf_count_matrix`, which counts
    all of a page's leaves at once, must equal (the tests compare the two)."""
    words = _WORD.findall(text)
    n_chars = len(text)
    n_digits = len(_NON_DIGIT.sub("", text))
    return [n_chars, len(words), sum(map(len, words)), sum(map(stop.__contains__, map(str.lower, words))),
            n_chars - len(text.translate(_DROP_PUNCTUATION)), n_digits,
            len(_SENTENCE_END.findall(text.rstrip())) + 1, sum(1 for w in words if w[0].isupper()),
            n_chars if in_link else 0, "©" in text, "@" in text and _EMAIL.search(text) is not None,
            ("://" in text or "www." in text) and _URL.search(text) is not None,
            n_digits >= 4 and any(len(w) == 4 and w.isascii() and w.isdigit() for w in words)]


# Classes of a character for `_leaf_count_matrix`, one bit each, from the regular expressions and str methods that
# `_leaf_counts` uses: `\w`, `\d`, upper case, one of PUNCTUATION, a sentence end `[.!?]`, what may come before
# one (`[\w)\]"']`), `\s`, an ASCII digit.
_WORD_CHAR, _DIGIT, _UPPER, _PUNCT, _SENTENCE_MARK, _BEFORE_SENTENCE_MARK, _SPACE, _ASCII_DIGIT = \
    (1 << i for i in range(8))
_CLASS_PATTERNS = ((_WORD_CHAR, r"\w"), (_DIGIT, r"\d"), (_PUNCT, f"[{re.escape(PUNCTUATION)}]"),
                   (_SENTENCE_MARK, r"[.!?]"), (_BEFORE_SENTENCE_MARK, r"[\w)\]\"']"), (_SPACE, r"\s"),
                   (_ASCII_DIGIT, r"[0-9]"))
# Between the leaves in the joined text; in no class, so that no run of a class (a word, a sentence end) crosses it
# and each leaf counts as if alone. Leaves are found by their lengths, never by the separator: one inside a text (the
# parse drops NUL characters anyway) is one more character of no class, as it is to `_leaf_counts`.
_SEPARATOR = "\x00"


def _classes_of(chars: str) -> np.ndarray:
    """The class bits of each character of `chars`."""
    bits = np.zeros(len(chars), dtype=np.uint8)
    for bit, pattern in _CLASS_PATTERNS:
        bits[[m.start() for m in re.finditer(pattern, chars)]] |= bit
    bits[[i for i, c in enumerate(chars) if c.isupper()]] |= _UPPER
    return bits


@cache
def _bmp_classes() -> np.ndarray:
    """Class bits of the 65,536 characters of the Basic Multilingual Plane, indexed by code point (~30 ms, once)."""
    return _classes_of("".join(map(chr, range(0x10000))))


# Stopwords (b7, b8: `word.lower() in stopwords()`) without making a string of every word. The shipped stopwords are
# ASCII lower-case letters, and the only characters whose lower() is an ASCII letter are the ASCII letters and the
# Kelvin sign (one code point, lower-cases to "k"; checked over all code points by the tests): so a word is a
# stopword exactly when all its characters have a letter number 1-26 (their lower case) and those numbers, read in
# base 27 and padded with zeros to the longest stopword, are a stopword's. Astral characters lower to no ASCII letter.


def _letter_numbers(chars: str) -> np.ndarray:
    """1-26 for a character whose lower() is one ASCII letter a-z, else 0."""
    lowered = (c.lower() for c in chars)
    return np.fromiter((ord(x) - 96 if len(x) == 1 and "a" <= x <= "z" else 0 for x in lowered), dtype=np.uint8,
                       count=len(chars))


@cache
def _bmp_letter_numbers() -> np.ndarray:
    """`_letter_numbers` of the Basic Multilingual Plane, indexed by code point (64 kB, ~30 ms, once)."""
    return _letter_numbers("".join(map(chr, range(0x10000))))


@cache
def _stopword_numbers(stop: frozenset[str]) -> tuple[int, np.ndarray] | None:
    """(longest stopword, sorted base-27 numbers of the stopwords), or None when one is not ASCII lower-case
    letters (then the words are looked up one by one)."""
    if not stop or not all(w.isascii() and w.isalpha() and w.islower() for w in stop):
        return None
    longest = max(map(len, stop))
    numbers = [sum((ord(c) - 96) * 27 ** (longest - 1 - d) for d, c in enumerate(w)) for w in stop]
    return longest, np.array(sorted(numbers), dtype=np.int64)


def _stopwords_per_word(joined: str, codes: np.ndarray, first: np.ndarray, last: np.ndarray,
                        stop: frozenset[str]) -> np.ndarray:
    """Whether each word (its first and last character in `joined`, in order) is in `stop`, as `_leaf_counts`
    decides it: `word.lower() in stop`."""
    table = _stopword_numbers(stop)
    if table is None:
        return np.fromiter(map(stop.__contains__, map(str.lower, _WORD.findall(joined))), dtype=bool,
                           count=len(first))
    longest, stop_numbers = table
    letters = np.zeros(len(codes) + 1, dtype=np.int64)          # one more: a word's padding may read past the end
    bmp = codes < 0x10000
    if bmp.all():
        letters[:-1] = _bmp_letter_numbers().take(codes)         # take: half the time of indexing with uint32
    else:
        letters[:-1][bmp] = _bmp_letter_numbers()[codes[bmp]]
    lengths = last - first + 1
    letter_total = np.zeros(len(letters) + 1, dtype=np.int64)
    np.cumsum(letters > 0, out=letter_total[1:])
    candidate = np.flatnonzero((lengths <= longest) & (letter_total[last + 1] - letter_total[first] == lengths))
    offsets = np.arange(longest)
    at = np.minimum(first[candidate, None] + offsets, len(codes))
    digits = np.where(offsets < lengths[candidate, None], letters[at], 0)
    numbers = digits @ (27 ** (longest - 1 - offsets))
    found = np.searchsorted(stop_numbers, numbers)
    is_stop = np.zeros(len(first), dtype=bool)
    is_stop[candidate] = stop_numbers[np.minimum(found, len(stop_numbers) - 1)] == numbers
    return is_stop


def _leaf_count_matrix(texts: list[str], in_link: list[bool], stop: frozenset[str]) -> np.ndarray:
    r"""(n leaves, 13) float: `_leaf_counts` of every leaf, counted over the page's joined text at once.

    `texts` are whitespace-collapsed (CollapsedDOM.text: no leading or trailing whitespace, which `_leaf_counts`
    strips before finding sentence ends). A word is a maximal run of `\w` characters, so a leaf's words start at its
    `\w` characters that follow none, and its summed word length is its count of `\w` characters; a sentence end
    `(?<=[\w)\]"'])[.!?]+\s+` is a run of `[.!?]` after one of `[\w)\]"']` and before whitespace. All of these are
    numpy over the characters' classes, and so are the stopwords (`_stopwords_per_word`); only the leaves holding an
    `@`, a `©`, `://` or `www.` are searched one by one, as in `_leaf_counts`. Equal to `_leaf_counts` bit for bit (the
    benchmark pools are compared page by page; the tests compare the two on made-up texts).
    """
    n = len(texts)
    joined = _SEPARATOR.join(texts)
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=n)
    starts = np.zeros(n, dtype=np.int64)                  # leaf i is joined[starts[i]:starts[i] + lengths[i]]
    np.cumsum(lengths[:-1] + 1, out=starts[1:])
    codes = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    bmp = codes < 0x10000
    if bmp.all():
        classes = _bmp_classes().take(codes)
    else:                                                 # emoji and other astral characters: classed one by one
        classes = np.empty(len(codes), dtype=np.uint8)
        classes[bmp] = _bmp_classes()[codes[bmp]]
        astral, where = np.unique(codes[~bmp], return_inverse=True)
        classes[~bmp] = _classes_of("".join(map(chr, astral.tolist())))[where]

    def has(bit: int) -> np.ndarray:
        return (classes & bit).astype(bool)

    def per_leaf(per_char: np.ndarray) -> np.ndarray:
        # sums over each leaf's characters (a separator is in no class: it counts nothing)
        total = np.zeros(len(per_char) + 1, dtype=np.int64)
        np.cumsum(per_char, out=total[1:])
        return total[starts + lengths] - total[starts]

    def leaf_of(positions: np.ndarray) -> np.ndarray:
        return np.searchsorted(starts, positions, side="right") - 1

    def run_bounds(member: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # first and last positions of each maximal run of `member` characters, in order
        edges = np.diff(member.astype(np.int8), prepend=np.int8(0), append=np.int8(0))
        return np.flatnonzero(edges == 1), np.flatnonzero(edges == -1) - 1

    word_char = has(_WORD_CHAR)
    word_first, word_last = run_bounds(word_char)
    n_words = np.bincount(leaf_of(word_first), minlength=n)
    stop_total = np.zeros(len(word_first) + 1, dtype=np.int64)
    np.cumsum(_stopwords_per_word(joined, codes, word_first, word_last, stop), out=stop_total[1:])
    word_ends = np.cumsum(n_words)
    ascii_digits = np.zeros(len(codes) + 1, dtype=np.int64)
    np.cumsum(has(_ASCII_DIGIT), out=ascii_digits[1:])
    year = (word_last - word_first == 3) & (ascii_digits[word_last + 1] - ascii_digits[word_first] == 4)
    mark_first, mark_last = run_bounds(has(_SENTENCE_MARK))
    before, space = has(_BEFORE_SENTENCE_MARK), has(_SPACE)
    ends = (mark_first > 0) & (mark_last + 1 < len(codes))
    ends[ends] = before[mark_first[ends] - 1] & space[mark_last[ends] + 1]
    hints = (codes == ord("@")) | (codes == ord("©"))
    hints[:-2] |= (codes[:-2] == ord(":")) & (codes[1:-1] == ord("/")) & (codes[2:] == ord("/"))
    hints[:-3] |= ((codes[:-3] == ord("w")) & (codes[1:-2] == ord("w")) & (codes[2:-1] == ord("w"))
                   & (codes[3:] == ord(".")))
    copyright_, email, url = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
    for leaf in np.unique(leaf_of(np.flatnonzero(hints))).tolist():
        text = texts[leaf]
        copyright_[leaf] = "©" in text
        email[leaf] = "@" in text and _EMAIL.search(text) is not None
        url[leaf] = ("://" in text or "www." in text) and _URL.search(text) is not None
    years = np.zeros(n, dtype=bool)
    years[leaf_of(word_first[year])] = True
    cols = [
        lengths, n_words, per_leaf(word_char), stop_total[word_ends] - stop_total[word_ends - n_words],
        per_leaf(has(_PUNCT)), per_leaf(has(_DIGIT)), np.bincount(leaf_of(mark_first[ends]), minlength=n) + 1,
        np.bincount(leaf_of(word_first[has(_UPPER)[word_first]]), minlength=n),
        lengths * np.fromiter(in_link, dtype=bool, count=n), copyright_, email, url, years,
    ]
    return _float_columns(cols, n)                    # whole numbers and flags, exact as floats


def _node_counts(cdom: CollapsedDOM, stop: frozenset[str] | None = None) -> np.ndarray:
    """(n_nodes, 13) counts of every CDOM node: the sums over the leaves of its subtree.

    The CDOM is in pre-order, so node k's subtree is the rows k..end[k], and its sums are differences of one
    cumulative sum over the rows (leaves hold their counts, inner nodes zeros). The counts are whole numbers, far
    below 2**53: the float sums are exact in any order.
    """
    per_node = np.zeros((len(cdom) + 1, 13))                      # row 0: the empty sum
    if cdom.leaves:
        per_node[np.asarray(cdom.leaves) + 1] = _leaf_count_matrix(
            [cdom.text[k] for k in cdom.leaves], [cdom.in_link[k] for k in cdom.leaves],
            stopwords() if stop is None else stop)
    np.cumsum(per_node, axis=0, out=per_node)
    return per_node[np.asarray(cdom.end, dtype=np.intp) + 1] - per_node[:-1]


def _safe_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.divide(a, b, out=np.zeros_like(a, dtype=float), where=b > 0)


def _ancestor_stats(cdom: CollapsedDOM, c: np.ndarray) -> np.ndarray:
    """(n_nodes, 20) = the 20 ANCESTOR_STATS of every CDOM node."""
    n_chars, n_words = c[:, _N_CHARS], c[:, _N_WORDS]
    last = np.asarray(cdom.end, dtype=np.intp)        # a node's last leaf ends its text
    leaf_end = _ends(cdom)
    cap = _safe_div(c[:, _N_CAP], n_words)
    span = np.asarray(cdom.stop, dtype=float) - np.asarray(cdom.start, dtype=float)
    cols = [span / max(cdom.source_length, 1), _safe_div(c[:, _LINK_CHARS], n_chars),
            _safe_div(c[:, _WORD_LEN], n_words), c[:, _N_STOP] > 0, _safe_div(c[:, _N_STOP], n_words),
            np.log(np.maximum(n_chars, 1)), _log_or(_safe_div(c[:, _N_PUNCT], n_chars), -4.0),
            c[:, _N_DIGITS] > 0, _safe_div(c[:, _N_DIGITS], n_chars),
            np.log(np.maximum(_safe_div(n_chars, c[:, _N_SENT]), 1)),
            leaf_end[last, 0], leaf_end[last, 1], c[:, _COPYRIGHT] > 0, c[:, _EMAIL_C] > 0, c[:, _URL_C] > 0,
            c[:, _YEAR] > 0, cap, cap ** 2, cap ** 3, np.asarray(cdom.has_form)]
    return _float_columns(cols, len(c))


def _ends(cdom: CollapsedDOM) -> np.ndarray:
    """(n_nodes, 2): leaf text ends with punctuation / with '?' (0 for inner nodes)."""
    out = np.zeros((len(cdom), 2))
    if cdom.leaves:
        # the leaves' last characters as code points (a leaf's text is never empty), compared by numpy
        last = "".join([cdom.text[k][-1] for k in cdom.leaves])
        codes = np.frombuffer(last.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        out[cdom.leaves, 0] = np.isin(codes, _PUNCTUATION_CODES)
        out[cdom.leaves, 1] = codes == ord("?")
    return out


_PUNCTUATION_CODES = np.array([ord(c) for c in PUNCTUATION], dtype=np.uint32)
# the ancestor statistics that are also a node's own (b6-b22): avg_word_length .. ratio_words_with_capital^3
_OWN_STATS = slice(ANCESTOR_STATS.index("avg_word_length"), ANCESTOR_STATS.index("ratio_words_with_capital^3") + 1)


def _float_columns(cols: list, n: int) -> np.ndarray:
    """(n, len(cols)) float64 from columns (arrays or scalars), each written in place: no 2-d copy of each
    column and no stacked copy, as `np.column_stack(cols).astype(float)` would make."""
    out = np.empty((n, len(cols)))
    for i, col in enumerate(cols):
        out[:, i] = col
    return out


def _log_or(x: np.ndarray, floor: float) -> np.ndarray:
    """log(x), and `floor` (the appendix's lower clip bound) where x is 0."""
    return np.where(x > 0, np.log(np.where(x > 0, x, 1.0)), floor)


def _tags_onehot(cdom: CollapsedDOM, nodes: list[int], tags: tuple[str, ...]) -> np.ndarray:
    """1 where a tag occurs anywhere in the node's merged chain (a CDOM node stands for all of them)."""
    # pages repeat a few chains (`p`, `a`, `li a`) thousands of times: one row per distinct chain, then numpy
    # picks each node's row
    row_of: dict[tuple[str, ...], int] = {}
    rows = [row_of.setdefault(cdom.tags[k] if k >= 0 else (), len(row_of)) for k in nodes]
    table = np.array([[t in chain for t in tags] for chain in row_of], dtype=float).reshape(len(row_of), len(tags))
    return table[rows].reshape(len(nodes), len(tags))


def page_features(blocks: Blocks) -> tuple[np.ndarray, np.ndarray]:
    """`(block_features(blocks), edge_features(blocks))`, counting the text statistics of the CDOM once."""
    counts = _node_counts(blocks.cdom)
    anc = _ancestor_stats(blocks.cdom, counts)
    return _block_features(blocks, counts, anc), _edge_features(blocks, anc)


def block_features(blocks: Blocks, stop: frozenset[str] | None = None) -> np.ndarray:
    """(n_blocks, 128) raw block features in the order of FEATURE_NAMES (Appendix A, b1-b128), without the edge
    features (BlockNet reads no edges; their Python loop over the blocks is ~0.1 ms of a median page). `stop`:
    the stop words of b7/b8 and their ancestor copies (None: the shipped English list, as the paper)."""
    counts = _node_counts(blocks.cdom, stop)
    return _block_features(blocks, counts, _ancestor_stats(blocks.cdom, counts))


def edge_features(blocks: Blocks) -> np.ndarray:
    """(n_blocks - 1, 25) raw edge features in the order of EDGE_FEATURE_NAMES (section 3.3)."""
    return page_features(blocks)[1]


def _block_features(blocks: Blocks, counts: np.ndarray, anc: np.ndarray) -> np.ndarray:
    cdom, n = blocks.cdom, len(blocks)
    if n == 0:
        return np.zeros((0, len(FEATURE_NAMES)))
    leaves = np.asarray(blocks.node)
    parent_of = np.asarray(cdom.parent)
    parents = parent_of[leaves]
    grand = np.where(parents >= 0, parent_of[np.maximum(parents, 0)], -1)
    c = counts[leaves]

    texts = Counter(blocks.text)                      # Counter of a list: counted in C
    class_paths = blocks.class_paths()
    paths = Counter(class_paths)
    same_text = np.array([texts[t] for t in blocks.text], dtype=float)
    same_path = np.array([paths[p] for p in class_paths], dtype=float)
    n_words, n_punct = c[:, _N_WORDS], c[:, _N_PUNCT]
    rel = np.asarray([cdom.start[k] for k in leaves], dtype=float) / max(cdom.source_length, 1)
    # the columns written in place, in FEATURE_NAMES' order (b1-b128), instead of stacked from ~60 pieces
    out = np.empty((n, len(FEATURE_NAMES)))
    out[:, 0] = same_text > 1
    out[:, 1] = same_text > 10
    out[:, 2] = same_path / n
    out[:, 3] = n_words > 0
    out[:, 4] = _log_or(n_words, 0.0)
    out[:, 5:22] = anc[leaves, _OWN_STATS]            # the node's own text statistics, same formulas
    out[:, 22] = n_punct > 0
    out[:, 23] = n_punct
    out[:, 24] = c[:, _N_SENT] > 1
    out[:, 25] = rel
    out[:, 26] = rel ** 2
    stats, col = len(ANCESTOR_STATS), 27
    for nodes, tags in ((parents, PARENT_TAGS), (grand, None)):
        found = nodes >= 0
        out[:, col] = found
        out[:, col + 1 : col + 1 + stats] = 0.0
        out[found, col + 1 : col + 1 + stats] = anc[nodes[found]]
        col += 1 + stats
        if tags:
            out[:, col : col + len(tags)] = _tags_onehot(cdom, nodes.tolist(), tags)
            col += len(tags)
    out[:, col : col + stats] = anc[0]                    # the root's, on every row
    out[:, col + stats :] = _tags_onehot(cdom, leaves.tolist(), LEAF_TAGS)
    return out


def _edge_features(blocks: Blocks, anc: np.ndarray) -> np.ndarray:
    cdom, n = blocks.cdom, len(blocks)
    if n < 2:
        return np.zeros((0, len(EDGE_FEATURE_NAMES)))
    end, parent, depth = cdom.end, cdom.parent, cdom.depth
    common = np.empty(n - 1, dtype=int)
    distance = np.empty(n - 1)
    for i in range(n - 1):
        a, b = blocks.node[i], blocks.node[i + 1]
        x = a
        while end[x] < b:           # pre-order: the common ancestor is the first one whose subtree holds b
            x = parent[x]
        common[i] = x
        distance[i] = depth[a] + depth[b] - 2 * depth[x]
    brk = np.array([cdom.break_before[k] for k in blocks.node[1:]], dtype=float)
    out = np.column_stack([distance == 2, distance == 3, distance == 4, distance > 4, brk, anc[common]])
    return out.astype(float, copy=False)


@dataclass(frozen=True, slots=True)
class FeatureStats:
    """Training-set statistics per column: clip to [lo, hi], then (x - mean) / std."""

    mean: np.ndarray
    std: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    binary: np.ndarray             # columns left as they are (1/0)


def _clip_bounds(names: list[str]) -> tuple[np.ndarray, np.ndarray]:
    lo, hi = np.full(len(names), -np.inf), np.full(len(names), np.inf)
    for i, name in enumerate(names):
        scope, stat = name.split(".")[-2:]
        if stat in APPENDIX_CLIP:
            lo[i], hi[i] = (_ANCESTOR_LOG_CHARS_CLIP if stat == "log_n_characters" and scope != "node"
                            else APPENDIX_CLIP[stat])
    return lo, hi


def fit_stats(features: np.ndarray, names: list[str] = FEATURE_NAMES) -> FeatureStats:
    """Clip with APPENDIX_CLIP, then take each non-binary column's mean and std (std 0 -> 1)."""
    lo, hi = _clip_bounds(names)
    binary = np.array([_is_binary(n) for n in names])
    clipped = np.clip(features, lo, hi)
    mean = clipped.mean(axis=0) if len(clipped) else np.zeros(len(names))
    std = clipped.std(axis=0) if len(clipped) else np.ones(len(names))
    std = np.where(std > 0, std, 1.0)
    return FeatureStats(mean=np.where(binary, 0.0, mean), std=np.where(binary, 1.0, std), lo=lo, hi=hi,
                        binary=binary)


def standardise(features: np.ndarray, stats: FeatureStats) -> np.ndarray:
    """Section 3.3: clip and standardise the non-binary columns; binary columns pass through."""
    scaled = np.clip(features, stats.lo, stats.hi)          # the one copy: a 150,000-block page has 150 MB
    scaled -= stats.mean
    scaled /= stats.std
    scaled[:, stats.binary] = features[:, stats.binary]
    return scaled

