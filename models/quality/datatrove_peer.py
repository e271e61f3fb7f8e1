"""DataTrove's Gopher and C4 filters as a peer of ours: same texts in, a verdict (kept or the first reason) out.

DataTrove (`pip install datatrove`) tokenises English words with spaCy (`spacy.blank("en")`, which pulls 29
more packages); we hand its filters a whitespace tokenizer instead, the same word split as our signals,
so that a disagreement comes from the rules and not from the tokenizer. Its filters return a verdict
only, never the signal values, which is why the `filter` stage computes its own (see docs/quality-filter.md#datatrove).
"""

from __future__ import annotations

import re

__all__ = ["DatatroveQuality", "DATATROVE_ORDER"]

# DataTrove's reason names, in the order our rules list the same tests (for comparing verdicts)
DATATROVE_ORDER = ("gopher_quality", "gopher_repetition", "c4_quality")
_SENTENCE = re.compile(r".+?(?:[.!?]+[\"'”’)\]]*(?=\s|$)|$)", re.S)


def _whitespace_tokenizer():
    from datatrove.utils.word_tokenizers import WordTokenizer

    class WhitespaceWords(WordTokenizer):
        """Words split on whitespace; sentences end at . ! ? (like models/quality/signals)."""

        def word_tokenize(self, text: str) -> list[str]:
            return text.split()

        def sent_tokenize(self, text: str) -> list[str]:
            return [s.strip() for s in _SENTENCE.findall(text) if s.strip()]

        def span_tokenize(self, text: str) -> list[tuple[int, int]]:
            return [m.span() for m in _SENTENCE.finditer(text) if m.group().strip()]

    return WhitespaceWords("en")


class DatatroveQuality:
    """GopherQualityFilter, GopherRepetitionFilter and C4QualityFilter of DataTrove with their defaults
    (the papers' thresholds), run one after the other on a text.

    Raises:
        ImportError: when datatrove is not installed (when the object is built, not on the first text).
    """

    name = "datatrove"

    def __init__(self) -> None:
        import logging

        from datatrove.pipeline.filters import C4QualityFilter, GopherQualityFilter, GopherRepetitionFilter

        logging.getLogger("datatrove").setLevel(logging.WARNING)
        words = _whitespace_tokenizer()
        self._filters = (GopherQualityFilter(language=words), GopherRepetitionFilter(language=words),
                         C4QualityFilter(language=words))

    def judge(self, text: str) -> str | None:
        """None if every filter keeps `text`, else `<filter>:<reason>` of the first that removes it."""
        from datatrove.data import Document

        for step, name in zip(self._filters, DATATROVE_ORDER, strict=True):
            verdict = step.filter(Document(text=text, id="0"))    # C4QualityFilter rewrites doc.text: a fresh one
            kept, reason = verdict if isinstance(verdict, tuple) else (verdict, None)
            if not kept:
                return f"{name}:{reason}"
        return None
