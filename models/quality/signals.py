"""Quality signals of one document text: the quantities the Gopher and C4 rules threshold.

References:
    Rae et al. 2021, "Scaling Language Models: Methods, Analysis & Insights from Training Gopher",
        appendix A.1.1 (quality filters) and table A1 (repetition thresholds).
    Raffel et al. 2020, "Exploring the Limits of Transfer Learning with a Unified Text-to-Text Transformer",
        section 2.2 (the C4 heuristics).

Words are whitespace-separated strings, as in the `documents.n_words` column. Where a signal compares
words (stop words, n-grams) it uses their normalised form: lower-cased, punctuation stripped from both
ends, empty ones dropped. Lines and paragraphs are the non-blank ones, since `documents.text` separates
blocks by a blank line and counting those blank lines would halve every per-line ratio.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Iterable, Sequence

__all__ = ["GOPHER_STOP_WORDS", "POLICY_PHRASES", "SIGNAL_NAMES", "TOP_NGRAM_SIZES", "DUP_NGRAM_SIZES",
           "compute_signals", "normalise_words"]

# Gopher A.1.1: "at least two of the following English words: the, be, to, of, and, that, have, with"
GOPHER_STOP_WORDS = ("the", "be", "to", "of", "and", "that", "have", "with")
# C4 (tensorflow_datasets c4_utils, the code behind Raffel et al. 2.2): lines naming a policy are dropped
POLICY_PHRASES = ("terms of use", "privacy policy", "cookie policy", "uses cookies", "use of cookies", "use cookies")
TOP_NGRAM_SIZES = (2, 3, 4)             # Gopher table A1: top n-gram character fraction
DUP_NGRAM_SIZES = (5, 6, 7, 8, 9, 10)   # Gopher table A1: duplicate n-gram character fraction

# ASCII punctuation plus the typographic marks seen on the benchmark pages (quotes, dashes, ellipsis, ...)
_PUNCTUATION = string.punctuation + "“”‘’«»„‚‹›–—…•·¡¿§¶†‡°′″「」『』【】、。，：；！？（）"
_BULLETS = ("•", "‣", "◦", "▪", "▫", "●", "○", "■", "□", "►", "-", "*", "·", "–", "—")
_ELLIPSES = ("...", "…")
# C4 keeps lines ending in terminal punctuation, but not in an ellipsis
_END_PUNCTUATION = (".", "?", "!", '"', "'", "”", "’")
_PARAGRAPH_BREAK = re.compile(r"\n[ \t\r\f\v]*\n")
# one sentence end: a run of . ! ? with any closing quotes or brackets, then a space or the line end
_SENTENCE_END = re.compile(r"[.!?]+[\"'”’)\]]*(?=\s|$)")
_C4_MIN_LINE_WORDS = 3        # C4: "only retained lines that contained at least 3 words"
_C4_MAX_WORD_CHARS = 1000     # C4's code: a line with a word over 1000 characters is dropped

SIGNAL_NAMES = (
    "words", "mean_word_length", "hash_ratio", "ellipsis_ratio", "bullet_lines", "ellipsis_lines",
    "alpha_words", "stop_words",
    "dup_para_frac", "dup_para_char_frac", "dup_line_frac", "dup_line_char_frac",
    *(f"top_{n}gram" for n in TOP_NGRAM_SIZES), *(f"dup_{n}gram" for n in DUP_NGRAM_SIZES),
    "end_punct_lines", "policy_lines", "javascript_lines", "lorem_ipsum", "curly_bracket", "c4_sentences",
)


def normalise_words(words: Iterable[str]) -> list[str]:
    """Lower-cased words with punctuation stripped from both ends; words that were only punctuation dropped."""
    out = []
    for word in words:
        stripped = word.strip(_PUNCTUATION).lower()
        if stripped:
            out.append(stripped)
    return out


def compute_signals(text: str, stop_words: Sequence[str] = GOPHER_STOP_WORDS) -> dict[str, float | int | bool]:
    """Every quality signal of `text`, keyed by the names in `SIGNAL_NAMES`.

    Args:
        text: a document's main text (blocks separated by a blank line); an empty string is allowed.
        stop_words: the words counted by `stop_words` (Gopher's eight English ones by default).

    Returns:
        Counts as int (`words`, `stop_words`, `c4_sentences`), flags as bool (`lorem_ipsum`,
        `curly_bracket`), every other signal a fraction as float; a ratio over nothing is 0.0.
    """
    raw_words = text.split()
    norm = normalise_words(raw_words)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    signals: dict[str, float | int | bool] = {
        "words": len(norm),
        "mean_word_length": _ratio(sum(map(len, norm)), len(norm)),
        "hash_ratio": _ratio(text.count("#"), len(norm)),
        "ellipsis_ratio": _ratio(text.count("...") + text.count("…"), len(norm)),
        "bullet_lines": _ratio(sum(line.startswith(_BULLETS) for line in lines), len(lines)),
        "ellipsis_lines": _ratio(sum(line.endswith(_ELLIPSES) for line in lines), len(lines)),
        "alpha_words": _ratio(sum(any(c.isalpha() for c in w) for w in raw_words), len(raw_words)),
        "stop_words": len(set(stop_words).intersection(norm)),
    }
    paragraphs = [p.strip() for p in _PARAGRAPH_BREAK.split(text) if p.strip()]
    signals["dup_para_frac"], signals["dup_para_char_frac"] = _duplicate_fractions(paragraphs)
    signals["dup_line_frac"], signals["dup_line_char_frac"] = _duplicate_fractions(lines)
    lengths = [len(w) for w in norm]
    total = sum(lengths)
    for n in TOP_NGRAM_SIZES:
        signals[f"top_{n}gram"] = _ratio(_top_ngram_chars(norm, lengths, n), total)
    for n, chars in _duplicate_ngram_chars(norm, lengths, DUP_NGRAM_SIZES).items():
        signals[f"dup_{n}gram"] = _ratio(chars, total)
    signals.update(_c4_signals(lines))
    return signals


def _ratio(part: float, whole: float) -> float:
    return part / whole if whole else 0.0


def _duplicate_fractions(items: list[str]) -> tuple[float, float]:
    """(share of items that repeat an earlier one, share of the items' characters in those repeats)."""
    seen: set[str] = set()
    dup_items = dup_chars = 0
    for item in items:
        if item in seen:
            dup_items += 1
            dup_chars += len(item)
        else:
            seen.add(item)
    return _ratio(dup_items, len(items)), _ratio(dup_chars, sum(map(len, items)))


def _top_ngram_chars(words: list[str], lengths: list[int], n: int) -> int:
    """Characters of the words covered by the most frequent n-gram, if it occurs more than once.

    Covered positions are marked, so overlapping occurrences ("a a a") are not counted twice; among
    n-grams of equal count the one with the most characters wins.
    """
    grams = list(zip(*(words[i:] for i in range(n)), strict=False))
    if not grams:
        return 0
    counts = Counter(grams)
    top_count = max(counts.values())
    if top_count < 2:
        return 0
    top = max((g for g, c in counts.items() if c == top_count), key=lambda g: sum(map(len, g)))
    covered = [False] * len(words)
    for i, gram in enumerate(grams):
        if gram == top:
            covered[i:i + n] = [True] * n
    return sum(length for length, hit in zip(lengths, covered, strict=True) if hit)


def _duplicate_ngram_chars(words: list[str], lengths: list[int], sizes: Sequence[int]) -> dict[int, int]:
    """{n: characters of the words in n-grams that repeat an earlier n-gram} (a repeat is skipped whole, so
    its words are counted once; the first occurrence is not counted).

    Only positions whose shortest-size n-gram occurs twice can start a repeat of any size, so the scan
    visits those alone: a few percent of the positions of an ordinary text (4x faster on CleanEval).
    """
    shortest = min(sizes)
    prefixes = list(zip(*(words[i:] for i in range(shortest)), strict=False))
    counts = Counter(prefixes)
    candidates = [i for i, gram in enumerate(prefixes) if counts[gram] > 1]
    chars = dict.fromkeys(sizes, 0)
    for n in sizes:
        seen: set[tuple[str, ...]] = set()
        resume = 0              # a repeat's words are skipped: no n-gram starts inside it
        for i in candidates:
            if i < resume or i > len(words) - n:
                continue
            gram = tuple(words[i:i + n])
            if gram in seen:
                chars[n] += sum(lengths[i:i + n])
                resume = i + n
            else:
                seen.add(gram)
    return chars


def _c4_signals(lines: list[str]) -> dict[str, float | int | bool]:
    """C4's line tests as shares of lines, its page tests as flags, and the sentences of the lines C4 keeps.

    As in C4's code (tensorflow_datasets `c4_utils.clean_page`), "lorem ipsum" and "{" remove the page only
    on a line that passed the punctuation and 3-word tests; a "{" on a dropped line (a menu, a code
    fragment without a full stop) does not.
    """
    end_punct = policy = javascript = sentences = 0
    lorem = curly = False
    for line in lines:
        low = line.lower()
        words = line.split()
        punctuated = line.endswith(_END_PUNCTUATION) and not line.endswith("...")
        has_policy = any(p in low for p in POLICY_PHRASES)
        has_js = "javascript" in low
        end_punct += punctuated
        policy += has_policy
        javascript += has_js
        if not punctuated or len(words) < _C4_MIN_LINE_WORDS or max(map(len, words)) > _C4_MAX_WORD_CHARS:
            continue
        lorem = lorem or "lorem ipsum" in low
        if has_js:
            continue
        curly = curly or "{" in line
        if not has_policy:
            sentences += max(1, len(_SENTENCE_END.findall(line)))
    return {"end_punct_lines": _ratio(end_punct, len(lines)), "policy_lines": _ratio(policy, len(lines)),
            "javascript_lines": _ratio(javascript, len(lines)), "lorem_ipsum": lorem,
            "curly_bracket": curly, "c4_sentences": sentences}
