"""Listing pages with record ground truth (`shared/data/listings`): reader and record/attribute scorer.

The folder holds `pages/<id>.html` (raw bytes) and `truth/<id>.json` (see its README.md). `read_listings`
turns it into `ListingPage` objects; `score_records` scores one page's predicted `Record`s against its
truth the way the README's "How to score" section says; `aggregate_scores` sums and averages page scores
per domain and overall.

Record matching (README, "How to score", 1-3): a predicted record matches a gold record if the gold
`text_snippet` occurs in the predicted record's visible text (both whitespace-collapsed, with an
all-whitespace-removed comparison as the fallback), or, when the prediction is tied to a DOM subtree, if
the gold `html_anchor` occurs in that subtree's HTML. Matching is one-to-one (a maximum bipartite
matching, see `match_records`). Predictions matched to optional gold records are removed before counting
and optional gold records never count in recall.

A prediction's "visible text" and "subtree HTML" come from a `RecordView`. Without views the text is the
record's field values joined by spaces and there is no HTML; `record_views` resolves each record's
`xpath` in the page instead (lxml), which is what an extractor's output should be scored with.

Pure Python apart from `record_views` (lxml, imported lazily); no Spark.
"""

from __future__ import annotations

import html as html_lib
import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pagesieve.eval.datasets import GoldPage
from pagesieve.models.page.result import Record

__all__ = [
    "TruthRecord",
    "ListingTruth",
    "ListingPage",
    "RecordView",
    "Counts",
    "MeanPRF",
    "RecordScores",
    "Summary",
    "OVERALL",
    "LONG_FIELDS",
    "read_listing_truth",
    "read_listing_page",
    "read_listings",
    "iter_listing_gold_pages",
    "normalize_value",
    "values_match",
    "default_views",
    "record_views",
    "match_records",
    "score_records",
    "aggregate_scores",
]

_NOT_DISPLAY_TEXT = frozenset({"link", "html_anchor", "origin", "text_snippet", "snippet_unique", "optional",
                               "source_values"})

OVERALL = "overall"
"""The key of the all-pages summary in `aggregate_scores`' result."""

LONG_FIELDS = frozenset({"description", "summary", "specs"})
"""Attribute names for which the lenient comparison also accepts containment (README: "long fields")."""

_WS = re.compile(r"\s+")


# --------------------------------------------------------------------------------------------- reader


@dataclass(frozen=True, slots=True)
class TruthRecord:
    """One gold record of a listing page.

    Attributes:
        attributes: attribute name -> verbatim display text, only for names in the page's `attributes`.
        text_snippet: short verbatim substring of the record's visible text (the matching key).
        html_anchor: substring of the raw HTML identifying the record (id attribute or detail link), or None.
        link: the detail-page href as written in the HTML, or None.
        optional: True for records that are neither rewarded nor penalised.
        snippet_unique: False when the snippet also occurs elsewhere on the page.
        origin: "source" or "hand".
    """

    attributes: dict[str, str]
    text_snippet: str
    html_anchor: str | None = None
    link: str | None = None
    optional: bool = False
    snippet_unique: bool = True
    origin: str = "source"


@dataclass(frozen=True, slots=True)
class ListingTruth:
    """The ground truth of one listing page (`truth/<id>.json`).

    Attributes:
        page_id: the page id (file stem).
        domain: real_estate, used_cars, products, jobs or other.
        url: the original page URL when known.
        attributes: the attribute names defined for this page (only these are scored).
        records: gold records in page order, optional ones included.
        labelled_by: "source", "hand" or "source+hand".
    """

    page_id: str
    domain: str
    url: str | None
    attributes: tuple[str, ...]
    records: tuple[TruthRecord, ...]
    labelled_by: str = "source"

    @property
    def record_count(self) -> int:
        """Number of non-optional gold records (the recall denominator)."""
        return sum(not r.optional for r in self.records)

    @property
    def optional_record_count(self) -> int:
        """Number of optional gold records."""
        return sum(r.optional for r in self.records)


@dataclass(frozen=True, slots=True, eq=False)
class ListingPage:
    """One page of the listings folder: its raw bytes and its truth.

    Attributes:
        page_id: the page id.
        domain: the page's domain.
        html: the raw page bytes, exactly as stored.
        truth: the page's ground truth.
    """

    page_id: str
    domain: str
    html: bytes
    truth: ListingTruth

    @property
    def url(self) -> str | None:
        """The original page URL when known."""
        return self.truth.url


