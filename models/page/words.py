"""Counting words in any script, for the rules that ask "does this hold enough text?", and folding white space
for comparing passages (snippet gold, as trafilatura's evaluation compares them).

Whitespace-separated tokens, except that every Han ideograph and kana counts as one word: Chinese and Japanese
are written without spaces, and a whole paragraph of them would otherwise be one "word", never content
evidence, while the page's spaced English footer would be.
"""

from __future__ import annotations

import re

__all__ = ["count_words", "fold_space"]

# kana and Han ideographs (extension A and the compatibility block included): scripts written without spaces
_UNSPACED = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_WORD = re.compile(f"[{_UNSPACED}]|[^\\s{_UNSPACED}]+")
_SPACES = re.compile(r"\s+")


def count_words(text: str) -> int:
    """Whitespace tokens, with each Han ideograph or kana a word of its own (see the module docstring)."""
    return len(_WORD.findall(text))


def fold_space(text: str) -> str:
    """White-space runs folded to one space, the ends stripped."""
    return _SPACES.sub(" ", text).strip()
