"""Fixtures shared by the model tests."""

from __future__ import annotations

import itertools

import pytest

from pagesieve.eval import iter_gold_pages
from pagesieve.models.page import ParsedPage, parse_page


@pytest.fixture(scope="session")
def dragnet_pages(shared_data) -> list[ParsedPage]:
    """The first 30 pages of Dragnet's fit part, parsed: real blog and news pages, some of which BlockNet's network
    is unsure of (the cascade's and the second opinion's tests route them)."""
    golds = itertools.islice(iter_gold_pages(shared_data / "dragnet", "fit"), 30)
    return [parse_page(g.html, url=g.url, page_id=g.page_id) for g in golds]
