"""Synthetic listing pages with exact ground truth, for AMBER's robustness and learning studies (the paper's
section 6.1 "Robustness" and section 6.4, Tables 1-2), where the real pages are too few to cut a gazetteer.

A page is a UK property result page built from one of several templates (`list`, `grid`, `table`) with
the noise the paper names: a featured area next to the main one (several data areas), adverts with prices
between the records, crossed-out old prices, a filter menu of prices and locations, free-text descriptions
that mention other places, and the location in its own element or in one text with a street or a postcode.
Locations are drawn from `LOCATIONS`, the shipped gazetteer (conf/amber/gazetteers/uk_locations.txt) plus
`EXTRA_LOCATIONS`, so a good share of them is unknown to the gazetteer, as on real pages.

Everything is drawn from `random.Random(seed, page index)`: the same seed gives the same pages, byte for
byte. `GeneratedPage.truth` is a `ListingTruth` that `score_records` accepts, `truth_json()` the
`truth/<id>.json` format `read_listing_truth` reads, and `write_listing_folder` writes a folder that
`read_listings` reads (into a folder the caller names: nothing generated belongs in git).
"""

from __future__ import annotations

import html
import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .listings import ListingPage, ListingTruth, TruthRecord

__all__ = ["GeneratedPage", "TEMPLATES", "ATTRIBUTES", "EXTRA_LOCATIONS", "shipped_locations", "all_locations",
           "generate_page", "generate_pages", "write_listing_folder"]

TEMPLATES = ("list", "grid", "table")
ATTRIBUTES = ("price", "location", "postcode", "bedrooms", "bathrooms", "property_type", "detail_link")

