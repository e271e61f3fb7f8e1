"""The evaluation harness: every method, ours and the peers, through the same loop and the same clock.

Per page, the decoding and parsing that pagesieve shares between methods is done and timed once
(`models.page.prepare`); then each method runs on that page through the same runner as the Spark UDF
(`models.page.run_prepared`), in an order that rotates from page to page so that machine noise hits all
methods alike. A method's time per page is decode + its own work, plus the lxml parse when it reads our
tree (`needs = "tree"`); peers that parse the markup themselves (`needs = "markup"`) pay their own parse
inside `process`. Everything runs in one process, after a warm-up; peak memory is measured
per method in a fresh subprocess (`pagesieve.eval.memory`), where it cannot be confused with the
other methods'.

Block level (`blocks=True`, Web2Text's Table 1 measure): each page is cut into Web2Text's DOM-leaf blocks
and the gold text labels them (`label_blocks`, content iff >= 2/3 of a block's text aligns). A method that
labels blocks itself (`predict_blocks`) is scored on its own labels; any other method's output text labels
the blocks the same way the gold does, so every method gets block scores. This runs outside the clock.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pagesieve.models.page import Cleaner, PageInput, ParsedPage, Prepared, charged_ms, prepare, run_prepared
from pagesieve.models.registry import build_method, resolve

from .datasets import GoldPage
from .metrics import PRF, bag_of_words_prf, block_scores, exact_match, shingle_prf, snippet_counts

__all__ = ["PageScore", "build_methods", "evaluate_pages", "group_value"]

log = logging.getLogger(__name__)


@dataclass(slots=True)
class PageScore:
    """One method on one page: its scores, its status and its time.

    `bow`, `shingles` and `exact` are None on a page without plain gold text (snippet gold only);
    `snippets` is None on a page without snippet gold. `groups` holds the page's value of each
    `--by` field (`group_value`).
    """

    dataset: str
    page_id: str
    method: str
    status: str
    bow: PRF | None          # bag-of-words token scores
    shingles: PRF | None     # word 4-gram shingle scores (article-extraction-benchmark)
    exact: bool | None
    ms: float
    n_chars: int
    error: str | None = None
    blocks: tuple[int, int, int, int] | None = None   # block-level tp, fp, fn, tn (evaluate_pages blocks=True)
    snippets: tuple[int, int, int, int] | None = None  # snippet tp, fp, fn, tn (trafilatura's protocol)
    groups: dict[str, str] = field(default_factory=dict)

    def row(self) -> dict[str, Any]:
        """A flat dict for the per-page CSV (empty cells for the scores the page has no gold for)."""
        def r(prf: PRF | None, key: str) -> float | str:
            return round(getattr(prf, key), 4) if prf is not None else ""

        return {"dataset": self.dataset, "page_id": self.page_id, "method": self.method, "status": self.status,
                "bow_precision": r(self.bow, "precision"), "bow_recall": r(self.bow, "recall"),
                "bow_f1": r(self.bow, "f1"), "shingle_precision": r(self.shingles, "precision"),
                "shingle_recall": r(self.shingles, "recall"), "shingle_f1": r(self.shingles, "f1"),
                "exact": "" if self.exact is None else self.exact, "ms": round(self.ms, 3), "n_chars": self.n_chars,
                "error": self.error or "",
                **dict(zip(("block_tp", "block_fp", "block_fn", "block_tn"), self.blocks or ("",) * 4, strict=True)),
                **dict(zip(("snippet_tp", "snippet_fp", "snippet_fn", "snippet_tn"), self.snippets or ("",) * 4,
                           strict=True)),
                **self.groups}


NO_VALUE = "(none)"


def group_value(meta: dict[str, Any], field_name: str) -> str:
    """A page's group for `--by field_name`: its meta.jsonl value as text; "(none)" when missing or null."""
    value = meta.get(field_name)
    if value is None or value == "":
        return NO_VALUE
    return json.dumps(value) if isinstance(value, bool | int | float | list | dict) else str(value)


