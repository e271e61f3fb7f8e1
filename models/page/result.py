"""What a cleaning method returns for one page: a value, with the status that explains it."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["CleanResult"]


@dataclass(frozen=True, slots=True)
class CleanResult:
    """Main content of one page (a row of `documents`, less the columns the UDF layer fills)."""

    status: str = "ok"
    title: str | None = None
    text: str = ""
    content_xpaths: tuple[str, ...] = field(default_factory=tuple)
    language: str | None = None
    error: str | None = None

    @property
    def n_chars(self) -> int:
        return len(self.text)

    @property
    def n_words(self) -> int:
        return len(self.text.split())