# UK towns, villages and districts that conf/amber/gazetteers/uk_locations.txt does not hold, written from
# general knowledge; none of three letters or fewer (the gazetteer matches those case-sensitively only), none
# a common English word (Street, March, Sale, Deal are towns too, but would make every page ambiguous).
EXTRA_LOCATIONS = (
    "Abingdon", "Witney", "Bicester", "Banbury", "Didcot", "Thame", "Wantage", "Henley-on-Thames", "Headington",
    "Kidlington", "Didsbury", "Chorlton", "Levenshulme", "Withington", "Fallowfield", "Altrincham",
    "Prestwich", "Salford", "Eccles", "Urmston", "Stretford", "Bramhall", "Cheadle", "Wilmslow", "Knutsford",
    "Macclesfield", "Congleton", "Crewe", "Nantwich", "Northwich", "Runcorn", "Widnes", "St Helens", "Southport",
    "Formby", "Crosby", "Bootle", "Birkenhead", "Wallasey", "Heswall", "Ormskirk", "Chorley", "Leyland",
    "Burnley", "Accrington", "Blackburn", "Darwen", "Rochdale", "Oldham", "Ashton-under-Lyne", "Hyde", "Glossop",
    "Buxton", "Matlock", "Bakewell", "Chesterfield", "Mansfield", "Newark", "Southwell", "Beeston", "West Bridgford",
    "Arnold", "Hucknall", "Ilkeston", "Long Eaton", "Loughborough", "Melton Mowbray", "Oakham", "Stamford",
    "Market Harborough", "Hinckley", "Nuneaton", "Rugby", "Leamington Spa", "Warwick", "Kenilworth",
    "Stratford-upon-Avon", "Solihull", "Sutton Coldfield", "Lichfield", "Tamworth", "Walsall", "Dudley",
    "Stourbridge", "Halesowen", "Kidderminster", "Bromsgrove", "Redditch", "Evesham", "Malvern", "Tewkesbury",
    "Stroud", "Cirencester", "Tetbury", "Chippenham", "Corsham", "Devizes", "Marlborough", "Trowbridge",
    "Frome", "Wells", "Glastonbury", "Bridgwater", "Taunton", "Minehead", "Yeovil", "Sherborne",
    "Dorchester", "Weymouth", "Bridport", "Lyme Regis", "Honiton", "Exmouth", "Sidmouth", "Tiverton", "Crediton",
    "Okehampton", "Tavistock", "Totnes", "Dartmouth", "Brixham", "Paignton", "Torquay", "Newton Abbot",
    "Teignmouth", "Dawlish", "Barnstaple", "Bideford", "Ilfracombe", "Bude", "Launceston", "Bodmin", "Truro",
    "Falmouth", "Penzance", "St Ives", "Newquay", "St Austell", "Looe", "Saltash", "Keynsham", "Clevedon",
    "Portishead", "Nailsea", "Weston-super-Mare", "Thornbury", "Yate", "Chipping Sodbury", "Clifton", "Redland",
    "Bishopston", "Southville", "Bedminster", "Totterdown", "Headingley", "Chapel Allerton", "Roundhay",
    "Horsforth", "Otley", "Ilkley", "Keighley", "Bingley", "Shipley", "Pudsey", "Morley", "Wakefield",
    "Pontefract", "Castleford", "Dewsbury", "Batley", "Huddersfield", "Holmfirth", "Halifax", "Hebden Bridge",
    "Todmorden", "Harrogate", "Knaresborough", "Ripon", "Skipton", "Settle", "Thirsk", "Northallerton",
    "Whitby", "Scarborough", "Filey", "Bridlington", "Beverley", "Driffield",
    "Goole", "Selby", "Tadcaster", "Wetherby", "Malton", "Pickering", "Helmsley", "Darlington", "Stockton-on-Tees",
    "Hartlepool", "Redcar", "Guisborough", "Yarm", "Bishop Auckland", "Barnard Castle", "Consett", "Hexham",
    "Morpeth", "Alnwick", "Berwick-upon-Tweed", "Tynemouth", "Whitley Bay", "Gosforth", "Jesmond", "Gateshead",
    "South Shields", "Washington", "Kendal", "Windermere", "Ambleside", "Keswick", "Penrith", "Cockermouth",
    "Workington", "Whitehaven", "Ulverston", "Morecambe", "Lytham", "Fleetwood", "Garstang", "Clitheroe",
    "Sevenoaks", "Tonbridge", "Tunbridge Wells", "Ashford", "Folkestone", "Dover", "Sandwich",
    "Whitstable", "Herne Bay", "Margate", "Ramsgate", "Broadstairs", "Faversham", "Sittingbourne", "Rochester",
    "Chatham", "Gillingham", "Gravesend", "Dartford", "Horsham", "Crawley", "East Grinstead", "Haywards Heath",
    "Burgess Hill", "Lewes", "Eastbourne", "Hastings", "Bexhill", "Rye", "Worthing", "Shoreham-by-Sea",
    "Chichester", "Bognor Regis", "Midhurst", "Petersfield", "Alton", "Farnham", "Godalming", "Haslemere",
    "Woking", "Weybridge", "Cobham", "Esher", "Epsom", "Reigate", "Redhill", "Dorking", "Leatherhead",
    "Caterham", "Oxted", "Basingstoke", "Andover", "Romsey", "Eastleigh", "Fareham", "Gosport", "Havant",
    "Lymington", "Ringwood", "Christchurch", "Wimborne", "Wareham", "Swanage", "Newbury", "Hungerford",
    "Thatcham", "Wokingham", "Bracknell", "Maidenhead", "Windsor", "Ascot", "Marlow", "High Wycombe",
    "Beaconsfield", "Amersham", "Chesham", "Aylesbury", "Tring", "Berkhamsted", "Hemel Hempstead", "Harpenden",
    "Hitchin", "Letchworth", "Stevenage", "Hertford", "Bishop's Stortford", "Saffron Walden",
    "Braintree", "Witham", "Maldon", "Brentwood", "Billericay", "Basildon", "Southend-on-Sea", "Leigh-on-Sea",
    "Rayleigh", "Harlow", "Epping", "Loughton", "Sudbury", "Bury St Edmunds", "Newmarket", "Stowmarket",
    "Woodbridge", "Felixstowe", "Aldeburgh", "Southwold", "Lowestoft", "Great Yarmouth", "Cromer", "Holt",
    "Fakenham", "King's Lynn", "Swaffham", "Thetford", "Diss", "Wymondham", "Ely", "Huntingdon", "St Neots",
    "Wisbech", "Spalding", "Boston", "Skegness", "Louth", "Grantham",
    "Sleaford", "Newark-on-Trent", "Gainsborough", "Retford", "Worksop", "Bedford", "Ampthill", "Leighton Buzzard",
    "Dunstable", "Olney", "Towcester", "Daventry", "Kettering", "Corby", "Wellingborough", "Oundle", "Brackley",
    "Ledbury", "Ross-on-Wye", "Leominster", "Ludlow", "Shrewsbury", "Telford", "Oswestry", "Bridgnorth",
    "Stafford", "Leek", "Uttoxeter", "Burton upon Trent", "Cannock", "Rugeley", "Portobello", "Leith",
    "Morningside", "Stockbridge", "Musselburgh", "Dalkeith", "Linlithgow", "Falkirk", "Paisley", "Hamilton",
    "East Kilbride", "Kilmarnock", "Ayr", "Troon", "Dumfries", "St Andrews", "Dunfermline", "Kirkcaldy",
    "Arbroath", "Montrose", "Elgin", "Nairn", "Fort William", "Oban", "Aviemore", "Pitlochry", "Crieff",
    "Penarth", "Barry", "Cowbridge", "Bridgend", "Porthcawl", "Neath", "Llanelli", "Carmarthen", "Tenby",
    "Aberystwyth", "Brecon", "Abergavenny", "Monmouth", "Chepstow", "Caerphilly", "Pontypridd", "Llandudno",
    "Conwy", "Bangor", "Holyhead", "Mold", "Ruthin", "Lisburn", "Holywood", "Newtownards",
    "Carrickfergus", "Ballymena", "Coleraine", "Portrush", "Enniskillen", "Armagh", "Newry",
)

