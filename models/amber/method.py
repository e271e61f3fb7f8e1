"""AMBER as an extractor: annotate -> data areas -> records -> aligned attributes (Algorithm 1, without
the learning step of Algorithm 5 yet)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from lxml import etree

from pagesieve.settings import Settings, check_file

from ..page import (
    INVISIBLE_TAGS,
    Extractor,
    ExtractResult,
    Field,
    ParsedPage,
    Record,
    text_nodes,
    xpaths_of,
)
from .alignment import Aligned, Candidate, align_records
from .areas import find_data_areas
from .segmentation import grid_rows, segment_records
from .selection import result_areas

__all__ = ["Amber", "AmberSettings", "text_nodes"]


MODES = ("amber", "structure", "annotations")


@dataclass(frozen=True, slots=True)
class AmberSettings(Settings):
    conf_name = "amber"
    field_checks = {"learned": check_file}   # a missing file was an empty state: no effect, no word (scripts that
                                             # build AmberSettings directly may still name one they will write)

    schema: str = "real_estate"       # a packaged domain (conf/amber/<name>.toml) or the path of one
    max_tree_nodes: int = 60         # elements of a record compared by the tree edit distance
    min_letters: int = 4             # a record has at least this many letters besides its price (no menus)
    min_content_ratio: float = 0.33  # an area's records carry this share of the main area's (models/amber/selection.py)
    mode: str = "amber"              # amber | structure | annotations: the ablations of models/amber/ablation.py
    learned: str = ""                # learned-gazetteers file (models/amber/learning.py); "" = shipped gazetteers only

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"mode: must be one of {', '.join(MODES)}, got {self.mode!r}")
        if self.max_tree_nodes < 1:
            raise ValueError(f"max_tree_nodes must be >= 1, got {self.max_tree_nodes}")
        if not 0 <= self.min_content_ratio <= 1:   # a share of the main area's content: above 1 kept no area
            raise ValueError(f"min_content_ratio must be in [0, 1], got {self.min_content_ratio}")
        from .schema import load_schema

        schema = load_schema(self.schema)  # a missing or bad domain file fails with the settings, on the driver
        if self.learned:
            from .learning import load_learned

            load_learned(self.learned, schema)  # so does a bad learned-gazetteers file


# Attribute types no text annotator can mark: candidates come from the markup (an href, an image, a
# heading or a longer link text), and alignment keeps the one at the best-supported position.
STRUCTURAL = {"link": "link", "detail_link": "link", "image": "image", "title": "title"}
# An element whose whole text is this short is annotated as one text too: finn.no writes
# `<span>427 343</span> <span>kr</span>`, a price no single text node holds.
SHORT_TEXT = 60


def annotate_page(root: etree._Element, annotators, schema) -> list[Candidate]:
    """ann(ρ, n, v) over a page: every text node, then short elements as a whole for the types their text
    nodes missed, then the structural candidates of STRUCTURAL; in document order of the nodes. Text that is
    crossed out (`<s>`, `<del>`, `<strike>`: the old price before the current one) is no current value and is
    not annotated."""
    from .annotators import annotate

    found: list[Candidate] = []
    marked: dict[etree._Element, set[str]] = {}
    seen: dict[str, list] = {}          # a third of a listing page's texts repeat ("Compare", "Save", "kr")
    for holder, text in text_nodes(root):
        if _struck(holder):
            continue
        annotations = seen.get(text)
        if annotations is None:
            annotations = seen[text] = annotate(text, annotators)
        for a in annotations:
            found.append(Candidate(holder, a.type, text[a.start:a.end].strip()))
            marked.setdefault(holder, set()).add(a.type)
    for element in _short_elements(root):
        text = " ".join("".join(element.itertext()).split())
        if not text or len(text) > SHORT_TEXT or _struck(element) or any(e.tag in STRUCK for e in element.iter()):
            continue
        below = set().union(*(marked.get(e, set()) for e in element.iter()))
        for a in annotate(text, annotators):
            if a.type not in below:
                found.append(Candidate(element, a.type, text[a.start:a.end].strip()))
                marked.setdefault(element, set()).add(a.type)
    kinds = {name: STRUCTURAL[name] for name in schema.attributes if name in STRUCTURAL}
    if kinds:
        for element in root.iter():
            if not isinstance(element.tag, str):
                continue
            for name, kind in kinds.items():
                if kind == "link" and element.tag == "a" and element.get("href"):
                    found.append(Candidate(element, name, element.get("href")))
                elif kind == "image" and element.tag == "img" and element.get("src"):
                    found.append(Candidate(element, name, element.get("src")))
                elif kind == "title" and (text := _title_text(element)):
                    found.append(Candidate(element, name, text))
    return found


STRUCK = frozenset({"s", "del", "strike"})
# Block elements: a link or a named element holding one is a card, not a title.
_BLOCKS = frozenset({"div", "p", "ul", "ol", "li", "table", "figure", "figcaption", "section", "article", "header",
                     "footer", "dl", "h1", "h2", "h3", "h4", "h5", "h6"})
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})


def _short_elements(root: etree._Element) -> list[etree._Element]:
    """Visible elements with children whose text has at most SHORT_TEXT non-blank characters, in document
    order: one bottom-up pass, where joining every element's text would cost the page size times its depth."""
    elements = [e for e in root.iter() if isinstance(e.tag, str)]
    solid: dict[etree._Element, int] = {}
    for element in reversed(elements):             # every descendant comes before its ancestor
        if element.tag in INVISIBLE_TAGS:
            solid[element] = 0
            continue
        n = len("".join(element.text.split())) if element.text else 0
        for child in element:
            n += solid.get(child, 0) + (len("".join(child.tail.split())) if child.tail else 0)
        solid[element] = n
    return [e for e in elements if len(e) and e.tag not in INVISIBLE_TAGS and 0 < solid[e] <= SHORT_TEXT
            and not _wrapper(e)]


