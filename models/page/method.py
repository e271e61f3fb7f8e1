"""The method contract: the base every method derives from, and the three kinds.

A method is built once per worker from its frozen settings, then `process`es one parsed page at a
time (or a batch: `process_batch`). What it returns tells its kind: derive from `Cleaner`,
`Extractor` or `Segmenter`, which fix `result_type`. Everything a method does not say is decided by
the runner (`models/page/runner.py`) and the UDF adapter: parsing, timing, the page deadline,
exceptions turned into status rows, the output table.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Literal

from pagesieve.settings import NoSettings, Settings

from .parse import ParsedPage
from .result import CleanResult, ExtractResult, Result, SegmentResult

__all__ = ["Method", "Cleaner", "Extractor", "Segmenter", "NEEDS", "GROUPINGS", "Needs"]

Needs = Literal["markup", "tree", "rendered"]
# What a method reads from the ParsedPage it gets:
#   markup    the decoded HTML (`page.markup`), parsed by the method's own library (the peers); our parse
#             is not charged to it in the evaluation's timing
#   tree      our lxml tree (`page.root`)
#   rendered  a rendering of `page.markup` by a browser the method owns (built on first use, shut in close())
NEEDS: tuple[str, ...] = ("markup", "tree", "rendered")
# How pages reach `process_batch`: None = any batch the adapter forms; "site" = all the pages of one site
# (host of the URL) in one call, for methods that learn from several pages of a site at once.
GROUPINGS: tuple[str | None, ...] = (None, "site")


class Method:
    """Base of every method. A concrete method sets `name` and `settings_class` and derives from one kind.

    Attributes:
        name: registry name; with `version` it lands in the output's `method` column as "name/version".
        version: bump when the output changes.
        settings_class: the frozen `Settings` dataclass the constructor takes (defaults in `conf/`).
        result_type: set by the kind (`Cleaner`, `Extractor`, `Segmenter`); the kind is `result_type.kind`.
        needs: what the method reads from a page (see NEEDS).
        group_by: None, or "site" when `process_batch` must get all the pages of a site at once.
        batched: `process_batch` does real batching (one forward pass per batch); else the runner
            calls `process` page by page, each under its own deadline.
    """

    name: ClassVar[str]
    version: ClassVar[int] = 1
    settings_class: ClassVar[type[Settings]] = NoSettings
    result_type: ClassVar[type]
    needs: ClassVar[Needs] = "tree"
    group_by: ClassVar[str | None] = None
    batched: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.needs not in NEEDS:
            raise TypeError(f"{cls.__name__}.needs must be one of {NEEDS}, got {cls.needs!r}")
        if cls.group_by not in GROUPINGS:
            raise TypeError(f"{cls.__name__}.group_by must be one of {GROUPINGS}, got {cls.group_by!r}")

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings if settings is not None else self.settings_class.load()

    @classmethod
    def kind(cls) -> str:
        """"cleaner", "extractor" or "segmenter" (told by the result type)."""
        result_type = getattr(cls, "result_type", None)
        if result_type is None:
            raise TypeError(f"{cls.__name__} derives from no kind: use Cleaner, Extractor or Segmenter")
        return result_type.kind

    @property
    def method_id(self) -> str:
        """The `method` column's value: "name/version"."""
        return f"{self.name}/{self.version}"

    def process(self, page: ParsedPage) -> Result:
        raise NotImplementedError

    def batches(self) -> bool:
        """Whether the runner gives this instance a batch of pages at once (`batched` or `group_by`), or page by
        page. A method whose batching pays only on some devices overrides it (BlockNet: only on CUDA)."""
        return self.batched or self.group_by is not None

    def process_batch(self, pages: Sequence[ParsedPage]) -> list[Result]:
        """One result per page, in order (one by one unless the method batches)."""
        return [self.process(p) for p in pages]

    # A batched method may split `process_batch` in two stages, so that the runner can keep each page to its own
    # deadline and time (runner.py, "Batches"): `batch_inputs` is one page's own work (its features), timed and
    # guarded per page; `batch_results` is the work the pages share (one forward pass), whose time the runner
    # splits by `batch_weight` (blocknet, web2text: blocks). A method that does not split them gets one shared
    # stage, `process_batch`, split equally between its pages.

    def batch_inputs(self, page: ParsedPage) -> Any:
        """One page's own part of `process_batch`: its inputs to `batch_results`, or already its Result (a page
        refused at this stage, e.g. `too_large`)."""
        return page

    def batch_weight(self, inputs: Any) -> float:
        """The page's share of `batch_results`' time, relative to the other pages of the batch."""
        return 1.0

    def batch_results(self, inputs: Sequence[Any]) -> list[Result]:
        """The shared part: one result per `batch_inputs` value, in order."""
        return self.process_batch(inputs)

    def close(self) -> None:
        """Release what the method holds outside Python's memory (a browser, a GPU context). Idempotent."""

    def __enter__(self) -> Method:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Cleaner(Method):
    """Returns the main content of a page -> `documents`."""

    result_type = CleanResult

    def process(self, page: ParsedPage) -> CleanResult:
        raise NotImplementedError


class Extractor(Method):
    """Returns zero or more records of a page -> `records`."""

    result_type = ExtractResult

    def process(self, page: ParsedPage) -> ExtractResult:
        raise NotImplementedError


class Segmenter(Method):
    """Returns the block tree of a page -> `segments`."""

    result_type = SegmentResult

    def process(self, page: ParsedPage) -> SegmentResult:
        raise NotImplementedError
