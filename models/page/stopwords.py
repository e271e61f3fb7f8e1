"""Stop words for the language of a page, for the text features that count them (Web2Text's b7/b8 and their
ancestor copies, which BlockNet reads).

Web2Text counts English stop words; on a German or Polish page those features say "no prose here" for every
block. The lists come from jusText (`justext.get_stoplist`, about 100 languages, Wikipedia-derived, maintained
with the package); English keeps the paper's list (`stopwords_en.txt`), so English pages get the features the
models were trained on. A language without a list (Chinese, Japanese, any code the detector gives that jusText
lacks) falls back to the page itself: its most frequent short words, which in any language written with spaces
are its function words, and in one written without spaces are none (the features are then 0, as the clip of
the model's inputs expects of an unknown page).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import cache

from .language import LanguageID, language_of

__all__ = ["JUSTEXT_NAMES", "language_stopwords", "page_stopwords", "stopwords_for", "text_language"]

# ISO 639-1 -> jusText's list name, for every language both know (the detectors give ISO 639-1 codes)
JUSTEXT_NAMES = {
    "af": "Afrikaans", "sq": "Albanian", "ar": "Arabic", "an": "Aragonese", "hy": "Armenian", "ast": "Asturian",
    "az": "Azerbaijani", "eu": "Basque", "be": "Belarusian", "bn": "Bengali", "bs": "Bosnian", "br": "Breton",
    "bg": "Bulgarian", "ca": "Catalan", "cv": "Chuvash", "hr": "Croatian", "cs": "Czech", "da": "Danish",
    "nl": "Dutch", "eo": "Esperanto", "et": "Estonian", "fi": "Finnish", "fr": "French", "gl": "Galician",
    "ka": "Georgian", "de": "German", "el": "Greek", "gu": "Gujarati", "ht": "Haitian", "he": "Hebrew",
    "hi": "Hindi", "hu": "Hungarian", "is": "Icelandic", "io": "Ido", "ig": "Igbo", "id": "Indonesian",
    "ga": "Irish", "it": "Italian", "jv": "Javanese", "kn": "Kannada", "kk": "Kazakh", "ko": "Korean",
    "ku": "Kurdish", "ky": "Kyrgyz", "la": "Latin", "lv": "Latvian", "lt": "Lithuanian", "lb": "Luxembourgish",
    "mk": "Macedonian", "ms": "Malay", "ml": "Malayalam", "mt": "Maltese", "mr": "Marathi", "ne": "Nepali",
    "no": "Norwegian_Bokmal", "nb": "Norwegian_Bokmal", "nn": "Norwegian_Nynorsk", "oc": "Occitan",
    "fa": "Persian", "pl": "Polish", "pt": "Portuguese", "qu": "Quechua", "ro": "Romanian", "ru": "Russian",
    "sr": "Serbian", "sh": "Serbo_Croatian", "sk": "Slovak", "sl": "Slovenian", "es": "Spanish", "su": "Sundanese",
    "sw": "Swahili", "sv": "Swedish", "tl": "Tagalog", "ta": "Tamil", "te": "Telugu", "tr": "Turkish",
    "tk": "Turkmen", "uk": "Ukrainian", "ur": "Urdu", "uz": "Uzbek", "vi": "Vietnamese", "vo": "Volapuk",
    "wa": "Walloon", "cy": "Welsh", "fy": "West_Frisian", "yo": "Yoruba",
}
PAGE_STOPWORDS = 30          # the fallback: this many most frequent words of the page ...
_SHORT = 4                   # ... of at most this many characters
_WORD = re.compile(r"\w+")


@cache
def stopwords_for(language: str | None) -> frozenset[str] | None:
    """The stop words of an ISO 639-1 language: the paper's English list for "en", jusText's list for the others
    it knows; None for a language without a list (or None)."""
    if language == "en":
        from ..web2text.features import stopwords
        return stopwords()
    name = JUSTEXT_NAMES.get(language or "")
    if name is None:
        return None
    import justext
    # jusText's lists hold some tokens no word count can match ('"die', 'ab.'): only whole \w+ words are kept
    return frozenset(w.lower() for w in justext.get_stoplist(name) if _WORD.fullmatch(w))


def page_stopwords(texts: Iterable[str]) -> frozenset[str]:
    """The fallback list: the page's `PAGE_STOPWORDS` most frequent words of up to `_SHORT` characters (lower
    case), those that occur at least twice."""
    counts = Counter(w for t in texts for w in _WORD.findall(t.lower()) if len(w) <= _SHORT and not w.isdigit())
    return frozenset(w for w, n in counts.most_common(PAGE_STOPWORDS) if n >= 2)


def _prose_sample(texts: Sequence[str], chars: int) -> str:
    """The page's longest texts up to `chars` characters: its prose, not the menus that open it."""
    out, n = [], 0
    for t in sorted(texts, key=len, reverse=True):
        out.append(t)
        n += len(t)
        if n >= chars:
            break
    return " ".join(out)


def text_language(texts: Sequence[str]) -> str | None:
    """The ISO 639-1 language of a page's block texts by the pipeline's default detector (`LanguageID()`:
    py3langid, the first 1,000 characters) on its longest blocks, or None for too little text."""
    settings = LanguageID()
    return language_of(_prose_sample(texts, settings.max_chars), settings)[0]


def language_stopwords(texts: Sequence[str]) -> frozenset[str]:
    """The stop words of the page's language (`text_language`), or the page's own (`page_stopwords`) for a
    language without a list."""
    return stopwords_for(text_language(texts)) or page_stopwords(texts)
