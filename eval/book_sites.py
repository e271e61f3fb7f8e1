"""Synthetic book detail-page sites, to see transfer to sites a FreeDOM model never saw.

Each site draws its own template from its seed: how the title is marked up (a heading or a styled span) and
named in the document's <title>, whether the breadcrumbs end with it, a layout for the detail fields (table
rows, a definition list, a bold label with the value in its tail, "Label: value" in one text node, label and
value divs), its own labels ("Publisher", "Imprint", "Published by", ...), field order, date format, how the
author line reads, wrapper depth, and noise blocks (menus, breadcrumbs, a price box, an ISBN-10, a list of
related books with their own titles and authors, reviews, a footer). Pages of a site differ in their book and in
fields left out at random.
Gold values are whole text nodes, as SWDE labels them (`: June 2010` where the label's colon sits in the node).

Held-out variant (`heldout=True`, `heldout:A-B` in a site list): label words that no ordinary site uses, and
detail rows beside the fields in the same markup that look like them to a model but fail a value check (an
ISBN-10, the book's dimensions such as `6.0 X 6.5 (inches)`, a page count, the binding), as real book sites
show them. Its sites draw from their own seed, so the ordinary sites stay byte-identical.

Options (`synthetic+thesaurus:A-B`, `heldout+thesaurus+joined:A-B` in a site list; each draws from its own seed):
- `thesaurus`: labels from the thesaurus in `book_labels.toml` (about 20 phrasings per field), split by a hash
  into training labels (ordinary sites) and held-out labels (held-out sites only; `label_split`), with case,
  the label's colon and a section heading varied per site.
- `joined`: some sites put several fields in one text node (`Publisher: X / Pub. date: Y`, `X · Y`), or the
  ISBN-10 and ISBN-13 side by side in the ISBN's node (`0316125581 / 9780316125581`); the gold value is then
  the field's part of the node (`X`, `9780316125581`), so only a model that splits nodes can find it.

What it cannot show: real sites' markup noise (broken HTML, scripts, ads, tracking), label wording and layouts
outside the lists here, long-tail vocabulary, and the
correlation between a site's age and its markup. A score on these sites bounds nothing on real ones.
"""

from __future__ import annotations

import hashlib
import html
import random
import tomllib
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

__all__ = ["BOOK_FIELDS", "SyntheticSite", "label_split", "generate_site", "generate_sites"]

BOOK_FIELDS = ("author", "isbn_13", "publication_date", "publisher", "title")

_WORDS = ("shadow", "river", "night", "garden", "secret", "house", "winter", "light", "stone", "city", "empire",
          "last", "lost", "dark", "silent", "queen", "king", "daughter", "war", "heart", "fire", "ocean", "journey",
          "memory", "forgotten", "wild", "road", "star", "iron", "glass", "summer", "storm", "children", "promise",
          "island", "mountain", "letter", "song", "ghost", "hunter", "blood", "honor", "truth", "history", "guide",
          "complete", "art", "science", "life", "love", "death", "time", "world", "book", "kitchen", "mind", "power",
          "quiet", "little", "great", "new", "american", "short", "second", "long", "hidden", "golden", "broken")
_FIRST = ("James", "Mary", "John", "Patricia", "Robert", "Jennifer", "Michael", "Linda", "David", "Elizabeth",
          "William", "Susan", "Richard", "Sarah", "Thomas", "Karen", "Daniel", "Nancy", "Paul", "Lisa", "Mark",
          "Betty", "George", "Helen", "Steven", "Sandra", "Edward", "Donna", "Brian", "Carol", "Stephenie", "Kevin",
          "Emily", "Glenn", "Ruth", "Neil", "Toni", "Haruki", "Zadie", "Chinua")
_LAST = ("Smith", "Johnson", "Williams", "Brown", "Jones", "Miller", "Davis", "Garcia", "Wilson", "Anderson",
         "Taylor", "Thomas", "Moore", "Martin", "Jackson", "Thompson", "White", "Harris", "Clark", "Lewis", "Walker",
         "Hall", "Allen", "Young", "King", "Wright", "Scott", "Green", "Baker", "Adams", "Nelson", "Carter",
         "Mitchell", "Roberts", "Turner", "Phillips", "Campbell", "Parker", "Evans", "Meyer", "Morrison", "Achebe")
