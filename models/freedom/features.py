"""Node inputs: word ids, character ids per word, the leaf tag and the discrete type checks.

The patent's node encoder reads (1) the node's words, each as a word vector plus a character CNN over its
letters, (2) the same for the preceding text, and (3) discrete features (leaf tag, value-type checks) looked up
in an embedding matrix. This module turns `TextNode`s into fixed-shape integer and 0/1 arrays; the network
(`net.py`) does the rest. Fixed shapes (every node padded to the same lengths) keep a node's inputs the same
whatever batch it is in.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .nodes import TextNode

__all__ = ["MAX_WORDS", "MAX_CHARS", "PAD", "UNK", "TAGS", "FLAG_NAMES", "NodeInputs", "tokenize", "char_ids",
           "flags_of", "encode_nodes"]

MAX_WORDS = 16          # words read per node (SWDE values are short; a longer node is rarely a field)
MAX_PRECEDING = 10      # the patent's last 10 words of preceding text
MAX_CHARS = 16          # characters read per word
MAX_LABEL = 6           # words of a node's label (`TextNode.label`) read as a bag of word vectors
PAD, UNK = 0, 1

_TOKEN = re.compile(r"\w+|[^\w\s]", re.UNICODE)
# Leaf tags with their own embedding; anything else shares "other".
TAGS = ("other", "a", "b", "strong", "span", "div", "td", "th", "li", "p", "h1", "h2", "h3", "h4", "dd", "dt",
        "em", "i", "font", "label", "small", "option", "title", "body", "table", "tr", "ul", "cite", "meta")
_TAG_ID = {t: i for i, t in enumerate(TAGS)}

_MONTHS = r"(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_CHECKS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("date_month", re.compile(rf"\b{_MONTHS}\s+(\d{{1,2}},?\s+)?(1[89]|20)\d\d\b", re.I)),
    ("date_numeric", re.compile(r"\b\d{1,4}[/.-]\d{1,2}[/.-]\d{2,4}\b")),
    ("year", re.compile(r"\b(1[89]|20)\d\d\b")),
    ("isbn13", re.compile(r"\b97[89][- ]?(\d[- ]?){9}\d\b")),
    ("isbn10", re.compile(r"\b\d{9}[\dXx]\b")),
    ("price", re.compile(r"([$£€]\s?\d)|(\d\s?(usd|eur|gbp)\b)", re.I)),
    ("number_only", re.compile(r"^[\s:#]*[\d.,-]+\s*$")),
    ("has_digit", re.compile(r"\d")),
    ("zip_code", re.compile(r"\b\d{5}(-\d{4})?\b")),
    ("url", re.compile(r"(https?://|www\.)\S+", re.I)),
    ("email", re.compile(r"\S+@\S+\.\w+")),
    ("leading_colon", re.compile(r"^\s*:")),
    ("ends_colon", re.compile(r":\s*$")),
    ("by_word", re.compile(r"^\s*(by|author|written)\b", re.I)),
    ("count", re.compile(r"\b\d+\s+(pages|reviews?|ratings?|items?|results?)\b", re.I)),
    ("comma_names", re.compile(r"^[A-Z][a-z]+ [A-Z][a-z.]+(, [A-Z][a-z]+ [A-Z][a-z.]+)+$")),
)
_LENGTH_BUCKETS = (1, 2, 4, 8, 16)       # word-count buckets: 1, 2-3, 4-7, 8-15, 16+
FLAG_NAMES = ([name for name, _ in _CHECKS] + [f"words>={n}" for n in _LENGTH_BUCKETS]
              + ["title_case", "upper_case", "in_page_title", "starts_page_title"])


def tokenize(text: str) -> list[str]:
    """Lower-cased word and punctuation tokens (GloVe 6B is lower-case and splits punctuation off)."""
    return _TOKEN.findall(text.lower())


def char_ids(word: str) -> list[int]:
    """Printable ASCII -> 2..96, anything else UNK; at most MAX_CHARS (a fixed alphabet: nothing to store)."""
    return [ord(c) - 30 if 32 <= ord(c) < 127 else UNK for c in word[:MAX_CHARS]]


def flags_of(text: str, title_match: int = 0) -> list[float]:
    """The 0/1 discrete features of a node's text, in FLAG_NAMES order; `title_match` is the node's place in
    the page's document title (`nodes.title_match`)."""
    words = text.split()
    flags = [1.0 if pattern.search(text) else 0.0 for _, pattern in _CHECKS]
    flags += [1.0 if len(words) >= n else 0.0 for n in _LENGTH_BUCKETS]
    alpha = [w for w in words if w[:1].isalpha()]
    flags.append(1.0 if alpha and sum(w[0].isupper() for w in alpha) / len(alpha) > 0.6 else 0.0)
    flags.append(1.0 if alpha and all(w.isupper() for w in alpha) else 0.0)
    flags += [1.0 if title_match >= 1 else 0.0, 1.0 if title_match == 2 else 0.0]
    return flags


@dataclass(frozen=True, slots=True)
class NodeInputs:
    """Arrays for N nodes: words (N, W), chars (N, W, C), preceding words (N, P), their chars (N, P, C),
    tag ids (N,), flags (N, F), label words (N, L)."""

    words: np.ndarray
    chars: np.ndarray
    prev_words: np.ndarray
    prev_chars: np.ndarray
    tags: np.ndarray
    flags: np.ndarray
    label_words: np.ndarray

    def __len__(self) -> int:
        return len(self.tags)


def _encode_text(tokens: list[str], vocab: dict[str, int], width: int) -> tuple[np.ndarray, np.ndarray]:
    words = np.zeros(width, dtype=np.int64)
    chars = np.zeros((width, MAX_CHARS), dtype=np.int64)
    for i, token in enumerate(tokens[:width]):
        words[i] = vocab.get(token, UNK)
        ids = char_ids(token)
        chars[i, : len(ids)] = ids
    return words, chars


def encode_nodes(nodes: Sequence[TextNode], vocab: dict[str, int]) -> NodeInputs:
    """The inputs of `nodes`; a word missing from `vocab` is UNK (its characters still count)."""
    n = len(nodes)
    out = NodeInputs(np.zeros((n, MAX_WORDS), np.int64), np.zeros((n, MAX_WORDS, MAX_CHARS), np.int64),
                     np.zeros((n, MAX_PRECEDING), np.int64), np.zeros((n, MAX_PRECEDING, MAX_CHARS), np.int64),
                     np.zeros(n, np.int64), np.zeros((n, len(FLAG_NAMES)), np.float32),
                     np.zeros((n, MAX_LABEL), np.int64))
    for i, node in enumerate(nodes):
        out.words[i], out.chars[i] = _encode_text(tokenize(node.text), vocab, MAX_WORDS)
        # the last words before the node are the ones next to it: keep the tail
        out.prev_words[i], out.prev_chars[i] = _encode_text(tokenize(node.preceding)[-MAX_PRECEDING:], vocab,
                                                            MAX_PRECEDING)
        out.tags[i] = _TAG_ID.get(node.tag, 0)
        out.flags[i] = flags_of(node.text, node.title_match)
        # the label's words only (no punctuation): their vectors' mean is what an unseen synonym comes near
        label = [w for w in tokenize(node.label) if w[0].isalnum()][-MAX_LABEL:]
        out.label_words[i, : len(label)] = [vocab.get(w, UNK) for w in label]
    return out
