"""boilerpy3 (the Python port of boilerpipe) behind the method interface."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from pagesieve.settings import Settings

from ..page import Cleaner, CleanResult, ParsedPage, join_paragraphs, page_markup, page_title

__all__ = ["BoilerPy3", "BoilerPy3Settings", "EXTRACTORS"]

EXTRACTORS = frozenset({"ArticleExtractor", "DefaultExtractor", "KeepEverythingExtractor", "LargestContentExtractor"})


@dataclass(frozen=True, slots=True)
class BoilerPy3Settings(Settings):
    extractor: str = "ArticleExtractor"   # one of EXTRACTORS


class BoilerPy3(Cleaner):
    """`boilerpy3.extractors.<extractor>().get_content(html)`: boilerpipe's shallow text-block features.

    Known failure modes: boilerpy3 parses with Python's `html.parser` and raises
    `boilerpy3.exceptions.HTMLExtractionError` on markup it cannot handle; the exception is left to
    propagate on purpose (the UDF layer turns it into a status row). It scores text blocks only, so
    on pages of short blocks (listings, forums) the article extractor may keep nothing or the wrong
    block. An unknown `extractor` fails at construction (ValueError).
    """

    name = "boilerpy3"
    needs = "markup"    # parses page.markup itself
    settings_class = BoilerPy3Settings

    def __init__(self, settings: BoilerPy3Settings | None = None) -> None:
        try:
            from boilerpy3 import extractors
        except ImportError as exc:
            raise ImportError("boilerpy3 peer needs `pip install boilerpy3`") from exc
        self.settings = settings or BoilerPy3Settings()
        if self.settings.extractor not in EXTRACTORS:
            raise ValueError(f"extractor {self.settings.extractor!r}; known: {sorted(EXTRACTORS)}")
        self._extractor = getattr(extractors, self.settings.extractor)()
        # boilerpy3 logs a traceback at ERROR for every page its SAX parser gives up on; the failure is
        # already a status row (`error`) here, so its log would only repeat it, once per page.
        logging.getLogger("boilerpy3").setLevel(logging.CRITICAL)

    def process(self, page: ParsedPage) -> CleanResult:
        html = page_markup(page)
        text = join_paragraphs(self._extractor.get_content(html) or "")
        return CleanResult(status="ok" if text else "empty", title=page_title(page.root), text=text)
