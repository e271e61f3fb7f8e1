"""The evaluation harness: every method, ours and the peers, through the same loop and the same clock.

Per page, the decoding and parsing that pagesieve shares between methods is done and timed once;
then each method runs on that page, in an order that rotates from page to page so that machine
noise hits all methods alike. A method's time per page is decode + its own work, plus the lxml
parse when it uses our tree (`uses_tree`); peers that parse the markup themselves pay their own
parse inside `process`. Everything runs in one process, after a warm-up; peak memory is measured
per method in a fresh subprocess (`pagesieve.eval.memory`), where it cannot be confused with the
other methods'.

Block level (`blocks=True`, Web2Text's Table 1 measure): each page is cut into Web2Text's DOM-leaf blocks
and the gold text labels them (`label_blocks`, content iff >= 2/3 of a block's text aligns). A method that
labels blocks itself (`predict_blocks`) is scored on its own labels; any other method's output text labels
the blocks the same way the gold does, so every method gets block scores. This runs outside the clock.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pagesieve.models.page import PageError, ParsedPage, decode_body, one_line, page_from_decoded
from pagesieve.models.registry import CleanMethod, build_method

from .datasets import GoldPage
from .metrics import PRF, bag_of_words_prf, block_scores, exact_match, shingle_prf

__all__ = ["PageScore", "build_methods", "evaluate_pages"]

log = logging.getLogger(__name__)


@dataclass(slots=True)
class PageScore:
    """One method on one page: its scores, its status and its time."""

    dataset: str
    page_id: str
    method: str
    status: str
    bow: PRF          # bag-of-words token scores
    shingles: PRF     # word 4-gram shingle scores (article-extraction-benchmark)
    exact: bool
    ms: float
    n_chars: int
    error: str | None = None
    blocks: tuple[int, int, int, int] | None = None   # block-level tp, fp, fn, tn (evaluate_pages blocks=True)

    def row(self) -> dict[str, Any]:
        """A flat dict for the per-page CSV."""
        return {"dataset": self.dataset, "page_id": self.page_id, "method": self.method, "status": self.status,
                "bow_precision": round(self.bow.precision, 4), "bow_recall": round(self.bow.recall, 4),
                "bow_f1": round(self.bow.f1, 4), "shingle_precision": round(self.shingles.precision, 4),
                "shingle_recall": round(self.shingles.recall, 4), "shingle_f1": round(self.shingles.f1, 4),
                "exact": self.exact, "ms": round(self.ms, 3), "n_chars": self.n_chars, "error": self.error or "",
                **dict(zip(("block_tp", "block_fp", "block_fn", "block_tn"), self.blocks or ("",) * 4, strict=True))}


def build_methods(names: Sequence[str], settings: dict[str, dict[str, Any]] | None = None
                  ) -> tuple[dict[str, CleanMethod], dict[str, str]]:
    """Build each named method; a method that cannot be built is skipped with the reason.

    Returns:
        ({name: method}, {name: reason skipped}). Reasons: an unknown method name, or a missing
        optional package (the ImportError's message names it).
    """
    built: dict[str, CleanMethod] = {}
    skipped: dict[str, str] = {}
    for name in names:
        try:
            built[name] = build_method(name, (settings or {}).get(name))
        except ImportError as exc:
            skipped[name] = f"missing package: {exc}"
        except ValueError as exc:
            skipped[name] = str(exc)
        if name in skipped:
            log.warning("skipping method %s: %s", name, skipped[name])
    return built, skipped


def _prepare(page: GoldPage) -> tuple[ParsedPage | None, str | None, float, float]:
    """Decode and parse once: (page or None, error status, decode ms, parse ms)."""
    start = time.perf_counter()
    decoded = decode_body(page.html)
    decoded_at = time.perf_counter()
    try:
        parsed = page_from_decoded(decoded, url=page.url, page_id=page.page_id)
    except PageError as exc:
        now = time.perf_counter()
        return None, exc.status, (decoded_at - start) * 1000, (now - decoded_at) * 1000
    return parsed, None, (decoded_at - start) * 1000, (time.perf_counter() - decoded_at) * 1000


def _score(dataset: str, page: GoldPage, name: str, status: str, text: str, ms: float,
           error: str | None) -> PageScore:
    bow, shingles = bag_of_words_prf(text, page.gold), shingle_prf(text, page.gold)
    return PageScore(dataset, page.page_id, name, status, bow, shingles, exact_match(text, page.gold), ms,
                     len(text), error)


def _gold_blocks(parsed: ParsedPage, gold: str) -> tuple[Any, list[bool]]:
    from pagesieve.models.web2text import label_blocks, page_blocks  # torch only when blocks are asked for

    blocks = page_blocks(parsed)
    return blocks, label_blocks(blocks.text, gold)


def _block_counts(method: CleanMethod, blocks: Any, gold: list[bool], text: str) -> tuple[int, int, int, int]:
    from pagesieve.models.web2text import label_blocks

    if hasattr(method, "predict_blocks"):
        predicted = [bool(x) for x in method.predict_blocks([blocks])[0]]
    else:
        predicted = label_blocks(blocks.text, text)
    s = block_scores(predicted, gold)
    return s["tp"], s["fp"], s["fn"], s["tn"]


def evaluate_pages(dataset: str, pages: Sequence[GoldPage], methods: dict[str, CleanMethod],
                   warmup: int = 20, blocks: bool = False) -> list[PageScore]:
    """Score and time every method on every page (see the module docstring for how time is counted).

    A page our parser rejects scores as an empty extraction for every method (status from the
    parser); a method that raises on a page scores as empty with status `error`. With `blocks`, each
    score also carries block-level counts (pages our parser rejects have none).
    """
    names = list(methods)
    for page in pages[:warmup]:
        parsed, _, _, _ = _prepare(page)
        for name in names:
            if parsed is not None:
                with contextlib.suppress(Exception):  # warm-up only: failures are scored below
                    methods[name].process(parsed)
    scores: list[PageScore] = []
    for i, page in enumerate(pages):
        parsed, failed, decode_ms, parse_ms = _prepare(page)
        page_blocks = _gold_blocks(parsed, page.gold) if blocks and parsed is not None else None
        for k in range(len(names)):
            name = names[(i + k) % len(names)]
            method = methods[name]
            shared = decode_ms + (parse_ms if getattr(method, "uses_tree", True) else 0.0)
            if parsed is None:
                scores.append(_score(dataset, page, name, failed or "error", "", shared, "page rejected by parser"))
                continue
            start = time.perf_counter()
            try:
                result = method.process(parsed)
                status, text, error = result.status, result.text, result.error
            except Exception as exc:  # noqa: BLE001 - a failing method is scored, not fatal
                status, text, error = "error", "", one_line(exc)
            ms = shared + (time.perf_counter() - start) * 1000
            scores.append(_score(dataset, page, name, status, text, ms, error))
            if page_blocks is not None:
                scores[-1].blocks = _block_counts(method, *page_blocks, text)
        if (i + 1) % 100 == 0:
            log.info("%s: %d/%d pages", dataset, i + 1, len(pages))
    return scores
