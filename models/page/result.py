"""What a method returns for one page: a value, with the status that explains it.

The result type tells the method's kind (docs/design.md#method-interface): a cleaner returns a `CleanResult`
(a `documents` row), an extractor an `ExtractResult` (zero or more `records` rows), a segmenter a
`SegmentResult` (the `segments` rows of a block tree). Every result type can stand for a page that
failed before or inside the method (`failure`), so the runner never needs to know the kind.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

__all__ = ["CleanResult", "Field", "Record", "ExtractResult", "BBox", "Segment", "SegmentResult", "Result",
           "RESULT_TYPES"]


@dataclass(frozen=True, slots=True)
class CleanResult:
    """Main content of one page (a row of `documents`, less the columns the UDF layer fills)."""

    kind: ClassVar[str] = "cleaner"

    status: str = "ok"
    title: str | None = None
    text: str = ""
    content_xpaths: tuple[str, ...] = field(default_factory=tuple)
    language: str | None = None
    language_score: float | None = None
    error: str | None = None
    # the peer whose text this is when the method handed the page to one (blocknet's second opinion), else None;
    # documents.method then says so (`blocknet/1+resiliparse`), so a corpus keeps each text's provenance
    text_from: str | None = None

    @property
    def n_chars(self) -> int:
        return len(self.text)

    @property
    def n_words(self) -> int:
        return len(self.text.split())

    @classmethod
    def failure(cls, status: str, error: str | None) -> CleanResult:
        return cls(status=status, error=error)


@dataclass(frozen=True, slots=True)
class Field:
    """One attribute of a record. origin: annotated, inferred, model or voted."""

    name: str
    value: str | None
    xpath: str | None = None
    origin: str = "annotated"
    score: float | None = None


@dataclass(frozen=True, slots=True)
class Record:
    """One object found on a page (a listed property, a book on its detail page)."""

    fields: tuple[Field, ...]
    xpath: str | None = None          # the record's root in the DOM; None for a detail page


@dataclass(frozen=True, slots=True)
class ExtractResult:
    """The records of one page, in page order; `schema` names the domain (real_estate, book, ...)."""

    kind: ClassVar[str] = "extractor"

    status: str = "ok"
    schema: str | None = None
    records: tuple[Record, ...] = ()
    error: str | None = None

    @classmethod
    def failure(cls, status: str, error: str | None) -> ExtractResult:
        return cls(status=status, error=error)


@dataclass(frozen=True, slots=True)
class BBox:
    """A box in CSS pixels of the rendered viewport."""

    x: float
    y: float
    w: float
    h: float


@dataclass(frozen=True, slots=True)
class Segment:
    """One block of the visual block tree; `block_id` is its dotted path (`1`, `1.2`, `1.2.3`)."""

    block_id: str
    parent_id: str | None
    doc: int                          # degree of coherence, 1..10
    bbox: BBox | None = None
    xpaths: tuple[str, ...] = ()
    text: str = ""
    is_main: bool = False


@dataclass(frozen=True, slots=True)
class SegmentResult:
    """The block tree of one page, parents before children."""

    kind: ClassVar[str] = "segmenter"

    status: str = "ok"
    segments: tuple[Segment, ...] = ()
    error: str | None = None

    @classmethod
    def failure(cls, status: str, error: str | None) -> SegmentResult:
        return cls(status=status, error=error)


Result = CleanResult | ExtractResult | SegmentResult

# kind -> result type: the one place where the three kinds are listed
RESULT_TYPES: dict[str, type] = {t.kind: t for t in (CleanResult, ExtractResult, SegmentResult)}
