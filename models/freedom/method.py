"""FreeDOM as an extractor: the pages of a site -> node selection -> one batched forward pass -> fields -> the
relation stage for the fields left without a value -> vote."""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlsplit

import numpy as np
import torch

from ..page import Extractor, ExtractResult, Field, ParsedPage, Record
from .checks import PageChecks, page_checks, title_key
from .decode import Choice, page_choices, value_of, vote_site
from .features import NodeInputs
from .model import FreeDOMModel, pick_device
from .nodes import TextNode, document_titles, page_nodes, select_site_nodes
from .settings import FreeDOMSettings

__all__ = ["FreeDOM", "site_of"]

TITLE_FIELD = "title"        # the field whose value `not_title` checks compare with


def site_of(page: ParsedPage) -> str:
    """The host of the page's URL (the adapter's grouping), "" without one."""
    return (urlsplit(page.url or "").hostname or "") if page.url else ""


class FreeDOM(Extractor):
    """Detail-page fields of a vertical from a model trained on a few seed sites (see the package docs).

    It needs the pages of a site together (`group_by = "site"`): node selection compares them. A site of one
    page is extracted without the filter and without voting (see `nodes.py`).
    """

    name = "freedom"
    version = 1
    batched = True
    group_by = "site"
    settings_class = FreeDOMSettings

    def __init__(self, settings: FreeDOMSettings | None = None) -> None:
        self.settings = settings or FreeDOMSettings.load()
        self.device = pick_device(self.settings.device)
        if self.device.type == "cpu":
            torch.set_num_threads(self.settings.threads)  # per process; Spark runs one worker per core
        self.model = FreeDOMModel.load(self.settings.model).to(self.device)
        self.schema = self.settings.schema or self.model.vertical

    def process(self, page: ParsedPage) -> ExtractResult:
        return self.process_batch([page])[0]

    def process_batch(self, pages: Sequence[ParsedPage]) -> list[ExtractResult]:
        sites: dict[str, list[int]] = {}
        for i, page in enumerate(pages):
            sites.setdefault(site_of(page), []).append(i)
        results: list[ExtractResult | None] = [None] * len(pages)
        for members in sites.values():
            for i, choices in zip(members, self.site_choices([pages[i] for i in members]), strict=True):
                results[i] = self.result(choices)
        return [r for r in results if r is not None]

    def site_choices(self, pages: Sequence[ParsedPage]) -> list[dict[str, Choice]]:
        """The chosen field values of each page of one site, after voting when it is on."""
        selected = select_site_nodes([page_nodes(p.root, self.model.spans) for p in pages], self.settings.top_n).pages
        flat = [node for nodes in selected for node in nodes]
        inputs = self.model.encode(flat)
        probs = self.model.probabilities(inputs, self.settings.max_batch_nodes)
        bounds = np.cumsum([0] + [len(nodes) for nodes in selected])
        per_page = [probs[bounds[i]: bounds[i + 1]] for i in range(len(selected))]
        fields = self.model.fields
        checks = ([self.page_checks(p, nodes, probs) for p, nodes, probs in zip(pages, selected, per_page, strict=True)]
                  if self.settings.value_checks else [None] * len(pages))
        choices = [page_choices(nodes, p, fields, c) for nodes, p, c in zip(selected, per_page, checks, strict=True)]
        if self.settings.relation and self.model.relation is not None:
            decisions = self.relation_decisions(inputs, selected, per_page, checks)
            for nodes, page_probs, page_out, decided, c in zip(selected, per_page, choices, decisions, checks,
                                                               strict=True):
                for k, row in decided.items():
                    page_out[fields[k]] = Choice(fields[k], value_of(nodes, row, k, c), nodes[row].xpath,
                                                 round(float(page_probs[row, k]), 4))
        if self.settings.vote:
            choices = vote_site(selected, per_page, choices, fields, self.settings.vote_min_pages,
                                checks if self.settings.value_checks else None)
        return choices

    def relation_decisions(self, inputs: NodeInputs, selected: Sequence[Sequence[TextNode]],
                           per_page: Sequence[np.ndarray], checks: Sequence[PageChecks | None]) -> list[dict[int, int]]:
        """Per page, field -> node row from the relation stage. With value checks, the stage runs as without
        them and a field keeps that pick when it passes: the pair network judges every field's candidates
        together, so candidates changed for one field (its node failed) would move the others' picks. Fields
        left without a passing pick (their node-stage node or that pick failed) take the pick of a second run
        in which failing nodes are no candidates."""
        m = self.settings.relation_top_m
        plain = self.model.relation_decisions(inputs, selected, per_page, m)
        if not self.settings.value_checks:
            return plain
        checked = self.model.relation_decisions(inputs, selected, per_page, m,
                                                allowed=[c.allowed for c in checks if c is not None])
        out = []
        for first, second, c in zip(plain, checked, checks, strict=True):
            kept = {k: row for k, row in first.items() if c is None or c.allowed[row, k]}
            out.append(kept | {k: row for k, row in second.items() if k not in kept})
        return out

    def page_checks(self, page: ParsedPage, nodes: Sequence[TextNode], probs: np.ndarray) -> PageChecks:
        """The value checks of one page's nodes. `not_title` compares with the page's `<title>` / `og:title` and
        with the title the node stage extracts (after the title's own check, if it has one)."""
        fields, texts = self.model.fields, [n.text for n in nodes]
        titles = {title_key(t) for t in document_titles(page.root)}
        checks = page_checks(texts, fields, self.settings.checks, titles, self.settings.value_spans)
        if TITLE_FIELD in fields and "not_title" in self.settings.checks.values():
            title = page_choices(nodes, probs, fields, checks).get(TITLE_FIELD)
            if title is not None and title_key(title.value) not in titles:
                checks = page_checks(texts, fields, self.settings.checks, titles | {title_key(title.value)},
                                     self.settings.value_spans)
        return checks

    def result(self, choices: dict[str, Choice]) -> ExtractResult:
        fields = tuple(Field(c.field, c.value, c.xpath, c.origin, c.score)
                       for name in self.model.fields if (c := choices.get(name)) is not None)
        if not fields:
            return ExtractResult(status="empty", schema=self.schema)
        return ExtractResult(schema=self.schema, records=(Record(fields),))
