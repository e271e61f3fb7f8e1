"""jusText's `justext` paragraph classifier behind the method interface."""

from __future__ import annotations

from dataclasses import dataclass

from pagesieve.settings import Settings

from ..page import Cleaner, CleanResult, ParsedPage, join_paragraphs, page_markup, page_title

__all__ = ["JusText", "JusTextSettings"]


@dataclass(frozen=True, slots=True)
class JusTextSettings(Settings):
    language: str = "English"        # a name from justext.get_stoplists(); the stoplists ship in the package
    length_low: int = 70             # the thresholds and their defaults are justext's own
    length_high: int = 200
    stopwords_low: float = 0.3
    stopwords_high: float = 0.32
    max_link_density: float = 0.2


class JusText(Cleaner):
    """`justext.justext(html, justext.get_stoplist(language))`, keeping paragraphs with `not p.is_boilerplate`.

    Known failure modes: a paragraph shorter than `length_high` (200 chars) is at best "neargood" and
    survives only next to a good one, so a page made only of short paragraphs comes out all boilerplate
    (status "empty"); text in another language than `language` has few stopwords and is dropped. An
    unknown `language` fails at construction (ValueError from `get_stoplist`).
    """

    name = "justext"
    needs = "markup"    # parses page.markup itself
    settings_class = JusTextSettings

    def __init__(self, settings: JusTextSettings | None = None) -> None:
        try:
            import justext
        except ImportError as exc:
            raise ImportError("justext peer needs `pip install justext`") from exc
        self.settings = settings or JusTextSettings()
        self._justext = justext.justext
        self._stoplist = justext.get_stoplist(self.settings.language)

    def process(self, page: ParsedPage) -> CleanResult:
        s = self.settings
        # A serialised copy, never our tree (the library mutates what it parses); HTML serialisation, not XML.
        html = page_markup(page)
        paragraphs = self._justext(html, self._stoplist, length_low=s.length_low, length_high=s.length_high,
                                   stopwords_low=s.stopwords_low, stopwords_high=s.stopwords_high,
                                   max_link_density=s.max_link_density)
        text = join_paragraphs("\n".join(p.text for p in paragraphs if not p.is_boilerplate))
        return CleanResult(status="ok" if text else "empty", title=page_title(page.root), text=text)