_PUBLISHERS = ("Penguin Group", "HarperCollins", "Random House", "Simon & Schuster", "Hachette Book Group",
               "Macmillan", "Scholastic Inc.", "Oxford University Press", "Wiley", "Bloomsbury", "Vintage Books",
               "Tor Books", "Little, Brown", "Houghton Mifflin", "Knopf", "Del Rey", "Ballantine Books",
               "Thomas Nelson", "Zondervan", "Harlequin")
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")
_LABELS = {
    "author": ("Author", "Authors", "Written by", "By", "Author(s)", "Writer"),
    "isbn_13": ("ISBN-13", "ISBN", "ISBN13", "EAN", "13-digit ISBN"),
    "publication_date": ("Publication Date", "Published", "Release Date", "Pub. Date", "On Sale", "Date"),
    "publisher": ("Publisher", "Published by", "Imprint", "Publishing House", "Label"),
}
_AUTHOR_SLOT = "@@authors@@"
# Held-out sites' labels: none of them is in _LABELS, so a model trained on ordinary sites never read them.
_HELDOUT_LABELS = {
    "author": ("Contributor", "Author name", "Creator"),
    "isbn_13": ("ISBN 13", "EAN/ISBN-13", "Product code"),
    "publication_date": ("Date published", "Issue date", "First published"),
    "publisher": ("Manufacturer", "Publisher name", "Brand"),
}
_LAYOUTS = ("table", "dl", "bold_tail", "inline", "divs")
# How a site shows the book's title on the page ({} is the title) and in its document <title> ({title},
# {site}, {author}): real sites use any heading or a styled span, and name the book in <title> their own way.
_TITLE_MARKUP = ("<h1 class='title'>{}</h1>", "<h2>{}</h2>", "<div class='product-title'><span>{}</span></div>",
                 "<h1><span id='title'>{}</span></h1>", "<div class='name'><b>{}</b></div>")
_DOCUMENT_TITLES = ("{title} - {site}", "{site}: {title}", "{title} by {author} | {site}", "Buy {title} - {site}",
                    "{site} - Books - {title}")


@dataclass(frozen=True, slots=True)
class SyntheticSite:
    """One generated site: page id -> (url, html bytes), and page id -> field -> gold values."""

    name: str
    pages: dict[str, tuple[str, bytes]]
    gold: dict[str, dict[str, list[str]]]


def _isbn13(rng: random.Random) -> str:
    digits = [9, 7, rng.choice((8, 9))] + [rng.randrange(10) for _ in range(9)]
    check = (10 - sum(d * (3 if i % 2 else 1) for i, d in enumerate(digits)) % 10) % 10
    return "".join(map(str, digits + [check]))


def _date(rng: random.Random, style: int) -> str:
    y, m, d = rng.randrange(1995, 2012), rng.randrange(1, 13), rng.randrange(1, 29)
    return (f"{_MONTHS[m - 1]} {y}", f"{m:02d}/{d:02d}/{y}", f"{_MONTHS[m - 1]} {d}, {y}", f"{y}-{m:02d}-{d:02d}",
            f"{d} {_MONTHS[m - 1][:3]} {y}")[style]


def _book(rng: random.Random, date_style: int, publishers: tuple[str, ...] = _PUBLISHERS) -> dict[str, list[str]]:
    title = " ".join(rng.choice(_WORDS).capitalize() for _ in range(rng.randrange(1, 6)))
    if rng.random() < 0.3:
        title = "The " + title
    authors = [f"{rng.choice(_FIRST)} {rng.choice(_LAST)}" for _ in range(1 if rng.random() < 0.8 else 2)]
    return {"title": [title], "author": authors, "isbn_13": [_isbn13(rng)],
            "publisher": [rng.choice(publishers)], "publication_date": [_date(rng, date_style)]}


@dataclass(frozen=True, slots=True)
class _Template:
    layout: str
    labels: dict[str, str]
    order: tuple[str, ...]
    date_style: int
    colon_in_value: bool       # "Publisher</b>: Foo" -> the value node is ": Foo" (SWDE's booksamillion)
    author_prefix: str
    depth: int
    noise: tuple[str, ...]
    missing: float
    title_markup: str
    document_title: str
    title_crumb: bool          # the breadcrumbs end with the book's title
    extra_rows: tuple[int, ...] = ()   # held-out sites: where the ISBN-10, dimensions, pages, binding rows go
    label_end: str | None = None       # thesaurus sites: what ends a label in its own node (None: the layout's)
    heading: str = ""                  # thesaurus sites: a heading above the detail rows
    joined: tuple[str, ...] = ()       # joined sites: the fields that share one text node, in this order
    joiner: str = " / "                # ... and what separates them there
    joined_labels: bool = True         # ... each part as "Label: value" (else the bare values)
    isbn_pair: bool = False            # joined sites: "ISBN-10 / ISBN-13" in the ISBN's value node
    publishers: tuple[str, ...] = _PUBLISHERS    # thesaurus sites: their half of the thesaurus' names
    other_rows: tuple[str, ...] = ()   # thesaurus training sites: labels of their rows that are no field
    pre_title: bool = False            # thesaurus sites: a line of words that change per page just before the title


