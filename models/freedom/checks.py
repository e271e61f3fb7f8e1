"""Value checks that hold on every site, applied in FreeDOM's decision (issue #20, item 2).

The node model ranks a page's nodes per field; it can still rank a node first that no site would call that
field's value: an ISBN-10 for an ISBN-13, a page's dimensions for a publication date, the book's title for its
publisher. A check is a small pure function of a node's text (and, for `not_title`, the page's titles) that
says whether the text can be the field's value; the decision (`decode.py`, `relation.py`) then takes the next
node that passes, or none. Which field gets which check is data: `freedom.checks` in conf/freedom.toml.

Every check returns the value to emit, or None when the text fails. `isbn13` may return a span of the text
(the ISBN itself, when the node also holds a label such as `ISBN-13:`); the others return the text unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence

import numpy as np

__all__ = ["CHECKS", "isbn13", "date_or_year", "not_title", "title_key", "PageChecks", "page_checks"]

# An ISBN as written: 10 or 13 digits with optional hyphens or spaces between them (an ISBN-10 may end in X).
_ISBN_RUN = re.compile(r"(?<![\w-])(?:\d[- ]?){9,12}[\dXx](?![\w-]|[- ]\d)")


def _isbn13_valid(digits: str) -> bool:
    """13 digits starting 978 or 979 whose last digit is the EAN-13 check digit (weights 1, 3, 1, 3, ...)."""
    if len(digits) != 13 or not digits.isdigit() or digits[:3] not in ("978", "979"):
        return False
    total = sum(int(d) * (3 if i % 2 else 1) for i, d in enumerate(digits[:12]))
    return (10 - total % 10) % 10 == int(digits[12])


def isbn13(text: str, titles: Collection[str] = ()) -> str | None:
    """The ISBN-13 in `text` (hyphens and spaces allowed), or None when there is no valid one.

    An ISBN-10 (`0-306-40615-2`) is not an ISBN-13. When the text holds more than the ISBN and separators
    (`ISBN-13: 978-0-306-40615-7`), the ISBN is returned as written; otherwise the text itself (SWDE keeps a
    leading `: ` in its gold values, so `: 9780316125581` stays whole).
    """
    for match in _ISBN_RUN.finditer(text):
        span = match.group(0).strip()
        if _isbn13_valid(re.sub(r"[- ]", "", span)):
            rest = text[: match.start()] + text[match.end():]
            return span if any(c.isalnum() for c in rest) else text
    return None


# Month names and their usual abbreviations in English, French, German, Spanish, Italian, Portuguese and Dutch
# (lower-case; a trailing period is dropped before lookup).
_MONTH_LINES = (
    "january february march april may june july august september october november december",
    "jan feb mar apr jun jul aug sep sept oct nov dec",
    "janvier février fevrier mars avril mai juin juillet août aout septembre octobre novembre décembre decembre",
    "janv févr fevr avr juil déc",
    "januar februar märz maerz juni juli oktober dezember jän jaen mär mrz okt dez",
    "enero febrero marzo abril mayo junio julio agosto septiembre setiembre octubre noviembre diciembre",
    "ene abr ago dic",
    "gennaio febbraio aprile maggio giugno luglio settembre ottobre dicembre gen mag giu lug set ott",
    "janeiro fevereiro março marco maio junho julho setembro outubro novembro dezembro fev mai out",
    "januari februari maart mei augustus",
)
_MONTH_WORDS = frozenset(w for line in _MONTH_LINES for w in line.split())
_YEAR = re.compile(r"(?<![\d.,])(1\d{3}|20\d\d)(?![\d]|[.,]\d)")
_NUMERIC_DATE = re.compile(r"(?<![\d.])(\d{1,4})([/.-])(\d{1,2})\2(\d{1,4})(?![\d.]|\.\d)")
_DAY = re.compile(r"^\d{1,2}(st|nd|rd|th|er|\.)?$")
# Things with numbers that are not dates: sizes (`6.0 X 6.5 (inches)`), weights, page counts, prices, ISBNs.
_NOT_A_DATE = re.compile(
    r"\d\s*[x×*]\s*\d|\b(inch(es)?|cm|mm|pages?|pp|lbs?|oz|ounces?|pounds?|kg|grams?)\b"
    r"|[$£€¥]\s?\d|\d\s?(usd|eur|gbp)\b|(\d[- ]?){10,}", re.I)
_MAX_DATE_WORDS = 6          # after a leading `Label:`; a sentence that mentions a year is not a date field


def _numeric_date(a: str, b: str, c: str) -> bool:
    """y-m-d, d-m-y or m-d-y with a plausible month and day (two-digit years allowed at the end)."""
    x, y, z = int(a), int(b), int(c)
    if len(a) == 4:
        return 1000 <= x <= 2099 and 1 <= y <= 12 and 1 <= z <= 31
    if len(c) not in (2, 4) or (len(c) == 4 and not 1000 <= z <= 2099):
        return False
    return (1 <= x <= 31 and 1 <= y <= 12) or (1 <= x <= 12 and 1 <= y <= 31)


def date_or_year(text: str, titles: Collection[str] = ()) -> str | None:
    """`text` when it reads as a date or a year (1000-2099), None otherwise.

    Accepted: a year (`2010`, `: June 2010`, `2010年6月`), a numeric date (`06/15/2010`, `2010-06-15`,
    `15.06.10`), a month name with a day (`June 15`, `15 juin`). Rejected whatever else they hold: sizes
    (`6.0 X 6.5 (inches)`), units, prices, ISBNs, and texts of more than a few words after a label.
    """
    value = text.split(":", 1)[1] if re.match(r"^[^\d:]{0,30}:", text) else text
    if not value.strip() or _NOT_A_DATE.search(text) or len(value.split()) > _MAX_DATE_WORDS:
        return None
    if _YEAR.search(value):
        return text
    if any(_numeric_date(m.group(1), m.group(3), m.group(4)) for m in _NUMERIC_DATE.finditer(value)):
        return text
    words = [w.rstrip(".").casefold() for w in re.findall(r"[^\W\d_]+\.?|\d+\w*\.?", value)]
    for i, word in enumerate(words):
        if word in _MONTH_WORDS and any(_DAY.match(n) and 1 <= int(re.match(r"\d+", n).group()) <= 31
                                        for n in words[max(i - 1, 0): i + 2] if n[:1].isdigit()):
            return text
    return None


def title_key(text: str) -> str:
    """The form titles are compared in: case-folded word characters, single-spaced (`: The Book!` -> `the book`)."""
    return " ".join(re.findall(r"\w+", text.casefold()))


def not_title(text: str, titles: Collection[str] = ()) -> str | None:
    """`text` unless it is the page's title (`titles`: `title_key`s of the extracted title, `<title>`,
    `og:title`) or has no word at all."""
    key = title_key(text)
    return text if key and key not in titles else None


CHECKS: Mapping[str, Callable[[str, Collection[str]], str | None]] = {
    "isbn13": isbn13, "date_or_year": date_or_year, "not_title": not_title}


class PageChecks:
    """The checks of one page: `allowed` (N, K) says which node may be which field's value, `value(i, k)` the
    text to emit for node i as field k (a span for `isbn13`, when `spans` is on)."""

    def __init__(self, allowed: np.ndarray, values: dict[tuple[int, int], str]) -> None:
        self.allowed = allowed
        self._values = values

    def value(self, row: int, k: int, text: str) -> str:
        return self._values.get((row, k), text)


def page_checks(texts: Sequence[str], fields: Sequence[str], checks: Mapping[str, str], titles: Collection[str],
                spans: bool = True) -> PageChecks:
    """Run each field's check (`checks`: field -> check name in CHECKS; fields without one pass) on a page's
    node texts. `titles` are the `title_key`s that `not_title` rejects."""
    allowed = np.ones((len(texts), len(fields)), dtype=bool)
    values: dict[tuple[int, int], str] = {}
    for k, name in enumerate(fields):
        check = CHECKS.get(checks.get(name, ""))
        if check is None:
            continue
        for i, text in enumerate(texts):
            value = check(text, titles)
            allowed[i, k] = value is not None
            if spans and value is not None and value != text:
                values[(i, k)] = value
    return PageChecks(allowed, values)
