"""The base every method class derives from: the interface's defaults in one place."""

from __future__ import annotations

from .parse import ParsedPage
from .result import CleanResult

__all__ = ["Method"]


class Method:
    """A cleaning method: `process` one parsed page. Subclasses set `name` and `settings_class`.

    `batched` says whether `process_batch` does real batching (neural methods: one forward pass per
    batch); `uses_tree` whether the method reads our lxml tree, or parses `page.markup` itself (the
    peers), which the evaluation's timing needs to know. `version` goes into `documents.method`.
    """

    name: str
    version = 1
    batched = False
    uses_tree = True

    def process(self, page: ParsedPage) -> CleanResult:
        raise NotImplementedError

    def process_batch(self, pages: list[ParsedPage]) -> list[CleanResult]:
        """One result per page, in order (one by one unless the method batches)."""
        return [self.process(p) for p in pages]