_THESAURUS = Path(__file__).with_name("book_labels.toml")
_HELD_OUT_SHARE = 3          # one label in 3 is held out (by hash)
_LABEL_ENDS = ("", ":", " :", ":")
_JOINERS = (" / ", " | ", " · ", "; ", " - ", " • ")
_CASES = (str, str, str.lower, str.upper, str.title)


@cache
def _thesaurus() -> dict:
    with _THESAURUS.open("rb") as f:
        return tomllib.load(f)


@cache
def label_split() -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    """key of `book_labels.toml` (a field, `headings`, `publisher_names`) -> (training labels, held-out labels). A
    label is held out when the hash of `<key>/<label>` is divisible by 3: a split no one chose by hand, stable as
    the list grows."""
    out = {}
    for key, labels in _thesaurus().items():
        if not isinstance(labels, list):
            continue
        held = {x for x in labels if int(hashlib.sha256(f"{key}/{x}".encode()).hexdigest(), 16) % _HELD_OUT_SHARE == 0}
        out[key] = (tuple(x for x in labels if x not in held), tuple(x for x in labels if x in held))
    return out


def _thesaurus_template(rng: random.Random, t: _Template, heldout: bool) -> _Template:
    """`t` with labels, label ends, case and heading drawn from the thesaurus' training or held-out half."""
    side = 1 if heldout else 0
    case = rng.choice(_CASES)
    labels = {f: case(rng.choice(label_split()[f][side])) for f in t.labels}
    heading = rng.choice(label_split()["headings"][side]) if rng.random() < 0.5 else ""
    end = rng.choice(_LABEL_ENDS)
    # the byline's word is the author's label too, so that no held-out word shows on a training site
    prefix = f"{labels['author']}{end} " if t.author_prefix else ""
    # pre_title: what precedes a title on a real page is anything (a cart, a promotion, a search box), so the
    # text before the title must not be learnt as its label
    t = replace(t, labels=labels, label_end=end, heading=heading, author_prefix=prefix,
                publishers=label_split()["publisher_names"][side], pre_title=rng.random() < 0.5)
    if heldout:
        return t
    others = rng.sample(sorted(_thesaurus()["other_rows"]), rng.randrange(1, 5))
    return replace(t, other_rows=tuple(case(x) for x in others),
                   extra_rows=tuple(rng.randrange(5 + i) for i in range(len(others))))


def _joined_template(rng: random.Random, t: _Template) -> _Template:
    """`t` with, on most sites, two or three detail fields in one node, and on some the ISBN pair."""
    fields = [f for f in t.order if f != "author"]
    joined = tuple(f for f in t.order if f in rng.sample(fields, rng.choice((2, 2, 3)))) if rng.random() < 0.7 else ()
    return replace(t, joined=joined, joiner=rng.choice(_JOINERS), joined_labels=rng.random() < 0.7,
                   isbn_pair="isbn_13" not in joined and rng.random() < 0.5)


def _template(rng: random.Random) -> _Template:
    order = ["author", "isbn_13", "publication_date", "publisher"]
    rng.shuffle(order)
    noise = tuple(n for n in ("nav", "crumbs", "price", "isbn10", "related", "reviews", "pages", "footer")
                  if rng.random() < 0.7)
    return _Template(rng.choice(_LAYOUTS), {f: rng.choice(v) for f, v in _LABELS.items()}, tuple(order),
                     rng.randrange(5), rng.random() < 0.3, rng.choice(("by ", "By: ", "", "Author: ")),
                     rng.randrange(1, 4), noise, rng.choice((0.0, 0.05, 0.15)), rng.choice(_TITLE_MARKUP),
                     rng.choice(_DOCUMENT_TITLES), rng.random() < 0.5)


def _e(text: str) -> str:
    return html.escape(text, quote=False)


def _detail(t: _Template, name: str, value: str, label: str | None = None) -> tuple[str, str]:
    """(markup of one detail field, its gold text node); `label` overrides the site's label of `name`."""
    label = label or t.labels[name]
    if t.layout == "table":
        return f"<tr><th>{_e(label)}{_end(t, ':')}</th><td>{_e(value)}</td></tr>", value
    if t.layout == "dl":
        return f"<dt>{_e(label)}{_end(t, '')}</dt><dd>{_e(value)}</dd>", value
    if t.layout == "bold_tail":
        if t.colon_in_value:
            return f"<li><b>{_e(label)}</b>{_e(': ' + value)}</li>", f": {value}"
        return f"<li><b>{_e(label)}</b>: <span>{_e(value)}</span></li>", value
    if t.layout == "inline":
        gold = f"{label}: {value}"
        return f"<p>{_e(gold)}</p>", gold
    key = f'<div class="k">{_e(label)}{_end(t, "")}</div>'
    return f'<div class="row">{key}<div class="v">{_e(value)}</div></div>', value