def build_methods(names: Sequence[str], settings: dict[str, dict[str, Any]] | None = None
                  ) -> tuple[dict[str, Cleaner], dict[str, str]]:
    """Build each named cleaner; one whose package is missing is skipped with the reason.

    Returns:
        ({name: method}, {name: reason skipped}); the reason of a skip is the ImportError's message.

    Raises:
        ConfigError: an unknown name, a method that is not a cleaner, or a bad setting (checked for
            every name before anything is built).
    """
    for name in names:
        resolve(name, "cleaner")
    built: dict[str, Cleaner] = {}
    skipped: dict[str, str] = {}
    for name in names:
        try:
            built[name] = build_method(name, (settings or {}).get(name), kind="cleaner")
        except ImportError as exc:
            skipped[name] = f"missing package: {exc}"
            log.warning("skipping method %s: %s", name, skipped[name])
    return built, skipped


def _prepare(page: GoldPage) -> Prepared:
    return prepare(PageInput(page.html, url=page.url, page_id=page.page_id))


def _score(dataset: str, page: GoldPage, name: str, status: str, text: str, ms: float,
           error: str | None, by: Sequence[str]) -> PageScore:
    gold = page.gold
    score = PageScore(dataset, page.page_id, name, status,
                      None if gold is None else bag_of_words_prf(text, gold),
                      None if gold is None else shingle_prf(text, gold),
                      None if gold is None else exact_match(text, gold), ms, len(text), error,
                      groups={f: group_value(page.meta, f) for f in by})
    if page.snippets is not None:
        score.snippets = snippet_counts(text, page.snippets.with_, page.snippets.without)
    return score


def _gold_blocks(parsed: ParsedPage, gold: str) -> tuple[Any, list[bool]]:
    from pagesieve.models.web2text import label_blocks, page_blocks  # torch only when blocks are asked for

    blocks = page_blocks(parsed)
    return blocks, label_blocks(blocks.text, gold)


def _block_counts(method: Cleaner, blocks: Any, gold: list[bool], text: str) -> tuple[int, int, int, int]:
    from pagesieve.models.web2text import label_blocks

    if hasattr(method, "predict_blocks"):
        predicted = [bool(x) for x in method.predict_blocks([blocks])[0]]
    else:
        predicted = label_blocks(blocks.text, text)
    s = block_scores(predicted, gold)
    return s["tp"], s["fp"], s["fn"], s["tn"]


def evaluate_pages(dataset: str, pages: Sequence[GoldPage], methods: dict[str, Cleaner],
                   warmup: int = 20, blocks: bool = False, by: Sequence[str] = ()) -> list[PageScore]:
    """Score and time every method on every page (see the module docstring for how time is counted).

    A page our parser rejects scores as an empty extraction for every method (status from the
    parser); a method that raises on a page scores as empty with status `error`. With `blocks`, each
    score also carries block-level counts (pages our parser rejects and pages without plain gold
    have none). Each score carries the page's group of every field in `by` (`group_value`).
    """
    names = list(methods)
    for page in pages[:warmup]:
        prepared = _prepare(page)
        for name in names:
            run_prepared(methods[name], prepared)      # warm-up only: outcomes are scored below
    scores: list[PageScore] = []
    for i, page in enumerate(pages):
        prepared = _prepare(page)
        page_blocks = (_gold_blocks(prepared.page, page.gold)
                       if blocks and prepared.page is not None and page.gold is not None else None)
        for k in range(len(names)):
            name = names[(i + k) % len(names)]
            method = methods[name]
            outcome = run_prepared(method, prepared)
            result, ms = outcome.result, charged_ms(method, prepared, outcome)
            if prepared.page is None:
                scores.append(_score(dataset, page, name, result.status, "", ms, "page rejected by parser", by))
                continue
            scores.append(_score(dataset, page, name, result.status, result.text, ms, result.error, by))
            if page_blocks is not None:
                scores[-1].blocks = _block_counts(method, *page_blocks, result.text)
        if (i + 1) % 100 == 0:
            log.info("%s: %d/%d pages", dataset, i + 1, len(pages))
    return scores
