"""Language identification of a document's main text, the same for every cleaner (`documents.language`).

Two offline detectors whose models ship in their wheels (no download at run time):

- `resiliparse`: `resiliparse.parse.lang.detect_fast`, byte n-gram profiles of 101 languages compared by
  out-of-place rank (lower is closer). Already a dependency. Its score here is `1 - rank / 1200` clipped to
  [0, 1] (1200 is its own "usually false above this" cutoff): 1 means identical to the profile; not a probability.
- `py3langid` (the default): langid.py's naive Bayes model (97 languages with an ISO 639-1 code, plus
  varieties such as Cantonese, folded into their macrolanguage); with `norm_probs` its score is a probability.

`scripts/bench/bench_language.py` compares them on speed and on agreement with CLD2
(docs/language.md#choosing-the-detector). Codes are ISO 639-1 (`iso639_1`); a text with fewer than
`min_chars` letters gets none.
"""

from __future__ import annotations

import functools
import importlib.util
import logging
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .native import load_native

__all__ = ["DETECTORS", "LanguageID", "build_detector", "identify_language", "iso639_1", "language_of"]

log = logging.getLogger(__name__)
_failed: set[str] = set()  # detectors whose failure was logged in this process

DETECTORS = ("py3langid", "resiliparse")  # the default first
_RANK_CUTOFF = 1200  # resiliparse: "values above 1200 are usually false results" (detect_fast's docstring)
# Old or non-ISO codes the detectors (and CLD2, the reference) give for languages that have an ISO 639-1 code.
_ALIASES = {"iw": "he", "jw": "jv", "in": "id", "ji": "yi", "mo": "ro", "tw": "ak", "zh-hant": "zh", "zh-hans": "zh",
            "fil": "tl", "nb": "no", "nn": "no",
            # py3langid's varieties of a macrolanguage that has a code (Cantonese, Wu, Egyptian Arabic, ...)
            "yue": "zh", "wuu": "zh", "arz": "ar", "ary": "ar", "uzs": "uz", "gug": "gn", "sdh": "ku"}
_NOT_LETTERS = re.compile(r"[\W\d_]+")

Detect = Callable[[str], tuple[str, float]]


@dataclass(frozen=True, slots=True)
class LanguageID:
    """How `documents.language` is filled (the `clean.language_*` settings of conf/jobs.toml).

    Attributes:
        detector: one of DETECTORS, or "none" to leave language null.
        min_chars: a text with fewer letters (in its first `max_chars`) gets no language (null): digits,
            punctuation and spaces do not count.
        max_chars: only the first this many characters are looked at (time grows with length, the verdict
            hardly does past a few thousand).
    """

    detector: str = "py3langid"
    min_chars: int = 50
    max_chars: int = 1000

    def __post_init__(self) -> None:
        if self.detector not in (*DETECTORS, "none"):
            raise ValueError(f"language detector must be one of {', '.join(DETECTORS)}, none; got {self.detector!r}")
        if self.detector == "py3langid" and importlib.util.find_spec("py3langid") is None:
            # said when the settings are built, not on the first page in a worker
            raise ValueError("language detector py3langid is not installed (pip install py3langid)")


def iso639_1(code: str | None) -> str | None:
    """A detector's (or CLD2's) language code as ISO 639-1, or None when it has none (`un`, `xxx`, `und`).

    `zh-Hant` -> `zh`, `iw` -> `he`, `pt-BR` -> `pt`; three-letter codes without a two-letter one are None.
    """
    if not code:
        return None
    code = _ALIASES.get(code.strip().lower(), code.strip().lower())
    base = code.replace("_", "-").split("-", 1)[0]
    base = _ALIASES.get(base, base)
    return base if len(base) == 2 and base.isalpha() and base != "un" else None