def _end(t: _Template, default: str) -> str:
    return default if t.label_end is None else t.label_end


def _joined_node(t: _Template, book: dict[str, list[str]], present: list[str]) -> tuple[str, dict[str, list[str]]]:
    """One text node holding the present joined fields, and their gold values (each field's part of it)."""
    parts = [f"{t.labels[f]}: {book[f][0]}" if t.joined_labels else book[f][0] for f in present]
    holder = {"table": "<tr><td colspan='2'>{}</td></tr>", "dl": "<dd>{}</dd>", "bold_tail": "<li>{}</li>"}
    markup = holder.get(t.layout, "<p class='meta'>{}</p>").format(_e(t.joiner.join(parts)))
    return markup, {f: [book[f][0]] for f in present}


def _noise(kind: str, rng: random.Random, book: dict[str, list[str]], t: _Template) -> str:
    if kind == "nav":
        return "<ul class='nav'>" + "".join(f"<li><a href='#'>{w}</a></li>" for w in
                                            ("Home", "Books", "eBooks", "Music", "Gifts", "Sale", "Help")) + "</ul>"
    if kind == "crumbs":
        last = f" &gt; <span>{_e(book['title'][0])}</span>" if t.title_crumb else ""
        return (f"<div class='crumbs'><a>Home</a> &gt; <a>Books</a> &gt; <a>{rng.choice(_WORDS).title()}</a>{last}"
                "</div>")
    if kind == "price":
        price = f"${rng.randrange(5, 40)}.{rng.randrange(100):02d}"
        return f"<div class='price'><span>Our price:</span> <span>{price}</span></div>"
    if kind == "isbn10":
        return f"<div>ISBN-10: <span>{rng.randrange(10**8, 10**9)}{rng.choice('0123456789X')}</span></div>"
    if kind == "pages":
        binding = rng.choice(("Paperback", "Hardcover"))
        return f"<div><span>{binding}</span>, <span>{rng.randrange(90, 900)} pages</span></div>"
    if kind == "related":
        items = []
        for _ in range(4):
            other = _book(rng, t.date_style, t.publishers)
            items.append(f"<li><a href='#'>{_e(other['title'][0])}</a><span>{_e(other['author'][0])}</span></li>")
        return "<h3>Customers also bought</h3><ul class='related'>" + "".join(items) + "</ul>"
    if kind == "reviews":
        words = " ".join(rng.choice(_WORDS) for _ in range(rng.randrange(8, 30)))
        return f"<div class='review'><b>{rng.randrange(1, 6)} stars</b><p>{_e(words.capitalize())}.</p></div>"
    return "<div class='footer'>Copyright 2010. All rights reserved. <a>Privacy</a> <a>Contact us</a></div>"


def _extra_rows(rng: random.Random, t: _Template) -> list[str]:
    """Detail rows that are no field (held-out sites; thesaurus training sites: `other_rows`), in the site's
    layout."""
    if t.other_rows:
        table = {k.lower(): v for k, v in _thesaurus()["other_rows"].items()}
        return [_detail(t, "", rng.choice(table[label.lower()]), label)[0] for label in t.other_rows]
    isbn10 = f"{rng.randrange(10**8, 10**9)}{rng.choice('0123456789X')}"
    size = f"{rng.randrange(4, 10)}.{rng.randrange(10)} X {rng.randrange(5, 12)}.{rng.randrange(10)} (inches)"
    values = (("ISBN-10", isbn10), ("Dimensions", size), ("Pages", str(rng.randrange(90, 900))),
              ("Format", rng.choice(("Paperback", "Hardcover", "Mass Market"))))
    return [_detail(t, "", value, label)[0] for label, value in values]


