"""The pages a cleaner's training and its leave-one-benchmark-out selection read: a benchmark pool's split, or an
added source (`ADDED_SOURCES`) that has content labels but is not a main-text benchmark, so it trains in every
fold and is never a left-out pool. scripts/train/train_blocknet.py and scripts/eval/lobo_blocknet.py both read
their pages here, so that what is selected is what ships."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from pagesieve.eval.datasets import GoldPage, iter_gold_pages
from pagesieve.eval.listings import iter_listing_gold_pages
from pagesieve.eval.swde import iter_book_gold_pages

__all__ = ["ADDED_SOURCES", "DEFAULT_ADDED_SOURCES", "added_sources", "source_pages"]

_ADDED_READERS: dict[str, Callable[[Path], Iterator[GoldPage]]] = {
    "listings": lambda data: iter_listing_gold_pages(data / "listings"),
    "books": lambda data: iter_book_gold_pages(data / "swde"),
}

ADDED_SOURCES = tuple(_ADDED_READERS)
"""`listings`: the listing pages with record truth, whose records stand for a listing page's content; `books`:
40 of SWDE's booksamillion detail pages, whose title, author, description and details stand for a product page's
content (eval/swde.py `iter_book_gold_pages`)."""

DEFAULT_ADDED_SOURCES = ("listings",)
"""The added sources the default model trains on (`train_blocknet.py`'s and `lobo_trees.py`'s default)."""


def source_pages(data: Path, source: str, part: str) -> Iterator[GoldPage]:
    """The gold pages of one part of a training source under the data folder: a benchmark's split
    (`iter_gold_pages`), or for an added source, which has no splits, every page as part `fit`."""
    if source not in _ADDED_READERS:
        yield from iter_gold_pages(data / source, part)
    elif part == "fit":
        yield from _ADDED_READERS[source](data)


def added_sources(names: str) -> tuple[str, ...]:
    """The added sources a command line names (`--add-pools`, comma-separated; '' for none).

    Raises:
        ValueError: a name is not one of `ADDED_SOURCES`.
    """
    chosen = tuple(name for name in names.split(",") if name)
    unknown = sorted(set(chosen) - set(ADDED_SOURCES))
    if unknown:
        raise ValueError(f"--add-pools takes {', '.join(ADDED_SOURCES)}, not {', '.join(unknown)}")
    return chosen