STREETS = ("High Street", "Church Lane", "Mill Road", "Station Road", "Park Avenue", "Victoria Road", "The Green",
           "Manor Way", "Orchard Close", "Kings Road", "Queens Drive", "London Road", "Grange Road", "Chapel Street")
POSTCODE_AREAS = ("OX", "M", "LS", "BS", "SW", "N", "E", "NW", "SE", "B", "CB", "YO", "EH", "G", "CF", "BN",
                  "GU", "RG", "SO", "EX", "NE", "L", "S", "NG", "LE", "CV", "BA", "TN", "CT", "HP")
INWARD = "ABDEFGHJLNPQRSTUWXYZ"
KNOWN_SHARE = 0.8
PROPERTY_TYPES = ("Detached House", "Semi-Detached House", "Terraced House", "End of Terrace", "Town House",
                  "Cottage", "Bungalow", "Detached Bungalow", "Flat", "Apartment", "Studio Flat", "Maisonette",
                  "Penthouse", "Barn Conversion", "Farmhouse")
FEATURES = ("a south-facing garden", "off-street parking", "a newly fitted kitchen", "period features",
            "a garage", "views over open countryside", "a large loft room", "gas central heating",
            "double glazing throughout", "no onward chain")
ADS = ("Need a mortgage? Repayments from £{n} a month", "Free valuation: agents from £{n}",
       "Moving? Removals from £{n}", "Home insurance from £{n} a year")


def shipped_locations() -> tuple[str, ...]:
    """The terms of the shipped location gazetteer (conf/amber/gazetteers/uk_locations.txt)."""
    from pagesieve.models.amber.annotators import load_gazetteer

    return load_gazetteer("uk_locations")


def all_locations() -> tuple[str, ...]:
    """The location universe pages draw from: the shipped gazetteer, then EXTRA_LOCATIONS (no duplicates)."""
    return tuple(dict.fromkeys(shipped_locations() + EXTRA_LOCATIONS))


