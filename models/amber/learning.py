"""Gazetteer learning (AMBER, section 4, Algorithm 5): grow and clean the gazetteers from the extraction.

One step compares the extraction typing T of a page (its records' attributes) with the page's annotations:

  - term validation: an attribute node of type ρ carries a gazetteer annotation for ρ: its term v gets
    genuine evidence ev(v, Uρ) += freq+;
  - term extraction: an attribute node of type ρ holds text no annotator marked: its components (the text
    split at separators, what other annotators marked cut out) are candidate terms of ρ with genuine
    evidence, "new terms" the repeated structure found;
  - term cleaning: a gazetteer annotation for ρ on a node that is no attribute of ρ (outside the records,
    in a menu or a description, or at a position alignment did not support) gives noise evidence
    ev(v, Ūρ) += freq-.

Evidence is integer counts per (attribute type, term), so per-page evidence sums exactly and in any order:
a Spark job can compute `page_evidence` per page, ship `Evidence.to_json()` and merge on the driver.
`LearnedGazetteers.update` then applies the rule of Algorithm 5 to the evidence summed over all rounds: a
term with genuine evidence is added to Uρ unless it is known for a disjoint type (ρ ∧ ρ' → ⊥) or was
dropped; a term whose noise evidence exceeds Θlearn (schema `thresholds.learn`, 1.5 in the paper) times
its genuine evidence is dropped, permanently ("AMBER will permanently add a term v to Ūρ"), seed terms
included.

The learned state is a JSON file the user names (`AmberSettings.learned`): per type the terms added to and
dropped from the shipped gazetteers, and the evidence behind them. A person may edit it (move a term
between `added` and `dropped`, delete one); it is written under a temporary name and renamed, never
inside the installed package. `learn_pages` runs rounds over a set of pages (the paper's upfront learning,
section 6.4).
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pagesieve.settings import ConfigError

from .annotators import GazetteerAnnotator, build_annotators, load_gazetteer

if TYPE_CHECKING:
    from lxml import etree

    from ..page import ExtractResult, ParsedPage
    from .method import Amber
    from .schema import DomainSchema

__all__ = ["Evidence", "LearnedGazetteers", "RoundReport", "FORMAT", "components", "term_key", "gazetteer_types",
           "page_evidence", "load_learned", "save_learned", "learned_terms", "learned_annotators", "learn_pages"]

FORMAT = "pagesieve/amber-learned-gazetteers"
VERSION = 1

Key = tuple[str, str]       # (attribute type, term key)


def term_key(term: str) -> str:
    """The key terms are compared by: case-folded, hyphens as spaces, whitespace collapsed (as the gazetteer
    annotator matches terms longer than 3 characters)."""
    return " ".join(term.lower().replace("-", " ").split())


# Separators between the components of an attribute's text (Algorithm 5, `components`): "Oxford, Walton
# Street | ground floor" -> Oxford / Walton Street / ground floor.
_SEPARATORS = re.compile(r"\s*(?:[,;|/()\[\]•·:\n\u2013\u2014]|\s-\s)\s*")
# A term: letters first, then letters, spaces, hyphens, apostrophes and dots; no digit (street numbers,
# flat numbers and postcodes are no gazetteer terms).
_TERM = re.compile(r"[^\W\d_][^\W\d_'’.\- ]*(?:[ '’.\-]+[^\W\d_]+)*\.?")
# Lower-case words allowed inside a name ("Newcastle upon Tyne", "Clacton on Sea", "Le Touquet"), never first.
_CONNECTORS = frozenset({"upon", "on", "under", "by", "the", "in", "of", "de", "la", "le", "les", "du", "des", "am",
                         "an", "der", "sur", "en", "y"})
MAX_TERM_WORDS = 4          # longer components are sentences of a description, not names
MAX_TERM_CHARS = 40
MIN_NOISE = 2              # noise evidence below this never drops a term (LearnedGazetteers.update)
PURE_SHARE = 0.5            # share of a type's annotated nodes on a page that must be pure values to learn from it


def components(text: str, cut: Sequence[tuple[int, int]] = (), own: Sequence[tuple[int, int]] = ()) -> list[str]:
    """The candidate new terms of an attribute node's text (Algorithm 5's `components`, lines 2-3).

    The text is split at separators; the spans in `cut` (what other annotators marked: a postcode, a price)
    are cut off a component's ends ("Manchester M20" gives Manchester; one in the middle leaves no term),
    while a component holding a span of `own` (a term the type's gazetteer knows) gives no new term: what is
    left of "60 London Road" or "Bude and Didcot" once the known term is out is no name. A term is kept if
    it is a plausible name: letters, at most MAX_TERM_WORDS words, no digit, no word starting in lower case
    but connectors inside the name. The paper keeps "ground-floor" and "apartment" and lets later noise
    evidence drop them; on generated pages such fragments ("upon Tyne", "and Didcot") were a third of the
    terms learned in a round, so we stop them
    here. Order kept, duplicates removed.
    """
    chars = list(text)
    for start, end in own:
        chars[start:end] = ["\x00"] * (end - start)
    for start, end in cut:
        chars[start:end] = ["\x01"] * (end - start)
    out: dict[str, None] = {}
    for part in _SEPARATORS.split("".join(chars)):
        pieces = [p for p in part.split("\x01") if p.strip()]
        if "\x00" in part or len(pieces) != 1:
            continue            # a known term inside, or another type's value in the middle ("An [apartment] with")
        part = " ".join(pieces[0].split()).strip(" .-'’")
        words = part.split()
        if (2 <= len(part) <= MAX_TERM_CHARS and len(words) <= MAX_TERM_WORDS and _TERM.fullmatch(part)
                and not words[0][0].islower() and not words[-1][0].islower()
                and all(not w[0].islower() or w in _CONNECTORS for w in words)):
            out.setdefault(part, None)
    return list(out)


def gazetteer_types(schema: DomainSchema) -> tuple[str, ...]:
    """The attribute types with a gazetteer: the ones Algorithm 5 learns (regular expressions are not
    learned)."""
    return tuple(name for name, spec in schema.attributes.items() if spec.gazetteers)


# ------------------------------------------------------------------------------------------- evidence

@dataclass
class Evidence:
    """ev(v, Uρ) (genuine) and ev(v, Ūρ) (noise) of Algorithm 5 per (type, term key), with the surface forms
    seen; integer counts, so `merge` is exact, associative and commutative."""

    genuine: dict[Key, int] = field(default_factory=dict)
    noise: dict[Key, int] = field(default_factory=dict)
    forms: dict[Key, dict[str, int]] = field(default_factory=dict)
    pages: int = 0

    def add(self, kind: str, type_: str, term: str, n: int = 1) -> None:
        key = (type_, term_key(term))
        counts = self.genuine if kind == "genuine" else self.noise
        counts[key] = counts.get(key, 0) + n
        forms = self.forms.setdefault(key, {})
        forms[term] = forms.get(term, 0) + n

    def merge(self, other: Evidence) -> Evidence:
        """The sum of two evidences (a new object; neither is changed)."""
        out = Evidence(dict(self.genuine), dict(self.noise), {k: dict(v) for k, v in self.forms.items()},
                       self.pages)
        out += other
        return out

    __add__ = merge

    def __iadd__(self, other: Evidence) -> Evidence:
        """Sum `other` into this evidence in place (a driver folding thousands of pages)."""
        for mine, theirs in ((self.genuine, other.genuine), (self.noise, other.noise)):
            for key, n in theirs.items():
                mine[key] = mine.get(key, 0) + n
        for key, forms in other.forms.items():
            merged = self.forms.setdefault(key, {})
            for form, n in forms.items():
                merged[form] = merged.get(form, 0) + n
        self.pages += other.pages
        return self

    def overlay(self, other: Evidence) -> Evidence:
        """This evidence with every term `other` has evidence for taken from `other` instead (a new object):
        a dropped term, no longer annotated, keeps the evidence that dropped it."""
        out = Evidence(dict(self.genuine), dict(self.noise), {k: dict(v) for k, v in self.forms.items()},
                       other.pages)
        for key in set(other.genuine) | set(other.noise) | set(other.forms):
            for mine, theirs in ((out.genuine, other.genuine), (out.noise, other.noise)):
                if key in theirs:
                    mine[key] = theirs[key]
                else:
                    mine.pop(key, None)
            out.forms[key] = dict(other.forms.get(key, {}))
        return out

    def form(self, key: Key) -> str:
        """The term as written most often (ties: the first in sorted order), so the choice is deterministic."""
        forms = self.forms.get(key) or {key[1]: 1}
        return min(forms, key=lambda f: (-forms[f], f))

    def all_keys(self) -> list[Key]:
        return sorted(set(self.genuine) | set(self.noise))

    def to_json(self) -> dict[str, Any]:
        """A JSON-able dict (for shipping per-page evidence from Spark executors); `from_json` reads it."""
        return {"pages": self.pages,
                "terms": [[t, k, self.genuine.get((t, k), 0), self.noise.get((t, k), 0),
                           sorted(self.forms.get((t, k), {}).items())] for t, k in self.all_keys()]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Evidence:
        out = cls(pages=int(data.get("pages", 0)))
        for type_, key, genuine, noise, forms in data.get("terms", ()):
            if genuine:
                out.genuine[(type_, key)] = int(genuine)
            if noise:
                out.noise[(type_, key)] = int(noise)
            out.forms[(type_, key)] = {f: int(n) for f, n in forms}
        return out


def page_evidence(amber: Amber, page: ParsedPage, result: ExtractResult | None = None) -> Evidence:
    """The evidence of one page for every gazetteer type of `amber`'s schema (one step of Algorithm 5).

    Args:
        amber: the extractor, built with the gazetteers of the current learning state.
        page: the parsed page.
        result: `amber.process(page)` when the caller has it already (it is computed otherwise).

    Returns:
        The page's evidence (`pages` = 1); empty for a page without records.
    """
    from .method import annotate_page

    schema = amber.schema
    types = gazetteer_types(schema)
    evidence = Evidence(pages=1)
    if not types:
        return evidence
    result = result if result is not None else amber.process(page)
    gazetteers = {a.type: a for a in amber.annotators if isinstance(a, GazetteerAnnotator) and a.type in types}
    known = {t: {term_key(term): term for term in g.terms} for t, g in gazetteers.items()}
    attribute_nodes = _attribute_nodes(page, result, types)
    for type_, nodes in attribute_nodes.items():
        found = [_node_terms(node, amber.annotators, gazetteers.get(type_)) for node, _ in nodes]
        for validated, _ in found:
            for term in validated:
                evidence.add("genuine", type_, term)            # term validation
        # Term extraction only where the type's annotated nodes are mostly pure values (nothing left once
        # the annotations are cut out): a title slot ("Flat near the station", typed property_type because
        # most titles name one) would otherwise teach "near the station"; a location slot ("Didsbury,
        # M20 2RN") teaches "Didsbury".
        annotated = [new for (_, origin), (_, new) in zip(nodes, found, strict=True) if origin == "annotated"]
        if annotated and sum(not new for new in annotated) >= PURE_SHARE * len(annotated):
            for _, new in found:
                for term in new:
                    evidence.add("genuine", type_, term)        # term extraction: v not in Uρ, no annotation
    covered = {t: {e for n, _ in nodes for e in n.iter()} for t, nodes in attribute_nodes.items()}
    for c in annotate_page(page.body, list(gazetteers.values()), schema):
        term = known.get(c.type, {}).get(term_key(c.value))
        if term is not None and c.node not in covered.get(c.type, ()):
            evidence.add("noise", c.type, term)             # term cleaning: an annotation that is noise for ρ
    return evidence


def _attribute_nodes(page: ParsedPage, result: ExtractResult, types: Sequence[str]
                     ) -> dict[str, list[tuple[etree._Element, str]]]:
    """The attribute nodes of T per gazetteer type, with their origin: the records' fields resolved by their
    XPaths."""
    tree = page.root.getroottree()
    out: dict[str, list[tuple[etree._Element, str]]] = {}
    for record in result.records:
        for f in record.fields:
            if f.name in types and f.xpath:
                found = tree.xpath(f.xpath)
                if isinstance(found, list) and found and isinstance(found[0].tag, str):
                    out.setdefault(f.name, []).append((found[0], f.origin))
    return out


def _node_terms(node: etree._Element, annotators: Sequence[Any], gazetteer: GazetteerAnnotator | None
                ) -> tuple[list[str], list[str]]:
    """(validated, new) terms of one attribute node: its gazetteer's terms, and the components of its text
    that no annotator marked."""
    text = " ".join("".join(node.itertext()).split())
    cut: list[tuple[int, int]] = []
    own: list[tuple[int, int]] = []
    validated = []
    for annotator in annotators:
        for a in annotator.annotate(text):
            if annotator is gazetteer:
                validated.append(a.value)
                own.append((a.start, a.end))
            else:
                cut.append((a.start, a.end))
    return validated, components(text, cut, own)


# ------------------------------------------------------------------------------------------ the state

@dataclass(frozen=True)
class RoundReport:
    """What one `update` changed: the terms added and dropped per type, in sorted order."""

    added: dict[str, tuple[str, ...]]
    dropped: dict[str, tuple[str, ...]]

    @property
    def changed(self) -> bool:
        return any(self.added.values()) or any(self.dropped.values())


@dataclass
class LearnedGazetteers:
    """The learned gazetteer state of one schema: per type the terms added to and dropped from the shipped
    gazetteers, and the evidence summed over all rounds."""

    schema: str
    added: dict[str, dict[str, None]] = field(default_factory=dict)      # type -> terms, insertion-ordered
    dropped: dict[str, dict[str, None]] = field(default_factory=dict)
    evidence: Evidence = field(default_factory=Evidence)
    rounds: int = 0

    def terms(self, schema: DomainSchema) -> dict[str, tuple[str, ...]]:
        """The effective gazetteer of every gazetteer type: the shipped terms less the dropped ones, plus
        the added ones that no disjoint type's gazetteer holds (a hand-edited file may break that)."""
        shipped = {t: tuple(term for g in schema.attributes[t].gazetteers for term in load_gazetteer(g))
                   for t in gazetteer_types(schema)}
        base = {}
        for t, terms in shipped.items():
            gone = {term_key(x) for x in self.dropped.get(t, ())}
            base[t] = [x for x in terms if term_key(x) not in gone]
        out = {}
        for t, terms in base.items():
            taken = {term_key(x) for other, xs in base.items() if schema.are_disjoint(t, other) for x in xs}
            have = {term_key(x) for x in terms}
            out[t] = tuple(terms) + tuple(x for x in self.added.get(t, ()) if term_key(x) not in taken | have)
        return out

    def update(self, evidence: Evidence, schema: DomainSchema, *, replace: bool = False,
               min_noise: int = MIN_NOISE) -> RoundReport:
        """One learning round (Algorithm 5, lines 5-11): sum `evidence` into the state, then add every term
        with genuine evidence not known for a disjoint type, and drop every term whose noise evidence is over
        Θlearn times its genuine evidence and at least `min_noise`. Types are taken in schema order, terms in
        key order.

        Args:
            evidence: the new pages' evidence (merged over pages).
            schema: the domain; Θlearn is its `thresholds.learn`.
            replace: the evidence replaces the state's, term by term, instead of adding to it: upfront
                learning re-reads the same pages each round, and counting a page once per round would let
                the early rounds' worse gazetteers weigh as much as the last.
            min_noise: the least noise evidence that drops a term ("given enough evidence to support the
                correction", section 4): a place named once in an agent's header is no reason to forget it.
        """
        theta = schema.thresholds.learn
        self.evidence = self.evidence.overlay(evidence) if replace else self.evidence.merge(evidence)
        self.rounds += 1
        current = self.terms(schema)
        keys = {t: {term_key(x) for x in xs} for t, xs in current.items()}
        added: dict[str, list[str]] = {t: [] for t in current}
        dropped: dict[str, list[str]] = {t: [] for t in current}
        ev = self.evidence
        for type_, key in ev.all_keys():
            if type_ not in current:
                continue
            genuine, noise = ev.genuine.get((type_, key), 0), ev.noise.get((type_, key), 0)
            gone = {term_key(x) for x in self.dropped.get(type_, ())}
            if noise > theta * genuine and noise >= min_noise:
                if key in keys[type_]:
                    term = ev.form((type_, key))
                    self.added.get(type_, {}).pop(_find(self.added.get(type_, {}), key), None)
                    self.dropped.setdefault(type_, {})[term] = None
                    keys[type_].discard(key)
                    dropped[type_].append(term)
            elif genuine > 0 and key not in keys[type_] and key not in gone:
                if any(key in keys[o] for o in current if schema.are_disjoint(type_, o)):
                    continue                                   # v ∈ Uρ' with ρ ∧ ρ' → ⊥: v ∈ Ūρ
                term = ev.form((type_, key))
                self.added.setdefault(type_, {})[term] = None
                keys[type_].add(key)
                added[type_].append(term)
        return RoundReport({t: tuple(sorted(v)) for t, v in added.items()},
                           {t: tuple(sorted(v)) for t, v in dropped.items()})

    def to_json(self) -> dict[str, Any]:
        """The file's content: sorted lists and a term -> [genuine, noise] table per type, for a person to
        read and edit."""
        types: dict[str, Any] = {}
        for t in sorted(set(self.added) | set(self.dropped) | {k[0] for k in self.evidence.all_keys()}):
            ev = self.evidence
            table = {ev.form(k): [ev.genuine.get(k, 0), ev.noise.get(k, 0)] for k in ev.all_keys() if k[0] == t}
            types[t] = {"added": sorted(self.added.get(t, ())), "dropped": sorted(self.dropped.get(t, ())),
                        "evidence": dict(sorted(table.items()))}
        return {"format": FORMAT, "version": VERSION, "schema": self.schema, "rounds": self.rounds,
                "pages": self.evidence.pages, "types": types}


def _find(terms: Mapping[str, None], key: str) -> str | None:
    return next((t for t in terms if term_key(t) == key), None)


# ------------------------------------------------------------------------------------------- the file

def load_learned(path: str | Path, schema: DomainSchema | None = None) -> LearnedGazetteers:
    """Read a learned-gazetteers file (`save_learned` writes it); a missing file is an empty state.

    Args:
        path: the JSON file.
        schema: when given, every type in the file must be a gazetteer type of it.

    Raises:
        ConfigError: the file is not JSON, not this format, or names an unknown type; a term both added and
            dropped; the message names the file and the entry.
    """
    path = Path(path)
    if not path.exists():
        return LearnedGazetteers(schema.name if schema is not None else "")
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"learned gazetteers {path}: not a readable JSON file: {exc}") from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ConfigError(f"learned gazetteers {path}: not a learned-gazetteers file (expected \"format\": "
                          f"\"{FORMAT}\")")
    if data.get("version") != VERSION:
        raise ConfigError(f"learned gazetteers {path}: version {data.get('version')!r}, this build reads {VERSION}")
    types = data.get("types")
    if not isinstance(types, dict):
        raise ConfigError(f"learned gazetteers {path}: \"types\" must be an object")
    allowed = set(gazetteer_types(schema)) if schema is not None else None
    state = LearnedGazetteers(str(data.get("schema", "")), rounds=int(data.get("rounds", 0)),
                              evidence=Evidence(pages=int(data.get("pages", 0))))
    for t, entry in types.items():
        where = f"learned gazetteers {path}: types.{t}"
        if allowed is not None and t not in allowed:
            raise ConfigError(f"{where}: {schema.name!r} has no gazetteer type {t!r}; "
                              f"known: {', '.join(sorted(allowed)) or 'none'}")
        lists = {}
        for name in ("added", "dropped"):
            terms = entry.get(name, []) if isinstance(entry, dict) else None
            if not isinstance(terms, list) or not all(isinstance(x, str) and x.strip() for x in terms):
                raise ConfigError(f"{where}.{name}: must be a list of non-empty strings")
            lists[name] = {" ".join(x.split()): None for x in terms}
        both = {term_key(x) for x in lists["added"]} & {term_key(x) for x in lists["dropped"]}
        if both:
            raise ConfigError(f"{where}: terms both added and dropped: {', '.join(sorted(both))}")
        state.added[t], state.dropped[t] = lists["added"], lists["dropped"]
        for term, counts in (entry.get("evidence") or {}).items():
            if not (isinstance(counts, list) and len(counts) == 2 and all(isinstance(n, int) and n >= 0
                                                                          for n in counts)):
                raise ConfigError(f"{where}.evidence.{term}: must be [genuine, noise], two counts >= 0")
            key = (t, term_key(term))
            if counts[0]:
                state.evidence.genuine[key] = counts[0]
            if counts[1]:
                state.evidence.noise[key] = counts[1]
            state.evidence.forms[key] = {term: sum(counts) or 1}
    return state


