"""The naive baseline: every visible character of the page body, no boilerplate removed."""

from __future__ import annotations

from dataclasses import dataclass

from pagesieve.settings import Settings

from ..page import Cleaner, CleanResult, ParsedPage, page_title, visible_text

__all__ = ["AllVisibleText", "AllVisibleTextSettings"]


@dataclass(frozen=True, slots=True)
class AllVisibleTextSettings(Settings):
    """No settings: the baseline has no knobs."""


class AllVisibleText(Cleaner):
    """`pagesieve.models.page.visible_text(page.body)`: all rendered text, menus and footers included.

    The floor every boilerplate remover must beat on precision (its recall is the ceiling). No
    library; it reads our tree without mutating it. Known failure modes: text drawn by scripts is
    missing (scripts are not run), and text hidden by CSS (`display:none`) is kept.
    """

    name = "all_text"
    settings_class = AllVisibleTextSettings

    def __init__(self, settings: AllVisibleTextSettings | None = None) -> None:
        self.settings = settings or AllVisibleTextSettings()

    def process(self, page: ParsedPage) -> CleanResult:
        text = visible_text(page.body)
        return CleanResult(status="ok" if text else "empty", title=page_title(page.root), text=text)