@dataclass(frozen=True, slots=True, eq=False)
class GeneratedPage:
    """One generated page: its HTML, its truth, and the template it came from."""

    page_id: str
    html: str
    truth: ListingTruth
    template: str

    def listing_page(self) -> ListingPage:
        """The page as `read_listings` would return it."""
        return ListingPage(self.page_id, self.truth.domain, self.html.encode("utf-8"), self.truth)

    def truth_json(self) -> dict[str, Any]:
        """The `truth/<id>.json` content (shared/data/listings/README.md's format)."""
        records = []
        for r in self.truth.records:
            records.append({**r.attributes, "text_snippet": r.text_snippet, "snippet_unique": r.snippet_unique,
                            "html_anchor": r.html_anchor, "link": r.link, "origin": r.origin})
        return {"id": self.page_id, "url": self.truth.url, "domain": self.truth.domain,
                "source": f"pagesieve.eval.listing_generator ({self.template} template)", "license": "generated",
                "labelled_by": "source", "record_count": self.truth.record_count, "optional_record_count": 0,
                "attributes": list(self.truth.attributes), "records": records}


def write_listing_folder(pages: list[GeneratedPage], folder: str | Path) -> Path:
    """Write `pages/<id>.html` and `truth/<id>.json` under `folder` (created), readable by `read_listings`."""
    folder = Path(folder)
    (folder / "pages").mkdir(parents=True, exist_ok=True)
    (folder / "truth").mkdir(parents=True, exist_ok=True)
    for page in pages:
        (folder / "pages" / f"{page.page_id}.html").write_text(page.html, encoding="utf-8")
        (folder / "truth" / f"{page.page_id}.json").write_text(json.dumps(page.truth_json(), indent=1,
                                                                          ensure_ascii=False), encoding="utf-8")
    return folder


def generate_pages(n: int, seed: int = 0, *, templates: tuple[str, ...] = TEMPLATES,
                   locations: tuple[str, ...] | None = None) -> list[GeneratedPage]:
    """`n` pages, templates in turn; page i is `generate_page(seed, i, ...)`."""
    universe = locations or all_locations()
    return [generate_page(seed, i, template=templates[i % len(templates)], locations=universe) for i in range(n)]


def generate_page(seed: int, index: int, *, template: str = "list",
                  locations: tuple[str, ...] | None = None) -> GeneratedPage:
    """One real-estate result page with its truth, a function of (seed, index, template) alone.

    Raises:
        ValueError: an unknown template.
    """
    if template not in TEMPLATES:
        raise ValueError(f"template: must be one of {', '.join(TEMPLATES)}, got {template!r}")
    rng = random.Random(f"pagesieve-listing:{seed}:{index}")
    universe = locations or all_locations()
    # A search covers an area: the page's records come from a few places (the searched town most often),
    # KNOWN_SHARE of them drawn from the shipped gazetteer's places and the rest from EXTRA_LOCATIONS, so
    # that the full gazetteer annotates about that share of the locations (the paper: "about 20% of all
    # annotations are missed" with the full list, section 6.1).
    known = [x for x in universe if x in set(shipped_locations())]
    unknown = [x for x in universe if x not in set(known)] or known
    pool = list(dict.fromkeys(rng.choice(known if rng.random() < KNOWN_SHARE else unknown)
                              for _ in range(rng.randint(3, 8))))
    style = rng.choice(("separate", "joined", "street"))
    featured = [_record(rng, pool, universe) for _ in range(rng.choice((0, 2, 3)))]
    main = [_record(rng, pool, universe) for _ in range(rng.randint(8, 20))]
    page_id = f"gen-{seed}-{index:04d}-{template}"
    body, records = _page_body(rng, template, style, featured, main, pool)
    markup = ("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>Property for sale in "
              f"{html.escape(pool[0])}</title></head><body>{body}</body></html>")
    text = " ".join(markup.split())
    truth_records = []
    for r in records:
        attributes = {k: r[k] for k in ATTRIBUTES if r.get(k)}
        snippet = r["description"]
        truth_records.append(TruthRecord(attributes=attributes, text_snippet=snippet, html_anchor=r["detail_link"],
                                         link=r["detail_link"], snippet_unique=text.count(snippet) == 1))
    truth = ListingTruth(page_id=page_id, domain="real_estate", url=f"https://homes.example/{page_id}",
                         attributes=ATTRIBUTES, records=tuple(truth_records))
    return GeneratedPage(page_id, markup, truth, template)


