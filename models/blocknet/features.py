"""BlockNet's input: Web2Text's 128 block features, 29 context features and 10 selector features per block.

Context features (`CONTEXT_FEATURE_NAMES`), from the Collapsed DOM built with `context=True`:
- c1-c24: the context bits of the elements between `<body>` and the block's text (`models.page.context`:
  sectioning tags, ARIA roles, itemprop, inline `display: none`, class and id words), 1/0;
- c25 in_link: the text lies inside an `<a>`;
- c26 log_depth: log(1 + elements from `<body>` down to the text's holder);
- c27 char_position: characters of the page's block text before this block / all of it (where the block starts
  in the reading, which the source-offset position of Web2Text's b26 skews on pages with long inline scripts);
- c28 log_repeats: log(1 + other blocks of the page with exactly this text) (menus, "Reply", "Share");
- c29 block_position: the block's index / (blocks - 1).

Selector features (`SELECTOR_FEATURE_NAMES`), trafilatura's rules (`models.page.selectors`):
- s1-s8: the selector bits of the elements above the block (an element above it matches that rule), 1/0;
- s9 in_trafilatura_body: the block lies in the body trafilatura's rules would settle on: of its body rules in
  its order (an article-body class or id, the `<article>` tag, a story container, a content container, a "main"
  value), the first whose blocks hold at least 250 characters;
- s10 trafilatura_body_rule: which rule that is, 1/5 to 5/5 (0: none), the same on every block of the page.
The 157 columns before them are the inputs of models trained before the selectors (`BASE_INPUT_NAMES`: blend's).
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from ..page import ParsedPage
from ..page.context import CONTEXT_BIT, CONTEXT_BITS
from ..page.selectors import SELECTOR_NAMES
from ..page.stopwords import language_stopwords
from ..web2text import FEATURE_NAMES, Blocks, block_features, page_blocks

__all__ = ["BASE_INPUT_NAMES", "CONTEXT_FEATURE_NAMES", "INPUT_NAMES", "SELECTOR_FEATURE_NAMES", "STOPWORD_LISTS",
           "block_inputs", "context_features", "page_inputs", "selector_features"]

# Which stop words Web2Text's stop-word columns count (a model's card says which it was trained with):
# "english", the paper's list, on every page; "page-language", the list of the page's language
# (models/page/stopwords.py: jusText's, else the page's own frequent short words)
STOPWORD_LISTS = ("english", "page-language")

_SELECTOR_BITS = tuple(f"selector_{name}" for name in SELECTOR_NAMES)
_OWN_BITS = tuple(name for name in CONTEXT_BITS if name not in _SELECTOR_BITS)
CONTEXT_FEATURE_NAMES: list[str] = ([f"c{i}.context.{name}" for i, name in enumerate(_OWN_BITS, 1)]
                                    + [f"c{i}.{name}" for i, name in enumerate(
                                        ("in_link", "log_depth", "char_position", "log_repeats", "block_position"),
                                        len(_OWN_BITS) + 1)])
SELECTOR_FEATURE_NAMES: list[str] = ([f"s{i}.{name}" for i, name in enumerate(_SELECTOR_BITS, 1)]
                                     + [f"s{i}.{name}" for i, name in enumerate(
                                         ("in_trafilatura_body", "trafilatura_body_rule"), len(_SELECTOR_BITS) + 1)])
BASE_INPUT_NAMES: list[str] = FEATURE_NAMES + CONTEXT_FEATURE_NAMES
INPUT_NAMES: list[str] = BASE_INPUT_NAMES + SELECTOR_FEATURE_NAMES
_OWN_BIT_VALUES = np.array([CONTEXT_BIT[name] for name in _OWN_BITS], dtype=np.int64)
_SELECTOR_BIT_VALUES = np.array([CONTEXT_BIT[name] for name in _SELECTOR_BITS], dtype=np.int64)
# trafilatura's body rules in the order it tries them (its second is the <article> tag)
_BODY_RULES = np.array([CONTEXT_BIT[name] for name in ("selector_article_body", "article", "selector_story",
                                                 "selector_main_content", "selector_main")], dtype=np.int64)
BODY_CHARS = 250        # the characters a body rule's blocks must hold for trafilatura's rules to settle on it


def _context_bits(blocks: Blocks) -> np.ndarray:
    return np.fromiter(map(blocks.cdom.context.__getitem__, blocks.node), dtype=np.int64, count=len(blocks))


def _text_lengths(blocks: Blocks) -> np.ndarray:
    return np.fromiter(map(len, blocks.text), dtype=np.float64, count=len(blocks))


def selector_features(blocks: Blocks) -> np.ndarray:
    """(n blocks, 10) float32 (`SELECTOR_FEATURE_NAMES`); `blocks` must come from `page_blocks(page, context=True)`."""
    return _selector_columns(_context_bits(blocks), _text_lengths(blocks))


def _selector_columns(bits: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    out = np.zeros((len(bits), len(SELECTOR_FEATURE_NAMES)), dtype=np.float32)
    nb = len(_SELECTOR_BITS)
    out[:, :nb] = (bits[:, None] & _SELECTOR_BIT_VALUES[None, :]) != 0
    for k, rule in enumerate(_BODY_RULES):
        inside = (bits & rule) != 0
        if lengths[inside].sum() >= BODY_CHARS:
            out[:, nb] = inside
            out[:, nb + 1] = (k + 1) / len(_BODY_RULES)
            break
    return out


def context_features(blocks: Blocks) -> np.ndarray:
    """(n blocks, 29) float32; `blocks` must come from `page_blocks(page, context=True)`."""
    return _context_columns(blocks, _context_bits(blocks), _text_lengths(blocks))


def _context_columns(blocks: Blocks, bits: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    n = len(blocks)
    out = np.zeros((n, len(CONTEXT_FEATURE_NAMES)), dtype=np.float32)
    if n == 0:
        return out
    cdom, node = blocks.cdom, blocks.node
    # map() over the lists' own methods: the per-block loops run in C
    nb = len(_OWN_BITS)
    out[:, :nb] = (bits[:, None] & _OWN_BIT_VALUES[None, :]) != 0
    out[:, nb] = np.fromiter(map(cdom.in_link.__getitem__, node), dtype=bool, count=n)
    out[:, nb + 1] = np.log1p(np.fromiter(map(cdom.holder_depth.__getitem__, node), dtype=np.float32, count=n))
    out[:, nb + 2] = (np.cumsum(lengths) - lengths) / max(lengths.sum(), 1.0)
    counts = Counter(blocks.text)
    out[:, nb + 3] = np.log(np.fromiter(map(counts.__getitem__, blocks.text), dtype=np.float32, count=n))
    out[:, nb + 4] = np.arange(n, dtype=np.float32) / max(n - 1, 1)
    return out


def page_inputs(page: ParsedPage, max_blocks: int | None = None,
                stopwords: str = "english") -> tuple[Blocks, np.ndarray]:
    """A page's blocks and their (n, 167) raw inputs, columns as `INPUT_NAMES`; TooLargeError (raised while the
    blocks are built) for a page with more than `max_blocks`."""
    blocks = page_blocks(page, context=True, max_blocks=max_blocks)
    return blocks, block_inputs(blocks, stopwords)


def block_inputs(blocks: Blocks, stopwords: str = "english") -> np.ndarray:
    """(n, 167) raw inputs of blocks built with `page_blocks(page, context=True)`, the stop-word columns counted
    with `stopwords` (one of STOPWORD_LISTS)."""
    if stopwords not in STOPWORD_LISTS:
        raise ValueError(f"stopwords must be one of {', '.join(STOPWORD_LISTS)}, not {stopwords!r}")
    stop = language_stopwords(blocks.text) if stopwords == "page-language" and len(blocks) else None
    bits, lengths = _context_bits(blocks), _text_lengths(blocks)     # read once for both groups of columns
    return np.hstack([block_features(blocks, stop).astype(np.float32), _context_columns(blocks, bits, lengths),
                      _selector_columns(bits, lengths)])
