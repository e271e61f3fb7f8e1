"""AMBER's annotation model (section 3.2): ann(A, n, v) for a text node n holding a value v of type A.

The paper builds its annotators with GATE from gazetteers and regular expressions "for prices, postcodes,
etc." and shows (section 6.1) that AMBER compensates for low-quality annotators; these are such annotators,
on one text node's text (no DOM logic here). An annotator is any object with a `type` (the attribute type
it marks) and `annotate(text) -> list[Annotation]`; `value` is the normalised value (the paper's
`<span>Oxford,£2k</span>` gives PRICE "2000"), `text[start:end]` the span it was read from.

A user adds an annotator in a few lines: a class with `type` and `annotate`, then
`register_annotator("name", factory)` where `factory(type) -> annotator`; a schema names it in an
attribute's `annotators`. Gazetteers are text files (conf/amber/gazetteers/<name>.txt or a path), one term
a line, `#` comments.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from .schema import DomainSchema

__all__ = ["Annotation", "Annotator", "RegexAnnotator", "PriceAnnotator", "PostcodeAnnotator", "CountAnnotator",
           "YearAnnotator", "MileageAnnotator", "RatingAnnotator", "GazetteerAnnotator", "ANNOTATORS",
           "register_annotator", "build_annotators", "annotate", "load_gazetteer", "gazetteer_path",
           "is_gazetteer_name", "parse_amount"]


@dataclass(frozen=True, slots=True)
class Annotation:
    """ann(type, n, value) on one text: `text[start:end]` is the matched span, `value` the normalised value."""

    type: str
    start: int
    end: int
    value: str


@runtime_checkable
class Annotator(Protocol):
    """Marks values of one attribute type in a text."""

    type: str

    def annotate(self, text: str) -> list[Annotation]: ...


# ---------------------------------------------------------------------------------------------- numbers

_SEP = "[,.\u00a0\u202f\u2009 ]"       # thousands separators seen on listing pages: 1,250 1.250 1 250 (nbsp, thin)
# A grouped number (1,250,000 / 1.250.000 / 427 343) with an optional 1-2 digit decimal part, or a plain one.
NUM = rf"(?:\d{{1,3}}(?:{_SEP}\d{{3}})+(?:[.,]\d{{1,2}})?(?!\d)|\d+(?:[.,]\d{{1,2}})?(?!\d))"


def parse_amount(number: str) -> Decimal:
    """'1,250,000' / '1.250.000' / '427 343' / '34,99' / '12.50' -> Decimal; a 3-digit last group is thousands.

    Raises:
        ValueError: no digits in `number`.
    """
    s = re.sub(r"[\s\u00a0\u202f\u2009]", "", number).rstrip("-").rstrip(",.")
    m = re.search(r"[.,](\d{1,2})$", s)
    whole, frac = (s[: m.start()], m.group(1)) if m else (s, "")
    digits = re.sub(r"\D", "", whole)
    if not digits:
        raise ValueError(f"no digits in {number!r}")
    try:
        return Decimal(f"{digits}.{frac}" if frac else digits)
    except InvalidOperation as exc:   # pragma: no cover - digits only
        raise ValueError(f"not a number: {number!r}") from exc


def _fmt(amount: Decimal) -> str:
    """Decimal -> '1250000' or '12.5' (no exponent)."""
    if amount == amount.to_integral_value():
        return str(int(amount))
    return format(amount.normalize(), "f")


class RegexAnnotator:
    """Base: one compiled pattern; a subclass turns each match into a value (None drops the match)."""

    pattern: re.Pattern[str]
    needs_digit = True      # every match holds a digit: texts without one are not searched (2 in 3 on a page)

    def __init__(self, type: str) -> None:
        self.type = type

    def value(self, m: re.Match[str]) -> str | None:
        return m.group(0)

    def span(self, m: re.Match[str]) -> tuple[int, int]:
        return m.span()

    def annotate(self, text: str) -> list[Annotation]:
        out = []
        for m in self.pattern.finditer(text):
            v = self.value(m)
            if v is not None:
                start, end = self.span(m)
                out.append(Annotation(self.type, start, end, v))
        return out

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.type!r})"


# ---------------------------------------------------------------------------------------------- prices

# Symbols and codes -> ISO 4217 (kr is NOK, SEK or DKK: kept as KR; ¥ read as JPY).
CURRENCIES = {"£": "GBP", "$": "USD", "US$": "USD", "R$": "BRL", "C$": "CAD", "A$": "AUD", "NZ$": "NZD",
              "HK$": "HKD", "€": "EUR", "¥": "JPY", "円": "JPY", "₹": "INR", "kr": "KR", "kr.": "KR", "zł": "PLN",
              "Kč": "CZK", "EUR": "EUR", "GBP": "GBP", "USD": "USD", "CHF": "CHF", "JPY": "JPY", "BRL": "BRL"}
_PREFIX = r"R\$|US\$|NZ\$|HK\$|C\$|A\$|\$|£|€|¥|₹|(?<![A-Za-z])(?:EUR|GBP|USD|CHF|JPY|BRL|kr\.?)"
_SUFFIX = r"€|£|\$|円|(?:EUR|GBP|USD|CHF|JPY|BRL|kr\.?|zł|Kč)(?![A-Za-z])"
_MULT = r"(?:[ ]?(?P<mult{i}>k|K|m|M|mn|bn|million|billion)(?![A-Za-z]))?"
_MULTIPLIERS = {"k": 10**3, "m": 10**6, "mn": 10**6, "million": 10**6, "bn": 10**9, "billion": 10**9}
_PERIOD = (r"(?:[ \u00a0]*(?P<period>(?i:pcm|p\.c\.m\.?|per calendar month|per month|a month|p/m|pm|/month|/mth|/mo"
           r"|/mnd|pw|p\.w\.?|per week|a week|p/w|/week|/wk|pa|p\.a\.|per annum|/year|/yr))(?![A-Za-z]))?")
_PERIODS = {"w": "week", "a": "year", "y": "year"}      # by the letter that decides; everything else is month
_ONE_PRICE = (rf"(?:(?P<pre>{_PREFIX})[ \u00a0]?(?P<num1>{NUM}){_MULT.format(i=1)}"
              # a symbol followed by a number is that number's prefix ("Merken 22 € 34.845": 34845 EUR)
              rf"|(?P<num2>{NUM}){_MULT.format(i=2)}[ \u00a0]?(?P<suf>{_SUFFIX})(?![ \u00a0]?\d)"
              rf"|(?:(?P<oku>\d+)億(?:(?P<man1>{NUM})万)?|(?P<man2>{NUM})万)円)(?P<dash>,-|\.-)?")
_RANGE_TO = r"[ \u00a0]*(?:-|–|—|to)[ \u00a0]*"
_POA = r"(?<![A-Za-z])(?:POA|P\.O\.A\.?|(?i:price on (?:application|request)|price on app\.))(?![A-Za-z])"


def _period(word: str | None) -> str:
    if not word:
        return ""
    w = word.lower().replace(".", "").replace("/", " ").split()
    last = w[-1] if w else ""
    key = "w" if ("week" in last or last in ("pw", "w", "wk")) else "a" if last in ("pa", "annum", "year", "yr") else ""
    return "/" + _PERIODS.get(key, "month")


class PriceAnnotator(RegexAnnotator):
    """Prices with a currency: £1,200 pcm, € 34.990, 427 343 kr, R$ 947.959, 5,480万円, £2k, ranges, POA.

    Value: '<amount> <ISO code>[/<period>]', a range '<low>-<high> <code>', or 'POA'. A bare number is not
    a price: without a currency a count or a year would be one too.
    """

    pattern = re.compile(rf"(?P<one>{_ONE_PRICE}){_PERIOD}|(?P<poa>{_POA})")
    _range_tail = re.compile(rf"{_RANGE_TO}(?:(?P<pre>{_PREFIX})[ \u00a0]?)?(?P<num>{NUM})"
                             rf"{_MULT.format(i='')}(?:[ \u00a0]?(?P<suf>{_SUFFIX}))?{_PERIOD}")

    needs_digit = False     # "POA", "Price on application"

    def __init__(self, type: str = "price") -> None:
        super().__init__(type)

    @staticmethod
    def _parse(m: re.Match[str]) -> tuple[Decimal, str]:
        """(amount, currency code) of a single price match."""
        g = m.groupdict()
        if g.get("oku") or g.get("man1") or g.get("man2"):
            amount = Decimal(g["oku"] or 0) * 10**8 + parse_amount(g["man1"] or g["man2"] or "0") * 10**4
            return amount, "JPY"
        num, mult, cur = (g["num1"], g["mult1"], g["pre"]) if g["num1"] else (g["num2"], g["mult2"], g["suf"])
        amount = parse_amount(num)
        if mult:
            amount *= _MULTIPLIERS[mult.lower()]
        return amount, CURRENCIES.get(cur, CURRENCIES.get(cur.lower(), cur))

    def annotate(self, text: str) -> list[Annotation]:
        out: list[Annotation] = []
        pos = 0
        while (m := self.pattern.search(text, pos)) is not None:
            if m.group("poa"):
                out.append(Annotation(self.type, m.start(), m.end(), "POA"))
                pos = m.end()
                continue
            amount, cur = self._parse(m)
            period, end = _period(m.group("period")), m.end()
            tail = self._range_tail.match(text, end)
            if tail is not None:
                hi_cur = tail.group("pre") or tail.group("suf")
                if hi_cur is None or CURRENCIES.get(hi_cur, CURRENCIES.get(hi_cur.lower(), hi_cur)) == cur:
                    hi = parse_amount(tail.group("num")) * _MULTIPLIERS.get((tail.group("mult") or "").lower(), 1)
                    if hi > amount:
                        period = period or _period(tail.group("period"))
                        value = f"{_fmt(amount)}-{_fmt(hi)} {cur}{period}"
                        out.append(Annotation(self.type, m.start(), tail.end(), value))
                        pos = tail.end()
                        continue
            out.append(Annotation(self.type, m.start(), end, f"{_fmt(amount)} {cur}{period}"))
            pos = end
        return out


# ---------------------------------------------------------------------------------------------- UK postcodes

# The 121 postcode areas of the UK (Royal Mail), plus Crown dependencies GY, IM, JE. Restricting the
# letters keeps car models such as X5 out (section 6.1 reports BMW's X5 against postcode N5 as noise).
UK_POSTCODE_AREAS = (
    "AB", "AL", "B", "BA", "BB", "BD", "BH", "BL", "BN", "BR", "BS", "BT", "CA", "CB", "CF", "CH", "CM", "CO",
    "CR", "CT", "CV", "CW", "DA", "DD", "DE", "DG", "DH", "DL", "DN", "DT", "DY", "E", "EC", "EH", "EN", "EX",
    "FK", "FY", "G", "GL", "GU", "GY", "HA", "HD", "HG", "HP", "HR", "HS", "HU", "HX", "IG", "IM", "IP", "IV",
    "JE", "KA", "KT", "KW", "KY", "L", "LA", "LD", "LE", "LL", "LN", "LS", "LU", "M", "ME", "MK", "ML", "N", "NE",
    "NG", "NN", "NP", "NR", "NW", "OL", "OX", "PA", "PE", "PH", "PL", "PO", "PR", "RG", "RH", "RM", "S", "SA",
    "SE", "SG", "SK", "SL", "SM", "SN", "SO", "SP", "SR", "SS", "ST", "SW", "SY", "TA", "TD", "TF", "TN", "TQ",
    "TR", "TS", "TW", "UB", "W", "WA", "WC", "WD", "WF", "WN", "WR", "WS", "WV", "YO", "ZE",
)
_AREAS = "|".join(sorted(UK_POSTCODE_AREAS, key=len, reverse=True))


class PostcodeAnnotator(RegexAnnotator):
    """UK postcodes, full (SW1A 1AA, N10 3HN) or outward code only (N10, EC1V); value upper-case 'OUT IN'."""

    pattern = re.compile(rf"(?<![A-Za-z0-9])(?P<out>(?:{_AREAS})\d[A-Z\d]?)"
                         rf"(?:[ \u00a0]?(?P<in>\d[ABD-HJLNP-UW-Z]{{2}}))?(?![A-Za-z0-9])")

    def __init__(self, type: str = "postcode") -> None:
        super().__init__(type)

    def value(self, m: re.Match[str]) -> str | None:
        return f"{m.group('out')} {m.group('in')}" if m.group("in") else m.group("out")


# ---------------------------------------------------------------------------------------------- counts

NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
                "nine": 9, "ten": 10}
BEDROOM_NOUNS = ("bedrooms", "bedroom", "beds", "bed", "bdrm", "bd", "br", "quartos", "quarto", "dormitórios",
                 "dormitório", "dorms")
BATHROOM_NOUNS = ("bathrooms", "bathroom", "baths", "bath", "ba", "banheiros", "banheiro", "ban")


class CountAnnotator(RegexAnnotator):
    """'3 bedrooms', '2 bed', 'three bedroom', '2.5 baths': a count before one of `nouns`; value the count."""

    def __init__(self, type: str, nouns: Sequence[str]) -> None:
        super().__init__(type)
        words = "|".join(NUMBER_WORDS)
        alts = "|".join(re.escape(n) for n in sorted(nouns, key=len, reverse=True))
        self.pattern = re.compile(rf"(?<![\w.,])(?P<n>\d{{1,2}}(?:\.5)?|{words})[ \u00a0]?-?[ \u00a0]?"
                                  rf"(?:{alts})(?!\w)", re.IGNORECASE)

    def value(self, m: re.Match[str]) -> str | None:
        n = m.group("n").lower()
        return str(NUMBER_WORDS.get(n, n))


# ---------------------------------------------------------------------------------------------- years

_YEAR = r"(?:19[5-9]\d|20[0-2]\d|2030)"
_YEAR_WORDS = (r"model year|year|yr|reg(?:istered|istration)?|first registration|built|manufactured|baujahr|ez"
               r"|erstzulassung|årsmodell|modellår|ano")
_DELIM = "∙·•|,;:(\\[–"
_YEAR_PATTERN = (rf"(?i:(?<![\w])(?:{_YEAR_WORDS})\.?:?(?:[ \u00a0]+in)?)[ \u00a0]*(?:\d{{1,2}}/)?"
                 rf"(?P<y1>{_YEAR})(?![\d/]|[.,]\d)"
                 rf"|(?<![\d/.,])(?:0?[1-9]|1[0-2])/(?P<y2>{_YEAR})(?![\d/])"
                 rf"|(?:^|(?<=[{_DELIM}]))[ \t\u00a0]*(?P<y3>{_YEAR})(?=[ \t\u00a0]*(?:$|[{_DELIM})\]]))")


class YearAnnotator(RegexAnnotator):
    """Years 1950-2030 in context: after a keyword ('Year: 2018', 'Reg 2015'), as MM/YYYY ('06/2019'), or as
    a field of its own (the whole text, or between separators: '2024 ∙ 21 000 km', '2014 (64 reg)').

    A year inside running prose ('built in the 1990s', 'since 2004 we ...') is left out on purpose.
    """

    pattern = re.compile(_YEAR_PATTERN, re.MULTILINE)

    def __init__(self, type: str = "year") -> None:
        super().__init__(type)

    def value(self, m: re.Match[str]) -> str | None:
        return m.group("y1") or m.group("y2") or m.group("y3")

    def span(self, m: re.Match[str]) -> tuple[int, int]:
        # the whole "Reg 2015" / "06/2019" match; a bare field only the year
        return m.span("y3") if m.group("y3") else m.span()


# ---------------------------------------------------------------------------------------------- mileages

_UNITS = {"miles": "miles", "mile": "miles", "mi": "miles", "km": "km", "kms": "km", "kilometres": "km",
          "kilometers": "km", "kilometre": "km", "kilometer": "km"}


class MileageAnnotator(RegexAnnotator):
    """'45,000 miles', '72.000 km', '21 000 km', '45k miles' -> '45000 miles' / '72000 km'."""

    pattern = re.compile(rf"(?<![\d.,])(?P<num>{NUM})[ \u00a0]?(?P<k>k|K)?[ \u00a0]?"
                         rf"(?P<unit>(?i:miles|mile|mi|kilometres|kilometers|kilometre|kilometer|kms|km))(?![A-Za-z])")

    def __init__(self, type: str = "mileage") -> None:
        super().__init__(type)

    def value(self, m: re.Match[str]) -> str | None:
        amount = parse_amount(m.group("num")) * (1000 if m.group("k") else 1)
        return f"{_fmt(amount)} {_UNITS[m.group('unit').lower()]}"


# ---------------------------------------------------------------------------------------------- ratings

class RatingAnnotator(RegexAnnotator):
    """'4.5 out of 5 stars', '4/5', '3.8 stars' -> '4.5/5'."""

    pattern = re.compile(r"(?<![\d.,])(?P<r>\d(?:[.,]\d)?)[ \u00a0]*(?:(?i:out of)[ \u00a0]*|/[ \u00a0]*)(?P<of>5|10)"
                         r"(?:[ \u00a0]*(?i:stars?))?(?![\d.,]?\d)"
                         r"|(?<![\d.,])(?P<r2>\d(?:[.,]\d)?)[ \u00a0]*(?i:stars?)(?!\w)")

    def __init__(self, type: str = "rating") -> None:
        super().__init__(type)

    def value(self, m: re.Match[str]) -> str | None:
        r = (m.group("r") or m.group("r2")).replace(",", ".")
        of = m.group("of") or "5"
        return None if float(r) > float(of) else f"{r}/{of}"


# ---------------------------------------------------------------------------------------------- gazetteers

def is_gazetteer_name(entry: str) -> bool:
    """A packaged gazetteer name (`car_makes`) rather than a file path."""
    return "/" not in entry and "\\" not in entry and not entry.endswith(".txt")


def gazetteer_path(entry: str, base: Path | None = None) -> Traversable | Path:
    """Packaged `conf/amber/gazetteers/<entry>.txt`, or a path (relative paths relative to `base`).

    Raises:
        FileNotFoundError: no such gazetteer.
    """
    if is_gazetteer_name(entry):
        found = resources.files("pagesieve.conf").joinpath("amber", "gazetteers", f"{entry}.txt")
    else:
        found = Path(entry) if base is None or Path(entry).is_absolute() else base / entry
    if not found.is_file():
        raise FileNotFoundError(f"no gazetteer {entry!r}" + ("" if is_gazetteer_name(entry) else f" at {found}"))
    return found


def load_gazetteer(entry: str) -> tuple[str, ...]:
    """The terms of a gazetteer file: one a line, `#` starts a comment, blank lines skipped, order kept."""
    terms: dict[str, None] = {}
    for line in gazetteer_path(entry).read_text("utf-8").splitlines():
        term = " ".join(line.split("#", 1)[0].split())
        if term:
            terms[term] = None
    return tuple(terms)


_WORD = re.compile(r"\w+")


def _key(term: str) -> str:
    return " ".join(term.lower().replace("-", " ").split())


class GazetteerAnnotator:
    """Whole-word hits of a term list; the value is the term as the gazetteer writes it.

    Terms longer than 3 characters match in any case ('bmw' finds BMW) and across a hyphen or a space
    ('Milton-Keynes'); terms of up to 3 characters match only as written, since 'El' (Norwegian for
    electric), 'MG' or 'Ka' in lower case are common words. The longest term wins where terms overlap
    ('Milton Keynes' over 'Milton').

    Matching looks up the word n-grams of the text in dicts (n up to the longest term's word count): one
    alternation regex of thousands of terms cost 20 µs a text node, most of AMBER's time on a big page.
    """

    def __init__(self, type: str, terms: Iterable[str]) -> None:
        self.type = type
        self.terms = tuple(dict.fromkeys(terms))
        self._folded = {_key(t): t for t in self.terms if len(t) > 3}
        self._exact = {t: t for t in self.terms if len(t) <= 3}
        self._longest = max((len(_WORD.findall(t)) for t in self.terms), default=0)

    def annotate(self, text: str) -> list[Annotation]:
        words = [(m.start(), m.end()) for m in _WORD.finditer(text)]
        kept: list[Annotation] = []
        i = 0
        while i < len(words):
            start = words[i][0]
            for n in range(min(self._longest, len(words) - i), 0, -1):      # the longest term first
                end = words[i + n - 1][1]
                span = text[start:end]
                value = self._exact.get(span) or (self._folded.get(_key(span)) if len(span) > 3 else None)
                if value is not None:
                    kept.append(Annotation(self.type, start, end, value))
                    i += n
                    break
            else:
                i += 1
        return kept

    def __repr__(self) -> str:
        return f"GazetteerAnnotator({self.type!r}, {len(self.terms)} terms)"


# ---------------------------------------------------------------------------------------------- registry

# Annotator name (as a schema's `annotators` writes it) -> factory(attribute type) -> annotator.
ANNOTATORS: dict[str, Callable[[str], Annotator]] = {
    "price": PriceAnnotator,
    "uk_postcode": PostcodeAnnotator,
    "bedrooms": lambda type: CountAnnotator(type, BEDROOM_NOUNS),
    "bathrooms": lambda type: CountAnnotator(type, BATHROOM_NOUNS),
    "year": YearAnnotator,
    "mileage": MileageAnnotator,
    "rating": RatingAnnotator,
}


def register_annotator(name: str, factory: Callable[[str], Annotator], replace: bool = False) -> None:
    """Make `name` usable in a schema's `annotators`; `factory(type)` builds the annotator for one attribute.

    Raises:
        ValueError: `name` is taken and `replace` is False.
    """
    if name in ANNOTATORS and not replace:
        raise ValueError(f"annotator {name!r} is already registered; pass replace=True to replace it")
    ANNOTATORS[name] = factory


def build_annotators(schema: DomainSchema) -> tuple[Annotator, ...]:
    """The annotators of every attribute type of `schema`: its registered ones, then one over its gazetteers.

    Reads the gazetteer files: call it once when a method is built, never per page.
    """
    built: list[Annotator] = []
    for attr, spec in schema.attributes.items():
        built += [ANNOTATORS[name](attr) for name in spec.annotators]
        if spec.gazetteers:
            built.append(GazetteerAnnotator(attr, (t for g in spec.gazetteers for t in load_gazetteer(g))))
    return tuple(built)


_DIGIT = re.compile(r"\d")


def annotate(text: str, annotators: Iterable[Annotator]) -> list[Annotation]:
    """Every annotator over one text, in text order (start, then longest first, then type). An annotator
    with a true `needs_digit` attribute is not asked about a text without a digit."""
    digit = _DIGIT.search(text) is not None
    out = [a for annotator in annotators if digit or not getattr(annotator, "needs_digit", False)
           for a in annotator.annotate(text)]
    out.sort(key=lambda a: (a.start, -a.end, a.type))
    return out