def _record(rng: random.Random, pool: list[str], universe: tuple[str, ...]) -> dict[str, Any]:
    """One listing's values (display strings, as the truth writes them)."""
    kind = rng.choice(PROPERTY_TYPES)
    beds = 0 if kind == "Studio Flat" else rng.randint(1, 5)
    price = rng.randrange(90, 1500) * 1000 if rng.random() < 0.8 else rng.randrange(500, 3500, 25)
    rent = price < 10000
    others = rng.sample(universe, 2)
    first, second = rng.sample(FEATURES, 2)
    desc = (f"{'An' if kind[0] in 'AEIOU' else 'A'} {kind.lower()} with {first} and {second}, "
            f"ref {rng.randrange(10**5, 10**6)}")
    if rng.random() < 0.35:          # free text naming other places: LOCATION noise inside the record
        desc += f", a short drive from {others[0]} and {others[1]}"
    record = {
        "price": f"£{price:,}" + (" pcm" if rent else ""),
        "old_price": f"£{int(price * rng.choice((1.05, 1.1))) // 1000 * 1000:,}" if rng.random() < 0.2 and not rent
        else None,
        "location": rng.choices(pool, [1.0 / (k + 1) for k in range(len(pool))])[0],
        "postcode": _postcode(rng) if rng.random() < 0.7 else None,
        "street": f"{rng.randint(1, 120)} {rng.choice(STREETS)}",
        "bedrooms": f"{beds} bedroom{'s' if beds > 1 else ''}" if beds and rng.random() < 0.9 else None,
        "bathrooms": f"{(n := rng.randint(1, 3))} bathroom{'s' if n > 1 else ''}" if rng.random() < 0.6 else None,
        "property_type": kind,
        "detail_link": f"/property/{rng.randrange(10**7, 10**8)}",
        "description": desc,
    }
    return record


def _postcode(rng: random.Random) -> str:
    area = rng.choice(POSTCODE_AREAS)
    return f"{area}{rng.randint(1, 20)} {rng.randint(1, 9)}{rng.choice(INWARD)}{rng.choice(INWARD)}"


def _esc(value: str | None) -> str:
    return html.escape(value or "", quote=True)


def _where(r: dict[str, Any], style: str) -> str:
    """The location (and postcode) of a card in one of three styles: their own elements, one text, or one
    text with a street in front."""
    loc, pc = _esc(r["location"]), _esc(r["postcode"])
    if style == "separate":
        return f'<p class="where"><span class="town">{loc}</span>' + (f' <span class="pc">{pc}</span>' if pc else "") \
            + "</p>"
    if style == "joined":
        return f'<p class="address">{loc}{", " + pc if pc else ""}</p>'
    return f'<p class="address">{_esc(r["street"])}, {loc}</p>' + (f'<p class="pc">{pc}</p>' if pc else "")


def _price(r: dict[str, Any]) -> str:
    old = f' <s class="was">{_esc(r["old_price"])}</s> <span class="badge">Reduced</span>' if r["old_price"] else ""
    return f'<p class="price">{_esc(r["price"])}{old}</p>'


def _facts(r: dict[str, Any]) -> str:
    facts = [_esc(r[k]) for k in ("bedrooms", "bathrooms") if r[k]]
    return f'<ul class="facts">{"".join(f"<li>{f}</li>" for f in facts)}</ul>' if facts else '<ul class="facts"></ul>'


def _card(r: dict[str, Any], style: str, tag: str, cls: str) -> str:
    title = f'<h3><a href="{_esc(r["detail_link"])}">{_esc(r["property_type"])} for sale</a></h3>'
    return (f'<{tag} class="{cls}">{title}{_price(r)}{_where(r, style)}{_facts(r)}'
            f'<p class="desc">{_esc(r["description"])}</p><p class="agent">Marketed by Homes &amp; Co</p></{tag}>')