def _wrapper(element: etree._Element) -> bool:
    """An element whose text is all its one child's: annotated as that child already (a chain of 100,000
    such wrappers would otherwise be annotated 100,000 times, each over the whole chain below it)."""
    if element.text and element.text.strip():
        return False
    children = [c for c in element if isinstance(c.tag, str)]
    return len(children) == 1 and not any(c.tail and c.tail.strip() for c in element)


def _struck(node: etree._Element) -> bool:
    return node.tag in STRUCK or any(a.tag in STRUCK for a in node.iterancestors(*STRUCK))


def _title_text(element: etree._Element) -> str | None:
    """The text of a title candidate: a heading, a link of three words or more, or an element that names
    itself a title or a name (class or itemprop), holding no block of its own; None for anything else."""
    tag = element.tag
    named = tag not in _HEADINGS and _named_title(element)
    if tag not in _HEADINGS and tag != "a" and not named:
        return None
    if tag not in _HEADINGS and any(e.tag in _BLOCKS for e in element.iterdescendants()):
        return None
    text = " ".join("".join(element.itertext()).split())
    if tag == "a" and not named:
        return text if len(text) >= 10 and len(text.split()) >= 3 else None
    return text if 3 <= len(text) <= 300 else None


def _named_title(element: etree._Element) -> bool:
    if element.get("itemprop") in ("name", "headline"):
        return True
    classes = (element.get("class") or "").lower()
    return any(word in classes for word in ("title", "name", "heading"))