def _page(t: _Template, rng: random.Random, site: str) -> tuple[str, dict[str, list[str]]]:
    book = _book(rng, t.date_style, t.publishers)
    gold: dict[str, list[str]] = {"title": book["title"]}
    head = t.title_markup.format(_e(book["title"][0]))
    if t.pre_title:
        words = " ".join(rng.choice(_WORDS) for _ in range(rng.randrange(1, 4)))
        head = f"<div class='promo'>{_e(words.capitalize())}</div>{head}"
    author_links = ", ".join(f"<a href='#'>{_e(a)}</a>" for a in book["author"])
    rows = []
    joined: list[str] = []
    for name in t.order:
        if rng.random() < t.missing:
            gold[name] = []
            continue
        if name in t.joined:
            if not joined:
                rows.append("")                     # the joined node's place: its first present field's
            joined.append(name)
            continue
        if name == "isbn_13" and t.isbn_pair:
            isbn10 = f"{rng.randrange(10**8, 10**9)}{rng.choice('0123456789X')}"
            markup, _ = _detail(t, name, f"{isbn10}{t.joiner}{book[name][0]}")
            rows.append(markup)
            gold[name] = list(book[name])
            continue
        if name == "author" and t.layout in ("bold_tail", "inline", "divs") and t.author_prefix:
            head += f"<div class='byline'>{_e(t.author_prefix)}{author_links}</div>"
            gold[name] = list(book["author"])
            continue
        if name == "author":
            # the names are links inside the field's markup: each name is its own text node, as on real sites
            markup, _ = _detail(t, name, _AUTHOR_SLOT)
            rows.append(markup.replace(_AUTHOR_SLOT, author_links))
            gold[name] = list(book["author"])
            continue
        markup, value = _detail(t, name, book[name][0])
        rows.append(markup)
        gold[name] = [value]
    if joined:
        at = rows.index("")
        if len(joined) > 1:
            rows[at], joined_gold = _joined_node(t, book, joined)
            gold |= joined_gold
        else:                                       # the others missing: an ordinary row
            rows[at], value = _detail(t, joined[0], book[joined[0]][0])
            gold[joined[0]] = [value]
    if t.extra_rows:
        for at, row in zip(t.extra_rows, _extra_rows(rng, t), strict=True):
            rows.insert(min(at, len(rows)), row)       # a fixed place per site; missing fields shift it
    wrap = {"table": ("<table>", "</table>"), "dl": ("<dl>", "</dl>")}.get(t.layout, ("<ul>", "</ul>"))
    if t.layout in ("inline", "divs"):
        wrap = ("<div class='details'>", "</div>")
    noise_before = [_noise(k, rng, book, t) for k in t.noise if k in ("nav", "crumbs")]
    noise_after = [_noise(k, rng, book, t) for k in t.noise if k not in ("nav", "crumbs")]
    heading = f"<h3>{_e(t.heading)}</h3>" if t.heading else ""
    body = head + heading + wrap[0] + "".join(rows) + wrap[1] + "".join(noise_after)
    for _ in range(t.depth):
        body = f"<div>{body}</div>"
    document_title = t.document_title.format(title=book["title"][0], site=site, author=book["author"][0])
    page = (f"<html><head><title>{_e(document_title)}</title></head><body>"
            + "".join(noise_before) + body + "</body></html>")
    return page, gold


def generate_site(index: int, n_pages: int, seed: int = 0, heldout: bool = False, thesaurus: bool = False,
                  joined: bool = False) -> SyntheticSite:
    """Site number `index` (its template and books depend only on `seed`, `index` and the options), `n_pages`
    pages; `heldout`: the held-out variant (module docstring), named `heldbook<index>`; `thesaurus`, `joined`:
    the options of the module docstring (names end `-t`, `-j`, `-tj`)."""
    options = ("/thesaurus" if thesaurus else "") + ("/joined" if joined else "")
    rng = random.Random(f"book-site/{seed}/{index}" + ("/heldout" if heldout else "") + options)
    t = _template(rng)
    if heldout:
        t = replace(t, labels={f: rng.choice(v) for f, v in _HELDOUT_LABELS.items()},
                    extra_rows=tuple(rng.randrange(5 + i) for i in range(4)))
    if thesaurus:
        t = _thesaurus_template(rng, t, heldout)
    if joined:
        t = _joined_template(rng, t)
    suffix = ("t" if thesaurus else "") + ("j" if joined else "")
    name = f"{'heldbook' if heldout else 'synbook'}{index:02d}" + (f"-{suffix}" if suffix else "")
    pages, gold = {}, {}
    for i in range(n_pages):
        markup, page_gold = _page(t, rng, name)
        pid = f"{i:04d}"
        pages[pid] = (f"http://{name}.example/book/{pid}", markup.encode("utf-8"))
        gold[pid] = page_gold
    return SyntheticSite(name, pages, gold)


def generate_sites(indices: range | list[int], n_pages: int, seed: int = 0, heldout: bool = False,
                   thesaurus: bool = False, joined: bool = False) -> list[SyntheticSite]:
    return [generate_site(i, n_pages, seed, heldout, thesaurus, joined) for i in indices]
