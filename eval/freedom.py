"""FreeDOM on SWDE-style sites: labelled training pages, and page-level F1 of a model on held-out sites.

A "site" here is anything with `name`, `pages` (page id -> (url, bytes)) and `gold` (page id -> field ->
values): `swde.SitePages` or a generated `book_sites.SyntheticSite`. The model sees the pages of one site
together, as the Spark job's grouping gives them.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

import numpy as np

from pagesieve.models.freedom.method import FreeDOM
from pagesieve.models.freedom.nodes import TextNode, page_nodes, select_site_nodes
from pagesieve.models.freedom.settings import FreeDOMSettings
from pagesieve.models.freedom.training import label_nodes
from pagesieve.models.page import parse_page

from .book_sites import generate_sites
from .swde import field_scores, read_site

__all__ = ["Site", "sites_of", "subset", "labelled_pages", "predict_site", "score_sites"]


class Site(Protocol):
    name: str
    pages: dict[str, tuple[str, bytes]]
    gold: dict[str, dict[str, list[str]]]


def subset(site: Site, ids: Sequence[str]):
    """The same site with only the pages `ids` (train / test split within a site)."""
    keep = [i for i in ids if i in site.pages]
    return replace(site, pages={i: site.pages[i] for i in keep}, gold={i: site.gold[i] for i in keep})


def sites_of(spec: str, vertical: str, fields: list[str], swde: str, synthetic_pages: int, seed: int) -> list:
    """The sites a comma-separated list names: an SWDE site (`booksamillion`, or `booksamillion[0-199]` for a
    range of its page ids), `synthetic:A-B` (generated book sites A..B, `synthetic_pages` pages each) or
    `heldout:A-B` (the generator's held-out variant: unseen labels, look-alike rows; `book_sites.py`), either
    with generator options after `+` (`synthetic+thesaurus:0-23`, `heldout+thesaurus+joined:300-329`)."""
    sites = []
    for item in filter(None, spec.split(",")):
        kind, *options = item.split(":", 1)[0].split("+")
        if ":" in item and kind in ("synthetic", "heldout"):
            unknown = set(options) - {"thesaurus", "joined"}
            if unknown:
                raise ValueError(f"unknown generator option {sorted(unknown)[0]!r} in {item!r}")
            a, _, b = item.split(":", 1)[1].partition("-")
            sites += generate_sites(range(int(a), int(b or a) + 1), synthetic_pages, seed, heldout=kind == "heldout",
                                    thesaurus="thesaurus" in options, joined="joined" in options)
            continue
        match = re.fullmatch(r"(\w+)(?:\[(\d+)-(\d+)\])?", item)
        if not match:
            raise ValueError(f"bad seed site {item!r}")
        site = read_site(swde, vertical, match.group(1), fields)
        if match.group(2):
            lo, hi = int(match.group(2)), int(match.group(3))
            site = subset(site, [f"{i:04d}" for i in range(lo, hi + 1)])
        sites.append(site)
    return sites


def labelled_pages(site: Site, fields: Sequence[str], top_n: int,
                   spans: bool = False) -> list[tuple[list[TextNode], np.ndarray]]:
    """The selected nodes of each page of `site` (with span candidates when `spans`: `nodes.spans_of`) and their
    classes (see `training.label_nodes`)."""
    ids = sorted(site.pages)
    nodes = [page_nodes(parse_page(site.pages[i][1], url=site.pages[i][0]).root, spans) for i in ids]
    selected = select_site_nodes(nodes, top_n).pages
    return [(list(page), label_nodes(page, site.gold[i], fields)) for i, page in zip(ids, selected, strict=True)]


def predict_site(method: FreeDOM, site: Site) -> dict[str, dict[str, str]]:
    """page id -> field -> value, with the site's pages in one call (as the Spark job groups them)."""
    ids = sorted(site.pages)
    pages = [parse_page(site.pages[i][1], url=site.pages[i][0], page_id=i) for i in ids]
    out = {}
    for i, result in zip(ids, method.process_batch(pages), strict=True):
        out[i] = {f.name: f.value for r in result.records for f in r.fields if f.value is not None}
    return out


def score_sites(model: str, sites: Sequence[Site], fields: Sequence[str], vote: bool, top_n: int = 300,
                settings: FreeDOMSettings | None = None, relation: bool = True,
                value_checks: bool | None = None) -> dict[str, dict]:
    """site -> {"f1": macro over fields, "fields": field -> {precision, recall, f1}}, plus "mean" over sites
    ({"f1", "fields": field -> mean F1}).

    `settings`, when given, is used as is but for `vote` and `relation` (and `model`, `top_n` are ignored); on
    the CPU unless its `device` says otherwise. `relation` runs the second stage when the model has one;
    `value_checks`, when not None, turns the decision's value checks on or off.
    """
    if settings is None:
        settings = FreeDOMSettings(model=model, vote=vote, top_n=top_n, device="cpu")
    settings = dataclasses.replace(settings, vote=vote, relation=relation)
    if value_checks is not None:
        settings = dataclasses.replace(settings, value_checks=value_checks)
    method = FreeDOM(settings)
    out: dict[str, dict] = {}
    for site in sites:
        scores = field_scores(predict_site(method, site), site.gold, fields)
        out[site.name] = {"f1": sum(s["f1"] for s in scores.values()) / len(fields), "fields": scores}
    n = max(len(sites), 1)
    out["mean"] = {"f1": sum(v["f1"] for v in out.values()) / n,
                   "fields": {f: sum(out[s.name]["fields"][f]["f1"] for s in sites) / n for f in fields}}
    return out