class Amber(Extractor):
    """AMBER (Furche et al.): records of listing pages with typed attributes, driven by a domain schema."""

    name = "amber"
    version = 1
    settings_class = AmberSettings

    def __init__(self, settings: AmberSettings | None = None) -> None:
        from .annotators import build_annotators
        from .schema import load_schema

        self.settings = settings or AmberSettings.load()
        self.schema = load_schema(self.settings.schema)
        self.annotators = build_annotators(self.schema)
        if self.settings.learned:         # Algorithm 5's terms added to / dropped from the shipped gazetteers
            from .learning import learned_annotators

            self.annotators = learned_annotators(self.schema, self.settings.learned)

    def process(self, page: ParsedPage) -> ExtractResult:
        return self.process_timed(page, None)

    def process_timed(self, page: ParsedPage, timings: dict[str, float] | None) -> ExtractResult:
        """`process`, adding each stage's seconds to `timings` (annotate, areas, records, align, output) when
        given: what scripts/bench/bench_amber.py reports."""
        clock = _Clock(timings)
        schema = self.schema
        candidates = annotate_page(page.body, self.annotators, schema)
        clock.lap("annotate")
        pivots = [c.node for c in candidates if c.type == schema.pivot]
        found = self._records(page.body, pivots, candidates, clock)
        result = self._output(page, found)
        clock.lap("output")
        return result

    def _records(self, body: etree._Element, pivots: list[etree._Element], candidates: list[Candidate],
                 clock: _Clock) -> list[tuple[list[etree._Element], dict[str, Aligned]]]:
        """Records (each a run of children of its data area) with their aligned attributes; `mode` picks
        the full method or one of the ablations of models/amber/ablation.py."""
        thresholds = self.schema.thresholds
        if self.settings.mode == "amber":
            areas = [(a.root, a.pivots) for a in find_data_areas(pivots, thresholds.depth, thresholds.dist)]
            clock.lap("areas")
            segmented = [self._segment(root, area_pivots) for root, area_pivots in areas]
            values = {c.node: c.value for c in candidates if c.type == self.schema.pivot}
            segmented = result_areas(segmented, pivots, values, self.settings.min_letters,
                                     self.settings.min_content_ratio)
        else:
            from .ablation import ABLATIONS

            segmented = ABLATIONS[self.settings.mode](body, pivots)
            clock.lap("areas")
        claimed: set[etree._Element] = set()
        unique: list[list[list[etree._Element]]] = []
        for records in segmented:
            records = [r for r in records if not claimed.intersection(r)]
            claimed.update(n for r in records for n in r)
            unique.append(records)
        clock.lap("records")
        alignment = self.schema.alignment_thresholds()
        found = [item for records in unique
                 for item in zip(records, align_records(records, candidates, alignment), strict=True)]
        clock.lap("align")
        return found

    def _segment(self, root: etree._Element, pivots: Sequence[etree._Element]) -> list[list[etree._Element]]:
        """Algorithm 3 on a data area; on a grid, again on each row, the rows' records joined (one area
        for alignment, so that support counts over all of them)."""
        records = segment_records(root, pivots, self.settings.max_tree_nodes)
        rows = grid_rows(root, records, pivots, self.settings.min_letters)
        if rows is None:
            return records
        out = []
        for record, (row, row_pivots) in zip(records, rows, strict=True):
            out += [record] if row is None else segment_records(row, row_pivots, self.settings.max_tree_nodes)
        return out

    def _output(self, page: ParsedPage, found: list[tuple[list[etree._Element], dict[str, Aligned]]]
                ) -> ExtractResult:
        schema = self.schema
        if not found:
            return ExtractResult(status="empty", schema=schema.name, error="no data area found")
        position = {e: i for i, e in enumerate(page.root.iter())}
        found.sort(key=lambda item: position.get(item[0][0], 0))
        # one call for every XPath of the page: each call numbers the children of the parents it meets, and
        # a call per record would number a 50,000-item list 50,000 times
        nodes = [r[0] for r, _ in found] + [a.node for _, attributes in found for a in attributes.values()]
        xpaths = iter(xpaths_of(nodes))
        record_xpaths = [next(xpaths) for _ in found]
        out = []
        for (_, attributes), xpath in zip(found, record_xpaths, strict=True):
            fields = tuple(Field(name, _value(a, STRUCTURAL.get(name, "text")), next(xpaths), a.origin,
                                 round(a.support, 4))
                           for name, a in attributes.items())
            out.append(Record(fields=fields, xpath=xpath))
        return ExtractResult(schema=schema.name, records=tuple(out))


class _Clock:
    """Adds the seconds since the last lap to `timings[stage]`; does nothing without `timings`."""

    __slots__ = ("timings", "last")

    def __init__(self, timings: dict[str, float] | None) -> None:
        self.timings = timings
        self.last = time.perf_counter() if timings is not None else 0.0

    def lap(self, stage: str) -> None:
        if self.timings is not None:
            now = time.perf_counter()
            self.timings[stage] = self.timings.get(stage, 0.0) + now - self.last
            self.last = now


def _value(aligned: Aligned, kind: str) -> str | None:
    node = aligned.node
    if kind == "title" and aligned.value is None:
        return " ".join("".join(node.itertext()).split()) or None
    if kind == "link":
        link = node if node.tag == "a" and node.get("href") else node.find(".//a[@href]")
        if link is None:
            link = next((a for a in node.iterancestors("a") if a.get("href")), None)
        return link.get("href") if link is not None else None
    if kind == "image":
        image = node if node.tag == "img" else node.find(".//img[@src]")
        return image.get("src") if image is not None else None
    if aligned.value is not None:
        return aligned.value
    return " ".join("".join(node.itertext()).split()) or None
