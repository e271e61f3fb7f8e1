"""resiliparse's `extract_plain_text(main_content=True)` behind the method interface."""

from __future__ import annotations

from dataclasses import dataclass

from pagesieve.settings import Settings

from ..page import Cleaner, CleanResult, ParsedPage, join_paragraphs, page_markup, page_title

__all__ = ["Resiliparse", "ResiliparseSettings"]


@dataclass(frozen=True, slots=True)
class ResiliparseSettings(Settings):
    main_content: bool = True
    alt_texts: bool = False
    links: bool = False


class Resiliparse(Cleaner):
    name = "resiliparse"
    needs = "markup"    # parses page.markup itself
    settings_class = ResiliparseSettings

    def __init__(self, settings: ResiliparseSettings | None = None) -> None:
        from resiliparse.extract.html2text import extract_plain_text
        from resiliparse.parse.html import HTMLTree

        self.settings = settings or ResiliparseSettings()
        self._extract, self._parse = extract_plain_text, HTMLTree.parse

    def process(self, page: ParsedPage) -> CleanResult:
        tree = self._parse(page_markup(page))
        text = self._extract(tree, main_content=self.settings.main_content, alt_texts=self.settings.alt_texts,
                             links=self.settings.links, preserve_formatting=True)
        text = join_paragraphs(text)
        return CleanResult(status="ok" if text else "empty", title=page_title(page.root), text=text)
