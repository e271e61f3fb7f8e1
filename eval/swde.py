"""SWDE: reading the ground truth and the pages of a site, and the page-level F1 of its protocol.

Layout and protocol: ../shared/data/swde/README.md. Ground-truth files are UTF-8 with a BOM and CRLF lines
(split on "\\r\\n" only: two files hold a lone "\\r" inside a value); a page without a value lists `<NULL>`.
A page counts as correct for a field when the predicted value equals one of its gold values after
normalisation (entities unescaped, whitespace collapsed); precision over pages with a prediction, recall over
pages with a gold value, F1 per field, macro over fields for a site, then over sites.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pagesieve.data import data_root
from pagesieve.eval.datasets import GoldPage
from pagesieve.models.freedom.nodes import normalise

__all__ = ["SWDE_ROOT", "SitePages", "read_groundtruth", "read_site", "field_scores", "site_score",
           "iter_book_gold_pages"]

# The shared data folder beside the checkout, as the listings' default (eval/listings_report.py);
# a string, for argparse defaults
SWDE_ROOT = str(data_root() / "swde")

Gold = dict[str, dict[str, list[str]]]          # page id -> field -> values


@dataclass(frozen=True, slots=True)
class SitePages:
    """A site's pages (page id -> (url, raw bytes)) and gold values, as the evaluation reads them."""

    name: str
    pages: dict[str, tuple[str, bytes]]
    gold: Gold


def read_groundtruth(root: str | Path, vertical: str, site: str, fields: Sequence[str]) -> Gold:
    """page id -> field -> gold values (empty list for `<NULL>`), for every page the files list."""
    gold: Gold = {}
    for name in fields:
        path = Path(root) / "groundtruth" / vertical / f"{vertical}-{site}-{name}.txt"
        lines = path.read_bytes().decode("utf-8-sig").split("\r\n")
        for line in lines[2:]:
            if not line:
                continue
            parts = line.split("\t")
            values = [v for v in parts[2:] if v != "<NULL>"] if int(parts[1]) else []
            gold.setdefault(parts[0], {})[name] = values
    return gold


def read_site(root: str | Path, vertical: str, site: str, fields: Sequence[str]) -> SitePages:
    """The pages present on disk of `<vertical>-<site>(n)` with their gold values (absent ids are skipped)."""
    gold = read_groundtruth(root, vertical, site, fields)
    pages: dict[str, tuple[str, bytes]] = {}
    for path in _site_pages(root, vertical, site):
        body = path.read_bytes()
        pages[path.stem] = (_page_url(body, site, path.stem), body)
    return SitePages(site, pages, {pid: gold.get(pid, {}) for pid in pages})


def _site_pages(root: str | Path, vertical: str, site: str) -> list[Path]:
    """The page files on disk of `<vertical>-<site>(n)`, by id."""
    folders = sorted((Path(root) / vertical).glob(f"{vertical}-{site}(*)"))
    if not folders:
        raise FileNotFoundError(f"no pages of {vertical}-{site} under {root}")
    return sorted(folders[0].glob("*.htm"))


def _page_url(body: bytes, site: str, page_id: str) -> str:
    """The source URL a page's first line records (`<base href=...>`), else a made-up one of the site."""
    match = re.search(rb'<base href="([^"]+)"', body[:400])
    return match.group(1).decode() if match else f"http://{site}.example/{page_id}"


def field_scores(predicted: Mapping[str, Mapping[str, str]], gold: Gold, fields: Sequence[str]
                 ) -> dict[str, dict[str, float]]:
    """field -> {precision, recall, f1} over the pages of `gold` (SWDE's page-level counting)."""
    out = {}
    for name in fields:
        made = correct = with_gold = 0
        for pid, values in gold.items():
            wanted = {normalise(v) for v in values.get(name, [])}
            wanted.discard("")
            value = predicted.get(pid, {}).get(name)
            with_gold += bool(wanted)
            if value is not None:
                made += 1
                correct += normalise(value) in wanted
        p = correct / made if made else 0.0
        r = correct / with_gold if with_gold else 0.0
        out[name] = {"precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0}
    return out


def site_score(predicted: Mapping[str, Mapping[str, str]], gold: Gold, fields: Sequence[str]) -> float:
    """Macro F1 over the fields of one site."""
    scores = field_scores(predicted, gold, fields)
    return sum(s["f1"] for s in scores.values()) / len(fields)


# The parts of a booksamillion detail page that hold the book's own text: its title (with the binding), its
# author line, its description and its details list (ISBN, publisher, date, pages), which is what WCXB's product
# gold keeps of a product page; prices, cart buttons, ratings, categories and the recommendation grid are not.
_BOOK_PARTS = ('//div[contains(@class, "details")]/h2', '//h3[@class="author"]', '//div[@class="details-copy"]',
               '//ul[@class="overview-details"]/li')
_BOOK_ASIDES = ('//div[@class="details-copy"]//div[@class="also-avail"]',         # used copies on offer
                '//div[@class="details-copy"]//p[strong[contains(., "Related Categories")]]')


def iter_book_gold_pages(root: str | Path = SWDE_ROOT, count: int = 40) -> Iterator[GoldPage]:
    """The first `count` booksamillion pages as main-text gold pages, for training a cleaner on product pages
    of a source WCXB does not hold: a page's gold is the text of its title, author line, description and
    details list (`_BOOK_PARTS`, less `_BOOK_ASIDES`), one part a paragraph. This gold is made here from the
    site's one template, not by an annotator; a page that lacks a title or a description is skipped.

    Returns:
        An iterator of `GoldPage`, by page id, with `meta={"page_type": "product", "domain": "booksamillion.com"}`.
    """
    import lxml.html

    made = 0
    for path in _site_pages(root, "book", "booksamillion"):
        if made == count:
            return
        body = path.read_bytes()
        tree = lxml.html.fromstring(body.decode("utf-8-sig", errors="replace"))
        for aside in [node for xpath in _BOOK_ASIDES for node in tree.xpath(xpath)]:
            aside.drop_tree()
        parts = [[" ".join(node.text_content().split()) for node in tree.xpath(xpath)] for xpath in _BOOK_PARTS]
        if not parts[0] or not any(parts[2]):
            continue
        yield GoldPage(path.stem, _page_url(body, "booksamillion", path.stem), body,
                       "\n\n".join(text for texts in parts for text in texts if text),
                       meta={"page_type": "product", "domain": "booksamillion.com"})
        made += 1