def save_learned(state: LearnedGazetteers, path: str | Path) -> None:
    """Write the state as JSON: to a temporary file in the same folder, then renamed over `path` (a reader
    never sees half a file).

    Raises:
        ValueError: `path` lies inside the installed pagesieve package.
    """
    path = Path(path).resolve()
    if any(folder in path.parents for folder in _package_folders()):
        raise ValueError(f"{path}: learned gazetteers are never written inside the installed package")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(state.to_json(), fh, indent=1, ensure_ascii=False)
            fh.write("\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _package_folders() -> list[Path]:
    """The folders the pagesieve package is installed from (one in a wheel, the source roots in an editable
    install): a learned file there would be lost on reinstall and shipped by a build."""
    import pagesieve
    import pagesieve.conf
    import pagesieve.models

    return [Path(m.__file__).resolve().parent for m in (pagesieve, pagesieve.conf, pagesieve.models)
            if m.__file__]


def learned_terms(schema: DomainSchema, path: str | Path) -> dict[str, tuple[str, ...]]:
    """The effective gazetteer terms per type with the learned file applied (`LearnedGazetteers.terms`)."""
    return load_learned(path, schema).terms(schema)


def learned_annotators(schema: DomainSchema, path: str | Path) -> tuple[Any, ...]:
    """`build_annotators(schema)` with each gazetteer annotator built from the learned terms instead."""
    terms = learned_terms(schema, path)
    return tuple(GazetteerAnnotator(a.type, terms[a.type]) if isinstance(a, GazetteerAnnotator) and a.type in terms
                 else a for a in build_annotators(schema))


# ------------------------------------------------------------------------------------------ the loop

def learn_pages(pages: Iterable[ParsedPage] | Sequence[ParsedPage], learned: str | Path, *,
                schema: str = "real_estate", rounds: int = 3, settings: Mapping[str, Any] | None = None,
                stop_when_stable: bool = True) -> list[RoundReport]:
    """Upfront learning (section 6.4): `rounds` passes over `pages`, each extracting every page with the
    current gazetteers, summing the pages' evidence and updating the state in `learned` (saved each round).

    Args:
        pages: parsed pages (iterated once per round: pass a sequence).
        learned: the learned-gazetteers file (created when missing, else continued).
        schema: the domain, a packaged name or a path.
        rounds: the most rounds to run.
        settings: other AmberSettings fields.
        stop_when_stable: stop after a round that neither added nor dropped a term (saturation).

    Returns:
        One report per round run.
    """
    from .method import Amber, AmberSettings

    pages = list(pages)
    reports = []
    for _ in range(rounds):
        amber = Amber(AmberSettings(**{**(settings or {}), "schema": schema, "learned": str(learned)}))
        state = load_learned(learned, amber.schema)
        state.schema = amber.schema.name
        evidence = Evidence()
        for page in pages:
            evidence += page_evidence(amber, page)
        report = state.update(evidence, amber.schema, replace=True)
        save_learned(state, learned)
        reports.append(report)
        if stop_when_stable and not report.changed:
            break
    return reports
