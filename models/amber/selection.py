"""Which data areas hold results: the checks between Algorithm 3 and Algorithm 4.

Algorithm 2 finds every evenly spaced run of prices, and a modern result page has several that are not
results. The paper's condition R4 says records are multi-attribute objects that carry the regular
attributes; these checks read it on the records Algorithm 3 found, and the last one is our addition:

  - multi-attribute: most records carry text besides their prices; a price filter menu ("500万円以上",
    "$40,000+ (1055)") is as regular as a result list but holds nothing else;
  - varied: three or more records whose prices are all the same value are a repeated banner ("FREE
    Shipping with $34.99 Purchase" in each of groupon's menu entries), not listed objects;
  - main: an area whose records carry less than `min_content_ratio` of the content of the page's largest
    area's records (the main result list) is a teaser strip, a carousel of recommendations or promotion
    tiles around the results (yahoo-fudosan's three carousels, bestbuy's deal tiles). Featured records
    carry as much as regular ones and stay.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence

from lxml import etree

from .segmentation import content_letters, pivot_subtrees

__all__ = ["result_areas"]

Records = list[list[etree._Element]]


def result_areas(areas: Sequence[Records], pivots: Sequence[etree._Element], values: Mapping[etree._Element, str],
                 min_letters: int = 4, min_content_ratio: float = 0.33) -> list[Records]:
    """The areas (each a list of records) that pass the three checks, in their order.

    Args:
        areas: each data area's records, as Algorithm 3 (and the grid step) found them.
        pivots: the page's pivot nodes.
        values: a pivot node's annotated value.
        min_letters: a record with fewer letters outside its pivots is not an object.
        min_content_ratio: an area's median letters per record, relative to the largest area's.
    """
    content = []
    inside = pivot_subtrees(pivots)                 # what content_letters leaves out
    for records in areas:
        letters = [content_letters(r, inside) for r in records]
        rich = sum(n >= min_letters for n in letters)
        if not records or 2 * rich <= len(records):
            continue                                                  # multi-attribute
        in_area = {e for r in records for top in r for e in top.iter()}
        prices = {values[p] for p in pivots if p in in_area}
        if len(records) >= 3 and len(prices) == 1:
            continue                                                  # varied
        content.append((records, statistics.median(letters)))
    if not content:
        return []
    main = max(content, key=lambda item: len(item[0]))[1]
    return [records for records, letters in content if letters >= min_content_ratio * main]
