"""trafilatura's `extract`, as users call it, behind the method interface."""

from __future__ import annotations

from dataclasses import dataclass

from pagesieve.settings import Settings

from ..page import Cleaner, CleanResult, ParsedPage, join_paragraphs, page_markup, page_title

__all__ = ["Trafilatura", "TrafilaturaSettings", "TrafilaturaPrecision", "TrafilaturaPrecisionSettings"]


@dataclass(frozen=True, slots=True)
class TrafilaturaSettings(Settings):
    favor_precision: bool = False
    favor_recall: bool = False
    include_comments: bool = False
    include_tables: bool = True


class Trafilatura(Cleaner):
    name = "trafilatura"
    needs = "markup"    # parses page.markup itself
    settings_class = TrafilaturaSettings

    def __init__(self, settings: TrafilaturaSettings | None = None) -> None:
        import trafilatura

        self.settings = settings or TrafilaturaSettings()
        self._extract = trafilatura.extract

    def process(self, page: ParsedPage) -> CleanResult:
        # trafilatura prunes the tree it is given; it gets its own serialised copy, never ours.
        html = page_markup(page)
        text = self._extract(html, url=page.url, favor_precision=self.settings.favor_precision,
                             favor_recall=self.settings.favor_recall, deduplicate=False,
                             include_comments=self.settings.include_comments,
                             include_tables=self.settings.include_tables) or ""
        text = join_paragraphs(text)
        return CleanResult(status="ok" if text else "empty", title=page_title(page.root), text=text)



@dataclass(frozen=True, slots=True)
class TrafilaturaPrecisionSettings(TrafilaturaSettings):
    favor_precision: bool = True


class TrafilaturaPrecision(Trafilatura):
    """`trafilatura.extract(..., favor_precision=True)`: drops more doubtful blocks than the default.

    Known failure modes: as `Trafilatura`, plus short articles or ones split by inline widgets can
    lose whole paragraphs (recall traded for precision); on non-article pages it more often returns
    nothing (status "empty").
    """

    name = "trafilatura_precision"
    settings_class = TrafilaturaPrecisionSettings

    def __init__(self, settings: TrafilaturaPrecisionSettings | None = None) -> None:
        super().__init__(settings or TrafilaturaPrecisionSettings())