def read_listing_truth(path: str | Path) -> ListingTruth:
    """Read one `truth/<id>.json` file.

    Args:
        path: the JSON file.

    Returns:
        The parsed truth.

    Raises:
        ValueError: the file's `record_count` / `optional_record_count` disagree with its records.
    """
    path = Path(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    names = tuple(data.get("attributes") or ())
    name_set = set(names)
    records = tuple(
        TruthRecord(
            attributes={k: v for k, v in r.items() if k in name_set and isinstance(v, str)},
            text_snippet=r["text_snippet"],
            html_anchor=r.get("html_anchor"),
            link=r.get("link"),
            optional=bool(r.get("optional", False)),
            snippet_unique=bool(r.get("snippet_unique", True)),
            origin=r.get("origin", "source"),
        )
        for r in data["records"]
    )
    truth = ListingTruth(page_id=data.get("id") or path.stem, domain=data["domain"], url=data.get("url"),
                         attributes=names, records=records, labelled_by=data.get("labelled_by", "source"))
    for key, have in (("record_count", truth.record_count), ("optional_record_count", truth.optional_record_count)):
        if key in data and data[key] != have:
            raise ValueError(f"{path}: {key} is {data[key]} but the records give {have}")
    return truth


def read_listing_page(folder: str | Path, page_id: str) -> ListingPage:
    """Read one page (`pages/<id>.html` + `truth/<id>.json`) of a listings folder.

    Args:
        folder: the listings folder.
        page_id: the page id.

    Returns:
        The page with its truth.
    """
    folder = Path(folder)
    truth = read_listing_truth(folder / "truth" / f"{page_id}.json")
    html = (folder / "pages" / f"{page_id}.html").read_bytes()
    return ListingPage(page_id=truth.page_id, domain=truth.domain, html=html, truth=truth)


def read_listings(folder: str | Path) -> list[ListingPage]:
    """Read every page of a listings folder, sorted by id.

    Args:
        folder: the folder with `pages/` and `truth/`.

    Returns:
        One `ListingPage` per truth file.

    Raises:
        FileNotFoundError: the folder has no `truth/` subfolder or a truth file has no page.
    """
    folder = Path(folder)
    truth_dir = folder / "truth"
    if not truth_dir.is_dir():
        raise FileNotFoundError(f"no truth/ folder in {folder}")
    return [read_listing_page(folder, p.stem) for p in sorted(truth_dir.glob("*.json"))]


def _records_text(data: Mapping) -> str:
    paragraphs = []
    for record in data["records"]:
        values = [v for k, v in record.items() if isinstance(v, str) and k not in _NOT_DISPLAY_TEXT]
        values += [v for v in record.get("fields", ()) if v not in values]
        paragraphs.append(" ".join(values))
    return "\n\n".join(paragraphs)


def iter_listing_gold_pages(folder: str | Path) -> Iterator[GoldPage]:
    """The pages of a listings folder as main-text gold pages, for training a cleaner: a page's gold is its
    records' display strings (every string value of a truth record but its link, anchor and bookkeeping, and
    the `fields` row of the test-bed pages), one record a paragraph, in the truth's order. The records are a
    listing page's content, as in WCXB's listing gold; its navigation, filters and footer are not. A heading
    or an intro above the records is not in the truth, so it reads as boilerplate here.

    Args:
        folder: the folder with `pages/` and `truth/`.

    Returns:
        An iterator of `GoldPage`, sorted by id, with `meta={"page_type": "listing", "domain": ...}`.
    """
    folder = Path(folder)
    for path in sorted((folder / "truth").glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        html = (folder / "pages" / f"{path.stem}.html").read_bytes()
        yield GoldPage(path.stem, data.get("url"), html, _records_text(data),
                       meta={"page_type": "listing", "domain": data.get("domain")})


# ---------------------------------------------------------------------------------------- comparison


def _collapse(text: str) -> str:
    return _WS.sub(" ", text).strip()


def _squash(text: str) -> str:
    return _WS.sub("", text)


def normalize_value(value: str, *, lenient: bool = False) -> str:
    """The README's attribute value normalisation.

    Strict (default): runs of whitespace collapsed to one space, trimmed. Lenient (the README's
    recommended variant): all whitespace removed and case-folded.

    Args:
        value: an attribute value.
        lenient: use the lenient variant.

    Returns:
        The normalised value.
    """
    return _squash(value).casefold() if lenient else _collapse(value)


def values_match(predicted: str, gold: str, *, name: str = "", lenient: bool = False) -> bool:
    """Whether a predicted attribute value is correct.

    Strict: equal after `normalize_value`. Lenient: equal after lenient `normalize_value`, or, for the
    long fields in `LONG_FIELDS`, one contains the other and the shorter is at least half as long as the
    longer (the README's "accept containment for long fields such as description").

    Args:
        predicted: the predicted value.
        gold: the gold value.
        name: the attribute name (for the long-field rule).
        lenient: use the lenient comparison.

    Returns:
        True when the value counts as correct.
    """
    p, g = normalize_value(predicted, lenient=lenient), normalize_value(gold, lenient=lenient)
    if p == g:
        return True
    if lenient and name in LONG_FIELDS and p and g:
        short, long_ = sorted((p, g), key=len)
        return short in long_ and 2 * len(short) >= len(long_)
    return False


# ------------------------------------------------------------------------------------------ matching


@dataclass(frozen=True, slots=True)
class RecordView:
    """What the matcher sees of one predicted record.

    Attributes:
        text: the record's visible text (any whitespace; it is collapsed before comparing).
        html: the HTML of the record's DOM subtree, or None when the record is not tied to one.
    """

    text: str
    html: str | None = None


def default_views(predicted: Sequence[Record]) -> list[RecordView]:
    """Views without the page: each record's text is its non-empty field values joined by spaces."""
    return [RecordView(" ".join(f.value for f in r.fields if f.value)) for r in predicted]


def record_views(predicted: Sequence[Record], html: bytes | str) -> list[RecordView]:
    """Views from the page: each record's `xpath` resolved in the parsed page.

    The text is the subtree's visible text (`models.page.dom.visible_text`) and the HTML its serialisation.
    A record with no `xpath`, or one that resolves to no element, falls back to its joined field values.

    Args:
        predicted: the predicted records of one page.
        html: the page (raw bytes are decoded as the pipeline does, or already decoded text).

    Returns:
        One view per record, in order.
    """
    from lxml import etree

    from pagesieve.models.page.dom import visible_text
    from pagesieve.models.page.parse import parse_html, parse_page

    root = parse_page(html).root if isinstance(html, bytes) else parse_html(html)[0]
    fallback = default_views(predicted)
    views: list[RecordView] = []
    for record, alt in zip(predicted, fallback, strict=True):
        found = root.xpath(record.xpath) if record.xpath else []
        elements = [e for e in found if isinstance(e, etree._Element)] if isinstance(found, list) else []
        if not elements:
            views.append(alt)
            continue
        element = elements[0]
        markup = etree.tostring(element, encoding="unicode", method="html", with_tail=False)
        views.append(RecordView(visible_text(element), markup))
    return views


def _snippet_in(snippet: str, text: str) -> bool:
    s, t = _collapse(snippet), _collapse(text)
    if s and s in t:
        return True
    s, t = _squash(snippet), _squash(text)
    return bool(s) and s in t


def _anchor_in(anchor: str | None, markup: str | None) -> bool:
    if not anchor or markup is None:
        return False
    if anchor in markup:
        return True
    return html_lib.unescape(anchor) in html_lib.unescape(markup)


def _kuhn(candidates: list[list[int]], allowed: set[int], taken: dict[int, int], free_preds: Sequence[int]) -> None:
    """Augmenting-path maximum matching; `taken` maps gold index -> prediction index and is updated."""

    def augment(p: int, seen: set[int]) -> bool:
        for g in candidates[p]:
            if g not in allowed or g in seen:
                continue
            seen.add(g)
            if g not in taken or augment(taken[g], seen):
                taken[g] = p
                return True
        return False

    for p in free_preds:
        augment(p, set())


def match_records(views: Sequence[RecordView], truth: ListingTruth) -> list[tuple[int, int]]:
    """One-to-one matching of predicted records to gold records.

    A prediction can match a gold record when the gold `text_snippet` occurs in the prediction's text
    (whitespace-collapsed, then all-whitespace-removed as the fallback) or the gold `html_anchor` occurs in
    the prediction's subtree HTML (raw, then with HTML entities unescaped on both sides). Among those
    candidate pairs a maximum bipartite matching is taken, first over the non-optional gold records, then
    the predictions left over are matched to the optional ones; predictions and gold records are tried in
    page order, so the result is deterministic and equals the greedy page-order matching whenever that is
    maximal. A prediction spanning several gold records matches at most one; interchangeable gold records
    (identical text) are simply matched in page order.

    Args:
        views: the predicted records' views, in page order.
        truth: the page's truth.

    Returns:
        (prediction index, gold index) pairs, sorted by prediction index.
    """
    gold = truth.records
    candidates = [
        [g for g, rec in enumerate(gold)
         if _snippet_in(rec.text_snippet, v.text) or _anchor_in(rec.html_anchor, v.html)]
        for v in views
    ]
    required = {g for g, rec in enumerate(gold) if not rec.optional}
    taken: dict[int, int] = {}
    _kuhn(candidates, required, taken, range(len(views)))
    used = set(taken.values())
    optional_taken: dict[int, int] = {}
    _kuhn(candidates, set(range(len(gold))) - required, optional_taken, [p for p in range(len(views)) if p not in used])
    taken.update(optional_taken)
    return sorted((p, g) for g, p in taken.items())


# ------------------------------------------------------------------------------------------- scoring


def _ratio(num: int, den: int, other: int) -> float:
    if den:
        return num / den
    return 1.0 if other == 0 else 0.0


@dataclass(frozen=True, slots=True)
class Counts:
    """Counts behind a precision/recall/F1 triple.

    Zero denominators: precision with no predictions is 1.0 if there is no gold either, else 0.0;
    recall with no gold is 1.0 if there are no predictions either, else 0.0.

    Attributes:
        tp: correct predictions (matched records / correct values).
        predicted: predictions counted (records less those matched to optional gold / predicted values).
        gold: gold items counted (non-optional records / gold values).
    """

    tp: int = 0
    predicted: int = 0
    gold: int = 0

    @property
    def precision(self) -> float:
        """tp / predicted."""
        return _ratio(self.tp, self.predicted, self.gold)

    @property
    def recall(self) -> float:
        """tp / gold."""
        return _ratio(self.tp, self.gold, self.predicted)

    @property
    def f1(self) -> float:
        """Harmonic mean of precision and recall (0.0 when both are 0)."""
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def __add__(self, other: Counts) -> Counts:
        return Counts(self.tp + other.tp, self.predicted + other.predicted, self.gold + other.gold)


@dataclass(frozen=True, slots=True)
class MeanPRF:
    """Precision, recall and F1 averaged over pages (each page's own F1, not the F1 of the means).

    Attributes:
        precision: mean page precision.
        recall: mean page recall.
        f1: mean page F1.
        n_pages: pages averaged.
    """

    precision: float
    recall: float
    f1: float
    n_pages: int

    @classmethod
    def of(cls, counts: Sequence[Counts]) -> MeanPRF:
        """Mean of the pages' scores (all 0.0 over no pages)."""
        n = len(counts)
        if not n:
            return cls(0.0, 0.0, 0.0, 0)
        return cls(sum(c.precision for c in counts) / n, sum(c.recall for c in counts) / n,
                   sum(c.f1 for c in counts) / n, n)


@dataclass(frozen=True, slots=True)
class RecordScores:
    """Scores of one page.

    Attributes:
        page_id: the page id.
        domain: the page's domain.
        records: record-level counts (predictions matched to optional gold records removed).
        attributes: attribute name -> counts, over the pairs matched to non-optional gold records, for every
            name in the page's `attributes` list.
        matches: (prediction index, gold index) pairs, optional ones included.
        optional_matched: predictions matched to optional gold records (left out of `records`).
    """

    page_id: str
    domain: str
    records: Counts
    attributes: dict[str, Counts] = field(default_factory=dict)
    matches: tuple[tuple[int, int], ...] = ()
    optional_matched: int = 0

    @property
    def attributes_total(self) -> Counts:
        """All attribute names of the page pooled (sum of `attributes`)."""
        return sum(self.attributes.values(), Counts())


def score_records(predicted: Sequence[Record], truth: ListingTruth | ListingPage, *,
                  views: Sequence[RecordView] | None = None, aliases: Mapping[str, str] | None = None,
                  lenient: bool = False) -> RecordScores:
    """Score one page's predicted records against its truth (README, "How to score").

    Records: matched by `match_records`. Record precision = matched predictions / (predictions - those
    matched to optional gold records); record recall = matched gold records / non-optional gold records.

    Attributes, over the (prediction, gold) pairs matched to non-optional gold records only, per name in the
    page's `attributes` list (other names are not scored on the page): predicted = matched predictions with
    a non-empty value for that name (the first `Field` of that name counts; names are mapped with `aliases`
    first), gold = matched gold records with a value for that name, correct = both present and
    `values_match` (strict by default: whitespace collapsed and trimmed, case kept; `lenient=True`: all
    whitespace removed, case-folded, containment for long fields).

    Args:
        predicted: the extractor's records for the page, in page order.
        truth: the page's truth (or the page itself).
        views: what the matcher sees of each prediction; default `default_views(predicted)` (joined field
            values, no HTML); use `record_views(predicted, page.html)` to match on the records' DOM subtrees.
        aliases: predicted attribute name -> README attribute name (e.g. {"bedroom_number": "bedrooms"}).
        lenient: use the lenient value comparison.

    Returns:
        The page's scores.

    Raises:
        ValueError: `views` does not have one entry per prediction.
    """
    if isinstance(truth, ListingPage):
        truth = truth.truth
    if views is None:
        views = default_views(predicted)
    if len(views) != len(predicted):
        raise ValueError(f"{len(views)} views for {len(predicted)} predicted records")
    aliases = aliases or {}
    matches = match_records(views, truth)
    gold = truth.records
    required_pairs = [(p, g) for p, g in matches if not gold[g].optional]
    optional_matched = len(matches) - len(required_pairs)
    records = Counts(len(required_pairs), len(predicted) - optional_matched, truth.record_count)

    attributes: dict[str, Counts] = {}
    for name in truth.attributes:
        tp = n_pred = n_gold = 0
        for p, g in required_pairs:
            value = _field_value(predicted[p], name, aliases)
            gold_value = gold[g].attributes.get(name)
            n_pred += value is not None
            n_gold += gold_value is not None
            tp += value is not None and gold_value is not None and values_match(value, gold_value, name=name,
                                                                                 lenient=lenient)
        attributes[name] = Counts(tp, n_pred, n_gold)
    return RecordScores(truth.page_id, truth.domain, records, attributes, tuple(matches), optional_matched)


def _field_value(record: Record, name: str, aliases: Mapping[str, str]) -> str | None:
    for f in record.fields:
        if aliases.get(f.name, f.name) == name and f.value is not None and f.value.strip():
            return f.value
    return None


# ------------------------------------------------------------------------------------------ aggregation


@dataclass(frozen=True, slots=True)
class Summary:
    """Scores of a group of pages (one domain, or all of them).

    Attributes:
        n_pages: pages in the group.
        records_micro: record counts summed over the pages.
        records_macro: mean of the pages' record scores.
        attributes_micro: attribute name -> counts summed over the pages that define the name.
        attributes_macro: attribute name -> mean over the pages that define the name.
        attributes_total_micro: every attribute of every page pooled.
        attributes_total_macro: mean over pages of each page's pooled attribute scores (pages defining none
            left out).
    """

    n_pages: int
    records_micro: Counts
    records_macro: MeanPRF
    attributes_micro: dict[str, Counts]
    attributes_macro: dict[str, MeanPRF]
    attributes_total_micro: Counts
    attributes_total_macro: MeanPRF


def _summarise(pages: Sequence[RecordScores]) -> Summary:
    per_name: dict[str, list[Counts]] = {}
    for page in pages:
        for name, counts in page.attributes.items():
            per_name.setdefault(name, []).append(counts)
    totals = [page.attributes_total for page in pages if page.attributes]
    return Summary(
        n_pages=len(pages),
        records_micro=sum((p.records for p in pages), Counts()),
        records_macro=MeanPRF.of([p.records for p in pages]),
        attributes_micro={n: sum(cs, Counts()) for n, cs in sorted(per_name.items())},
        attributes_macro={n: MeanPRF.of(cs) for n, cs in sorted(per_name.items())},
        attributes_total_micro=sum(totals, Counts()),
        attributes_total_macro=MeanPRF.of(totals),
    )


def aggregate_scores(scores: Iterable[RecordScores]) -> dict[str, Summary]:
    """Per-domain and overall summaries of page scores: micro (summed counts) and mean of pages.

    Args:
        scores: one `RecordScores` per page.

    Returns:
        Domain -> summary, sorted by domain, plus `OVERALL` -> the summary of all pages (last).
    """
    pages = list(scores)
    by_domain: dict[str, list[RecordScores]] = {}
    for page in pages:
        by_domain.setdefault(page.domain, []).append(page)
    out = {domain: _summarise(group) for domain, group in sorted(by_domain.items())}
    out[OVERALL] = _summarise(pages)
    return out
