"""Hostile pages against the block methods' memory (hostile-pass issue, items 8 and 9): a page over a limit gets
`too_large` while its blocks are being built, before it can take the worker's memory; and pages of long unique
attribute values leave nothing behind in the per-process caches.

The pages are generated: a 3 MB page of 200,000 tiny inline elements (`<span>a</span>`, one block each), and the
same without text (elements, no blocks). Memory is measured in scripts/bench_page_memory.py; here tracemalloc's
peak of the method's Python allocations shows that it stops at the limit instead of building every block.
"""

from __future__ import annotations

import gc
import tracemalloc

import pytest

from pagesieve.models.page import PageInput, prepare
from pagesieve.models.page.context import attribute_bits
from pagesieve.models.registry import build_method

SPANS = 200_000
SMALL = b"<html><body><p>" + b"A short page with one paragraph of text. " * 20 + b"</p></body></html>"


def parsed(body: bytes):
    return prepare(PageInput(body)).page


def spans(n: int, inner: bytes = b"a") -> bytes:
    return b"<html><body>" + (b"<span>" + inner + b"</span>") * n + b"</body></html>"


@pytest.mark.parametrize("name", ["blocknet", "web2text"])
@pytest.mark.parametrize("inner", [b"a", b""], ids=["blocks", "elements"])
def test_a_page_over_the_limit_is_too_large_before_its_blocks_are_built(name: str, inner: bytes) -> None:
    method = build_method(name, {"device": "cpu", "max_blocks": 1000})
    hostile, small = parsed(spans(SPANS, inner)), parsed(SMALL)
    method.process_batch([small])       # first use loads what a page needs once per worker (the language model)
    tracemalloc.start()
    try:
        results = method.process_batch([hostile, small])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert results[0].status == "too_large" and f"{name}.max_blocks = 1000" in results[0].error
    assert results[1] == method.process_batch([small])[0] and results[1].status == "ok"
    # without the limit (blocknet) this peaks at 440 MB for the 200,000 blocks, 80 MB for the 200,000 empty
    # elements; stopped at 1,000 blocks (10,000 nodes), a few MB with the small page and first-use imports
    assert peak < 20_000_000, f"{peak / 1e6:.1f} MB allocated: the walk did not stop at the limit"


def unique_attributes(page: int, elements: int = 500, chars: int = 4000) -> bytes:
    """A page whose every element has its own long class and id (generated ids, tracking blobs, inline JSON)."""
    pad = b"q" * chars
    return b"<html><body>" + b"".join(b'<div class="c%d-%d %s" id="i%d-%d %s">text %d</div>' % (page, i, pad, page, i,
                                                                                                  pad, i)
                                      for i in range(elements)) + b"</body></html>"


@pytest.mark.slow  # 40 pages of 50 kB attribute values through each method
@pytest.mark.parametrize("name", ["blocknet", "web2text"])
def test_long_unique_attributes_leave_nothing_behind_in_the_caches(name: str) -> None:
    method = build_method(name, {"device": "cpu"})
    pages = [parsed(unique_attributes(i)) for i in range(20)]      # 20 x 1,000 values of 4 kB: 80 MB of values
    method.process_batch(pages[:1])                                # first-use imports and buffers, before tracing
    gc.collect()
    tracemalloc.start()
    try:
        for page in pages[1:]:
            assert method.process(page).status == "ok"
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    # a cache keyed by whole values keeps up to 16,384 of them (64 MB here); bounded keys keep a few MB at most
    assert kept < 8_000_000, f"{kept / 1e6:.1f} MB kept after the pages were done"


def test_context_bits_of_long_values_are_those_of_short_ones() -> None:
    pad = "q" * 5000
    for value in ("post-content", "commentlist", "nav menu", "Share-Bär", "x y z"):
        assert attribute_bits("class", f"{value} {pad}") == attribute_bits("class", value)
        assert attribute_bits("id", f"{pad} {value}") == attribute_bits("id", value)
    assert attribute_bits("style", f"color: red; {pad}; display: none") == attribute_bits("style", "display:none") != 0
    assert attribute_bits("role", f"{pad}navigation") == attribute_bits("role", "qnavigation")
