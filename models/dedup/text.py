"""Text normalisation, the exact-duplicate hash and word shingles."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass

__all__ = ["Normalisation", "normalise_text", "text_hash", "word_shingles", "jaccard"]

_PUNCTUATION = re.compile(r"[^\w\s]+|_+")
_DIGIT = re.compile(r"\d")


@dataclass(frozen=True, slots=True)
class Normalisation:
    """What two texts may differ in and still count as the same text (after Unicode NFKC and whitespace folding,
    which always apply)."""

    lowercase: bool = True
    strip_punctuation: bool = True
    mask_digits: bool = True    # every digit becomes 0, as DataTrove's `norm_numbers`: dates and counters


def normalise_text(text: str, norm: Normalisation = Normalisation()) -> str:
    """The text as compared: NFKC, optionally lower-cased, punctuation removed and digits masked, single spaces.

    Args:
        text: any string (may be empty).
        norm: which normalisations to apply.

    Returns:
        The normalised text; empty when the text has no word characters left.
    """
    text = unicodedata.normalize("NFKC", text)
    if norm.lowercase:
        text = text.lower()
    if norm.strip_punctuation:
        text = _PUNCTUATION.sub(" ", text)
    if norm.mask_digits:
        text = _DIGIT.sub("0", text)
    return " ".join(text.split())


def text_hash(normalised: str) -> str:
    """128-bit BLAKE2b of the normalised text, hex: equal hashes are exact duplicates."""
    return hashlib.blake2b(normalised.encode("utf-8"), digest_size=16).hexdigest()


def word_shingles(normalised: str, size: int) -> set[str]:
    """The set of `size`-word windows of a normalised text; a text shorter than `size` words is one shingle,
    an empty text none."""
    words = normalised.split(" ") if normalised else []
    if len(words) <= size:
        return {normalised} if words else set()
    return {" ".join(words[i:i + size]) for i in range(len(words) - size + 1)}


def jaccard(a: set[str], b: set[str]) -> float:
    """|a & b| / |a | b|; 0.0 when both are empty."""
    if not a and not b:
        return 0.0
    inter = len(a & b)
    return inter / (len(a) + len(b) - inter)
