"""Listing evaluation through the harness: extractors on the listing pages, scored, timed and reported.

The listing pages (`shared/data/listings`, see its README) have record ground truth rather than gold text,
so they get their own loop and report, next to the text harness (`eval/harness.py`, `eval/report.py`):

- each page is decoded and parsed once (`models.page.prepare`), then every method runs on it through the
  same runner as the UDFs, in an order rotating from page to page (as the harness does), timed the same
  way (`charged_ms`: decode + parse + the method's own work);
- every metric comes from `eval/listings.py` (`score_records` on the records' DOM subtrees,
  `aggregate_scores` per domain and overall); nothing here computes a precision of its own;
- a method is named `NAME[:MODE]`: `amber:structure` is AMBER with `mode = "structure"`, the ablations of
  `models/amber/ablation.py`. Pages of the real_estate and used_cars domains run with their own AMBER
  schema, every other page with the generic `products` schema (`SCHEMAS`).

`write_listings_report` writes report.md, report.json, scores.csv (one row per method and page) and a plot
of the per-page record F1, the same set of files `eval/report.py` writes for gold text.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pagesieve.data import data_root
from pagesieve.models.page import Method, PageInput, charged_ms, prepare, run_prepared
from pagesieve.models.registry import METHODS, build_method, resolve, settings_class
from pagesieve.settings import ConfigError

from .listings import OVERALL, Counts, ListingPage, RecordScores, aggregate_scores, record_views, score_records
from .report import run_meta, speed_summary, write_csv

__all__ = ["DEFAULT_LISTINGS", "SCHEMAS", "ABLATION_METHODS", "ListingScore", "ListingMethods", "schema_for",
           "split_spec", "evaluate_listings", "summarise_listings", "write_listings_report"]

log = logging.getLogger(__name__)

DEFAULT_LISTINGS = data_root() / "listings"
SCHEMAS = {"real_estate": "real_estate", "used_cars": "used_cars"}   # AMBER's domains; the rest: products
ABLATION_METHODS = ("amber", "amber:structure", "amber:annotations")  # the paper's claim, side by side


def schema_for(domain: str) -> str:
    """The AMBER schema a page of `domain` runs with: its own for real_estate and used_cars, else products."""
    return SCHEMAS.get(domain, "products")


def split_spec(spec: str) -> tuple[str, str]:
    """(method name, mode) of a `NAME[:MODE]` spec; mode "" when none.

    A dotted path `module:Class` is a name, not a name and a mode: the last `:` splits off a mode only
    after a registered name (`amber:structure`) or after a dotted path that has its own `:`
    (`mypackage.extract:Mine:fast`).
    """
    base, sep, mode = spec.rpartition(":")
    if sep and (base in METHODS or ":" in base):
        return base, mode
    return spec, ""


@dataclass(frozen=True, slots=True)
class ListingScore:
    """One method on one listing page: its scores (from `score_records`), status and time."""

    method: str
    page_id: str
    domain: str
    schema: str
    status: str
    score: RecordScores
    ms: float
    error: str | None = None

    def row(self) -> dict[str, Any]:
        """A flat dict for the per-page CSV."""
        r, a = self.score.records, self.score.attributes_total
        return {"method": self.method, "page_id": self.page_id, "domain": self.domain, "schema": self.schema,
                "status": self.status, **_counts("record", r), "optional_matched": self.score.optional_matched,
                **_counts("attribute", a), "ms": round(self.ms, 3), "error": self.error or ""}


def _counts(prefix: str, c: Counts) -> dict[str, Any]:
    return {f"{prefix}_tp": c.tp, f"{prefix}_predicted": c.predicted, f"{prefix}_gold": c.gold,
            f"{prefix}_precision": round(c.precision, 4), f"{prefix}_recall": round(c.recall, 4),
            f"{prefix}_f1": round(c.f1, 4)}


class ListingMethods:
    """The extractors of `NAME[:MODE]` specs, one per spec and schema, all built (and checked) up front."""

    def __init__(self, specs: Sequence[str], schemas: Sequence[str],
                 settings: Mapping[str, Mapping[str, Any]] | None = None) -> None:
        """Build every (spec, schema) pair.

        Args:
            specs: method names, each optionally with `:MODE` (a value of the method's `mode` setting).
            schemas: the schemas the pages need (a method without a `schema` setting is built once).
            settings: name -> setting overrides (`--conf name.key=value`); `schema` and `mode` are set here.

        Raises:
            ConfigError: an unknown name, a method that is no extractor, a mode on a method without modes,
                or a bad setting; before any page runs.
        """
        self.specs = list(dict.fromkeys(specs))
        self._built: dict[tuple[str, str], Method] = {}
        for spec in self.specs:
            name, mode = split_spec(spec)
            resolve(name, "extractor")
            fields = {f.name for f in dataclasses.fields(settings_class(name, "extractor"))}
            if mode and "mode" not in fields:
                raise ConfigError(f"method {spec!r}: {name} has no `mode` setting")
            overrides = dict((settings or {}).get(name, {}))
            if mode:
                overrides["mode"] = mode
            shared = None if "schema" in fields else build_method(name, overrides, kind="extractor")
            for schema in dict.fromkeys(schemas):
                self._built[(spec, schema)] = shared if shared is not None else build_method(
                    name, {**overrides, "schema": schema}, kind="extractor")

    def get(self, spec: str, schema: str) -> Method:
        """The extractor of `spec` for pages of `schema`."""
        return self._built[(spec, schema)]


def evaluate_listings(pages: Sequence[ListingPage], methods: ListingMethods, warmup: int = 2
                      ) -> list[ListingScore]:
    """Score and time every method on every page (methods rotated per page, after `warmup` untimed pages).

    A page our parser rejects scores with no records for every method (its status from the parser); a
    method that raises on a page scores with no records and status `error`, as in the text harness.
    """
    specs = methods.specs
    for page in pages[:warmup]:
        prepared = prepare(PageInput(page.html, url=page.url, page_id=page.page_id))
        for spec in specs:
            run_prepared(methods.get(spec, schema_for(page.domain)), prepared)
    scores: list[ListingScore] = []
    for i, page in enumerate(pages):
        schema = schema_for(page.domain)
        prepared = prepare(PageInput(page.html, url=page.url, page_id=page.page_id))
        for k in range(len(specs)):
            spec = specs[(i + k) % len(specs)]
            method = methods.get(spec, schema)
            outcome = run_prepared(method, prepared)
            result, ms = outcome.result, charged_ms(method, prepared, outcome)
            records = result.records
            score = score_records(records, page, views=record_views(records, page.html))
            scores.append(ListingScore(spec, page.page_id, page.domain, schema, result.status, score, ms,
                                       result.error))
        log.info("%s: %s", page.page_id, ", ".join(f"{s.method} F1 {s.score.records.f1:.2f}"
                                                   for s in scores[-len(specs):]))
    order = {spec: j for j, spec in enumerate(specs)}
    scores.sort(key=lambda s: (order[s.method], s.page_id))    # pages in id order within each method
    return scores


def _prf(c: Counts) -> dict[str, Any]:
    return {"precision": round(c.precision, 4), "recall": round(c.recall, 4), "f1": round(c.f1, 4),
            "tp": c.tp, "predicted": c.predicted, "gold": c.gold}


def summarise_listings(scores: Sequence[ListingScore]) -> dict[str, dict[str, Any]]:
    """{method: figures}: record and attribute scores per domain and overall (`aggregate_scores`: micro =
    counts summed over pages, macro = mean of the pages' scores), speed and statuses."""
    by_method: dict[str, list[ListingScore]] = defaultdict(list)
    for s in scores:
        by_method[s.method].append(s)
    out: dict[str, dict[str, Any]] = {}
    for method, group in by_method.items():
        statuses: dict[str, int] = defaultdict(int)
        for s in group:
            statuses[s.status] += 1
        groups = {}
        for name, summary in aggregate_scores(s.score for s in group).items():
            macro, att_macro = summary.records_macro, summary.attributes_total_macro
            groups[name] = {
                "pages": summary.n_pages,
                "records_micro": _prf(summary.records_micro),
                "records_macro": {"precision": round(macro.precision, 4), "recall": round(macro.recall, 4),
                                  "f1": round(macro.f1, 4)},
                "attributes_micro": _prf(summary.attributes_total_micro),
                "attributes_macro": {"precision": round(att_macro.precision, 4),
                                     "recall": round(att_macro.recall, 4), "f1": round(att_macro.f1, 4)},
                "attributes_by_name": {n: _prf(c) for n, c in summary.attributes_micro.items()},
            }
        out[method] = {"pages": len(group), "speed": speed_summary([s.ms for s in group]),
                       "statuses": dict(statuses), "groups": groups}
    return out


def _markdown(summary: dict[str, dict[str, Any]], scores: Sequence[ListingScore], meta: dict[str, Any]) -> str:
    methods = list(summary)
    lines = [f"# pagesieve listing evaluation ({meta['date']})", "",
             f"Machine: {meta['machine']}; Python {meta['python']}; one process on one core, methods interleaved "
             "page by page; time = decode + parse + method. Records matched as the listings README says "
             "(`pagesieve.eval.listings`).", "",
             "## Overall", "",
             "| method | pages | record P | record R | record F1 | record F1 (page mean) | attribute P | "
             "attribute R | attribute F1 | pages/s | median ms | p99 ms |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for method in methods:
        m = summary[method]
        g, speed = m["groups"][OVERALL], m["speed"]
        rec, att = g["records_micro"], g["attributes_micro"]
        lines.append(f"| {method} | {m['pages']} | {rec['precision']:.3f} | {rec['recall']:.3f} | {rec['f1']:.3f} | "
                     f"{g['records_macro']['f1']:.3f} | {att['precision']:.3f} | {att['recall']:.3f} | "
                     f"{att['f1']:.3f} | {speed['pages_per_s']} | {speed['median_ms']} | {speed['p99_ms']} |")
    domains = [d for d in summary[methods[0]]["groups"] if d != OVERALL] + [OVERALL] if methods else []
    for title, key in (("Record", "records_micro"), ("Attribute", "attributes_micro")):
        lines += ["", f"## {title} P / R / F1 per domain (micro)", "",
                  "| domain | pages | " + " | ".join(methods) + " |", "|---|---|" + "---|" * len(methods)]
        for d in domains:
            cells = []
            for method in methods:
                c = summary[method]["groups"][d][key]
                # nothing predicted and nothing to find (no matched records: attributes are scored on those)
                cells.append("-" if c["predicted"] == c["gold"] == 0 else
                             f"{c['precision']:.3f} / {c['recall']:.3f} / {c['f1']:.3f}")
            lines.append(f"| {d} | {summary[methods[0]]['groups'][d]['pages']} | " + " | ".join(cells) + " |")
    lines += ["", "## Record F1 per page", "", "| page | domain | " + " | ".join(methods) + " |",
              "|---|---|" + "---|" * len(methods)]
    per_page: dict[tuple[str, str], dict[str, ListingScore]] = defaultdict(dict)
    for s in scores:
        per_page[(s.page_id, s.domain)][s.method] = s
    for (page_id, domain), row in sorted(per_page.items()):
        cells = [f"{row[m].score.records.f1:.2f} ({row[m].score.records.predicted}/{row[m].score.records.gold})"
                 if m in row else "-" for m in methods]
        lines.append(f"| {page_id} | {domain} | " + " | ".join(cells) + " |")
    lines += ["", "Attributes are scored over the matched records only (`score_records`): a method that matches "
              "few records is scored on few. Cells of the per-page table: record F1 (predicted records / gold "
              "records). Per-page figures: `scores.csv`.", ""]
    return "\n".join(lines)


def _plot(scores: Sequence[ListingScore], methods: list[str], out: Path) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pages = sorted({s.page_id for s in scores})
    f1 = {(s.method, s.page_id): s.score.records.f1 for s in scores}
    fig, ax = plt.subplots(figsize=(9, 0.3 * len(pages) + 1.5))
    width = 0.8 / max(1, len(methods))
    for j, method in enumerate(methods):
        ys = [i + (j - (len(methods) - 1) / 2) * width for i in range(len(pages))]
        ax.barh(ys, [f1.get((method, p), 0.0) for p in pages], height=width, label=method)
    ax.set_yticks(range(len(pages)), pages, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("record F1 per page")
    ax.set_title("listing pages: record F1")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))   # outside: bars reach 1.0
    fig.tight_layout()
    name = "record_f1_listings.png"
    fig.savefig(out / name, dpi=110)
    plt.close(fig)
    return name


def write_listings_report(scores: Sequence[ListingScore], out: str | Path, *, config: dict[str, Any] | None = None,
                          plots: bool = True) -> dict[str, Any]:
    """Write report.json, report.md, scores.csv and the per-page record F1 plot under `out`.

    Args:
        scores: the output of `evaluate_listings`.
        out: the report folder (created).
        config: the run's configuration, stored in report.json.
        plots: write the plot (matplotlib).

    Returns:
        The report.json data.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    summary = summarise_listings(scores)
    meta = run_meta()
    write_csv(out / "scores.csv", [s.row() for s in scores], "method")
    files = ["report.json", "report.md", "scores.csv"]
    if plots and scores:
        files.append(_plot(scores, list(summary), out))
    data = {**meta, "kind": "listings", "config": config or {}, "methods": summary, "files": files}
    (out / "report.json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    (out / "report.md").write_text(_markdown(summary, scores, meta), encoding="utf-8")
    return data