def _row(r: dict[str, Any]) -> str:
    link = f'<a href="{_esc(r["detail_link"])}">{_esc(r["property_type"])}</a>'
    pc = f' <span class="pc">{_esc(r["postcode"])}</span>' if r["postcode"] else ""
    return (f'<tr><td class="price">{_esc(r["price"])}</td><td>{link}</td><td>{_esc(r["bedrooms"])}</td>'
            f'<td>{_esc(r["bathrooms"])}</td><td><span class="town">{_esc(r["location"])}</span>{pc}</td>'
            f'<td class="desc">{_esc(r["description"])}</td></tr>')


def _ad(rng: random.Random, tag: str) -> str:
    text = rng.choice(ADS).format(n=rng.choice((99, 249, 499, 850, 1200)))
    return f'<{tag} class="promo"><p>{_esc(text)}</p><a href="/partners">Find out more</a></{tag}>'


def _filters(rng: random.Random, pool: list[str], records: list[dict[str, Any]]) -> str:
    """A refine-your-search menu: price bands and the places of the results with their counts (LOCATION
    and PRICE annotations outside every data area)."""
    bands = "".join(f'<li><a href="?max={n}">Up to £{n:,}</a></li>' for n in (150000, 250000, 400000, 750000))
    counts: dict[str, int] = {}
    for r in records:
        counts[r["location"]] = counts.get(r["location"], 0) + 1
    places = "".join(f'<li><a href="?area={k}">{_esc(p)} ({counts.get(p, 0)})</a></li>'
                     for k, p in enumerate(sorted(set(pool[:6]) | set(counts))))
    return (f'<aside class="filters"><h4>Price</h4><ul>{bands}</ul><h4>Area</h4><ul>{places}</ul>'
            f'<h4>Bedrooms</h4><ul><li>1+ bedrooms</li><li>2+ bedrooms</li><li>3+ bedrooms</li></ul></aside>')


def _page_body(rng: random.Random, template: str, style: str, featured: list[dict[str, Any]],
               main: list[dict[str, Any]], pool: list[str]) -> tuple[str, list[dict[str, Any]]]:
    """The body's HTML and the records in page order."""
    parts = ['<header><nav><a href="/">Home</a> <a href="/sell">Sell</a> <a href="/login">Sign in</a></nav>'
             f'<h1>Property for sale in {_esc(pool[0])}</h1></header>']
    records: list[dict[str, Any]] = []
    if rng.random() < 0.7:
        parts.append(_filters(rng, pool, featured + main))
    if featured:        # a second data area of its own markup before the results
        cards = "".join(f'<div class="spotlight"><span class="badge">Featured</span>'
                        f'{_card(r, style, "div", "spot-body")}</div>' for r in featured)
        parts.append(f'<section class="featured"><h2>Featured properties</h2>{cards}</section>')
        records += featured
    ad_every = rng.choice((0, 4, 6))
    if template == "table":
        rows = []
        for k, r in enumerate(main):
            rows.append(_row(r))
            if ad_every and k % ad_every == ad_every - 1 and k < len(main) - 1:
                ad = _esc(rng.choice(ADS).format(n=499))
                rows.append(f'<tr class="promo"><td colspan="6">{ad}</td></tr>')
        head = "<tr><th>Price</th><th>Type</th><th>Bedrooms</th><th>Bathrooms</th><th>Area</th><th>About</th></tr>"
        parts.append(f'<table class="results">{head}{"".join(rows)}</table>')
    elif template == "grid":
        cells = [_card(r, style, "div", "card") for r in main]
        rows = ["".join(cells[k:k + 3]) for k in range(0, len(cells), 3)]
        parts.append('<div class="grid">' + "".join(f'<div class="row">{row}</div>' for row in rows) + "</div>")
    else:
        items = []
        for k, r in enumerate(main):
            items.append(_card(r, style, "li", "result"))
            if ad_every and k % ad_every == ad_every - 1 and k < len(main) - 1:
                items.append(_ad(rng, "li"))
        parts.append(f'<ul class="results">{"".join(items)}</ul>')
    records += main
    parts.append('<footer><p>Homes &amp; Co, 1 Example Street. Valuations from £0.</p>'
                 '<p><a href="/terms">Terms</a> <a href="/privacy">Privacy</a></p></footer>')
    return "".join(parts), records