def build_detector(detector: str) -> Detect:
    """A function text -> (raw code, score in [0, 1]) for one of DETECTORS; builds its model once.

    Raises:
        ValueError: an unknown detector.
        ImportError: its package is not installed (py3langid is optional).
    """
    if detector == "resiliparse":
        from resiliparse.parse.lang import detect_fast

        def resiliparse_detect(text: str) -> tuple[str, float]:
            # no cutoff: the best profile always comes back; a far one shows in the score, not as null
            code, rank = detect_fast(text, cutoff=1 << 30)
            return code, max(0.0, 1.0 - rank / _RANK_CUTOFF)

        return resiliparse_detect
    if detector == "py3langid":
        from py3langid.langid import MODEL_FILE, LanguageIdentifier

        identifier = _walk_in_c(LanguageIdentifier).from_model_file(MODEL_FILE, norm_probs=True)

        def py3langid_detect(text: str) -> tuple[str, float]:
            # a language without an ISO 639-1 code (Bikol, `bcl`) came first on 6 of 532 real texts with >= 50
            # letters (ClueWeb09 directory pages listing language names): the best one with a code is taken,
            # its low probability says the rest; `zxx` (no linguistic content) is skipped the same way
            ranked = identifier.rank(text)
            code, probability = next(((c, p) for c, p in ranked if iso639_1(c)), ranked[0])
            return code, float(probability)

        return py3langid_detect
    raise ValueError(f"unknown language detector {detector!r}; known: {', '.join(DETECTORS)}")


def _walk_in_c(identifier_class: type) -> type:
    """py3langid's identifier class with its n-gram automaton walked in C (models/page/_clangid.c: the same counts
    in the same order, so the same scores), or the class itself where the extension is not built or py3langid's
    internals are not those of 0.4 (its tables, `_raw_score`, `_sparse_score`). tests/models/test_language_c.py
    compares the two on real pages in many languages."""
    clangid = load_native("page._clangid")
    internals = ("tk_nextmove", "_rowbase", "tk_output", "nb_ptc", "_raw_score", "_sparse_score")
    if clangid is None or not all(hasattr(identifier_class, name) for name in internals):
        return identifier_class

    class CWalkIdentifier(identifier_class):
        __slots__ = ("_c_tables",)

        def _raw_score(self, text: bytes) -> np.ndarray:
            tables = getattr(self, "_c_tables", None)
            if tables is None:
                nextmove = self.tk_nextmove         # array('I'): 39 MB, read in place; anything else copied
                view = memoryview(nextmove)
                if view.format != "I" or view.itemsize != 4:
                    nextmove = np.asarray(nextmove, dtype=np.uint32)
                tables = self._c_tables = (nextmove, np.asarray(self._rowbase, dtype=np.uint32),
                                           np.asarray(self.tk_output, dtype=np.int32), len(self.nb_ptc))
            visits = clangid.visit_counts(*tables, text)
            # no feature at all: py3langid's own answer (its fill value), the walk redone in Python on this rare text
            return super()._raw_score(text) if visits is None else self._sparse_score(visits, self.nb_ptc)

    return CWalkIdentifier


def identify_language(text: str | None, detect: Detect, settings: LanguageID) -> tuple[str | None, float | None]:
    """(ISO 639-1 code, score) of a text, or (None, None) when it is too short or the detector has no code for it.

    Args:
        text: the document's main text (None or empty: no language).
        detect: from `build_detector(settings.detector)`.
        settings: the thresholds.
    """
    sample = (text or "")[:settings.max_chars]
    if len(sample) < settings.min_chars or len(_NOT_LETTERS.sub("", sample)) < settings.min_chars:
        return None, None
    sample = unicodedata.normalize("NFC", sample)  # resiliparse's profiles are NFC
    code, score = detect(sample)
    code = iso639_1(code)
    return (code, round(score, 4)) if code else (None, None)


@functools.cache
def _cached_detector(name: str) -> Detect:
    """The detector, built once per process (py3langid loads a 4.5 MB model)."""
    return build_detector(name)


def language_of(text: str | None, settings: LanguageID) -> tuple[str | None, float | None]:
    """`identify_language` with this process's detector for `settings.detector`, built once.

    A text the detector chokes on gets (None, None), logged once per detector and process: a language is
    a label, never a reason to fail a page.
    """
    try:
        return identify_language(text, _cached_detector(settings.detector), settings)
    except Exception as exc:  # noqa: BLE001 - see the docstring
        if settings.detector not in _failed:
            _failed.add(settings.detector)
            log.warning("language detector %s failed on a text (%s: %s); its language is left null, further "
                        "failures are not logged", settings.detector, type(exc).__name__, str(exc)[:200])
        return None, None
