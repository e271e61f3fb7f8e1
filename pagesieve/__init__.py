"""pagesieve: web page cleaning and structured extraction, from one laptop to a Spark cluster.

The library front door is `pagesieve.extract(html)` (one page in, a `pagesieve.Document` out, no Spark);
the command line is `pagesieve --help`. Both are documented in README.md.

This folder is also the foundation every layer imports: the table schemas (`pagesieve.schemas`) and the
typed settings (`pagesieve.settings`), which import nothing above them. `extract` and `Document` live in
`pagesieve.models.library` and are imported on first use (PEP 562), so importing the foundation never
loads the methods and the layers keep pointing one way. The design-card folders (jobs/, udfs/, models/,
...) are mapped into this namespace by setup.py (`pip install -e .`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["extract", "Document", "__version__"]

if TYPE_CHECKING:
    from pagesieve.models.library import Document, extract


def __getattr__(name: str) -> Any:
    if name in ("extract", "Document"):
        from pagesieve.models import library

        return getattr(library, name)
    raise AttributeError(f"module 'pagesieve' has no attribute {name!r}")
