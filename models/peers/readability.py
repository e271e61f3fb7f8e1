"""readability-lxml's `Document.summary` behind the method interface."""

from __future__ import annotations

from dataclasses import dataclass

from pagesieve.settings import Settings

from ..page import (
    Cleaner,
    CleanResult,
    EmptyPageError,
    ParsedPage,
    page_markup,
    page_title,
    parse_html,
    visible_text,
    xml_compatible,
)

__all__ = ["Readability", "ReadabilitySettings"]


@dataclass(frozen=True, slots=True)
class ReadabilitySettings(Settings):
    min_text_length: int = 25    # readability-lxml's defaults
    retry_length: int = 250


class Readability(Cleaner):
    """Mozilla Readability's port: `Document(html).summary(html_partial=True)`, the article as HTML.

    The article HTML is turned into text by our own `parse_html` + `visible_text`, so paragraphs come
    out as in our methods. Known failure modes: `readability.readability.Unparseable` (a ValueError)
    on markup lxml cannot build a tree from; on pages that are not articles (listings, forums, home
    pages) it still returns one block, often the comments or a link list; short articles fall below
    `retry_length` and come back with their neighbours.
    """

    name = "readability"
    needs = "markup"    # parses page.markup itself
    settings_class = ReadabilitySettings

    def __init__(self, settings: ReadabilitySettings | None = None) -> None:
        try:
            from readability import Document
        except ImportError as exc:
            raise ImportError("readability peer needs `pip install readability-lxml`") from exc
        self.settings = settings or ReadabilitySettings()
        self._document = Document

    def process(self, page: ParsedPage) -> CleanResult:
        # A serialised copy, never our tree (the library mutates what it parses); HTML serialisation, not XML.
        # Without the control characters lxml's setters refuse: readability-lxml copies text into new elements
        # and raised Unparseable on any page with one (a vertical tab in CleanEval 161), a browser shows none.
        html = xml_compatible(page_markup(page))
        doc = self._document(html, url=page.url, min_text_length=self.settings.min_text_length,
                             retry_length=self.settings.retry_length)
        summary = doc.summary(html_partial=True)
        try:
            text = visible_text(parse_html(summary)[0])
        except EmptyPageError:
            text = ""
        return CleanResult(status="ok" if text else "empty", title=page_title(page.root), text=text)
