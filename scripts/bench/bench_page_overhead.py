"""Where a page's time goes outside Spark: pagesieve's per-page path for a markup method against a plain loop.

    .venv/bin/python scripts/bench/bench_page_overhead.py OUT/pages                # a `pagesieve run`'s pages table
    .venv/bin/python scripts/bench/bench_page_overhead.py OUT/pages --method trafilatura_precision --profile

For every page of the table (in one process, one core), each step timed apart and the two paths interleaved
page by page so that both see the same machine load:

  ours   the UDF's work per page: `prepare` (decode_page, then our lxml parse), `run_prepared` under the page
         deadline (the method: trafilatura.extract on the decoded markup, join_paragraphs, page_title), the
         documents row and `label_languages` (py3langid on the first 1,000 characters)
  loop   the plain FastWARC loop of bench_pipeline.py: resiliparse's detect_encoding + bytes_to_str, then
         trafilatura.extract(html) with its defaults
  same   trafilatura.extract on our decoded markup with the loop's call (defaults, no url): the extractor's time
         on our input, apart from the options our method passes

Prints ms per page (mean, and the sum over pages) per step and the ratio ours / loop; `--profile` adds the top
functions of a cProfile of each path.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time
from collections import defaultdict
from pathlib import Path

import pyarrow.parquet as pq


def _pages(table: Path) -> list[dict]:
    files = sorted(table.glob("*.parquet"))
    if not files:
        raise SystemExit(f"bench_page_overhead: {table}: no .parquet files (give a pages table)")
    rows: list[dict] = []
    for f in files:
        rows += pq.read_table(f, columns=["page_id", "url", "body", "charset_hint", "content_type"]).to_pylist()
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pages", type=Path, help="a pages table (folder of Parquet files)")
    ap.add_argument("--method", default="trafilatura")
    ap.add_argument("--timeout", type=float, default=30.0, help="the page deadline, as clean.page_timeout_s")
    ap.add_argument("--profile", action="store_true", help="cProfile each path and print its top functions")
    args = ap.parse_args(argv)

    import trafilatura
    from resiliparse.parse.encoding import bytes_to_str, detect_encoding

    from pagesieve.jobs.settings import CleanSettings
    from pagesieve.models.page import PageInput, prepare, run_prepared
    from pagesieve.models.registry import load_settings, resolve
    from pagesieve.udfs.rows import documents_rows, label_languages

    entry = resolve(args.method, "cleaner")
    module, _, attr = entry.path.partition(":")
    method = getattr(__import__(module, fromlist=[attr]), attr)(load_settings(args.method, None, "cleaner"))
    language = CleanSettings().language_id()
    rows = _pages(args.pages)
    ms: dict[str, float] = defaultdict(float)
    profiles = {"ours": cProfile.Profile(), "loop": cProfile.Profile()}

    def ours(page: PageInput) -> str | None:
        t0 = time.perf_counter()
        prepared = prepare(page)
        t1 = time.perf_counter()
        outcome = run_prepared(method, prepared, args.timeout)
        t2 = time.perf_counter()
        out = documents_rows(page, method.method_id, outcome)
        label_languages(out, language)
        t3 = time.perf_counter()
        ms["ours: decode"] += prepared.decode_ms
        ms["ours: our parse"] += prepared.parse_ms
        ms["ours: prepare, rest"] += (t1 - t0) * 1000 - prepared.ms
        ms["ours: method (run_prepared)"] += (t2 - t1) * 1000
        ms["ours: row + language"] += (t3 - t2) * 1000
        ms["ours"] += (t3 - t0) * 1000
        return prepared.page.markup if prepared.page is not None else None

    def same(markup: str | None) -> None:
        """The extractor alone on our markup, with the loop's call (outside both profiles)."""
        if markup is not None:
            t0 = time.perf_counter()
            trafilatura.extract(markup)
            ms["same: extract(our markup), loop's call"] += (time.perf_counter() - t0) * 1000

    def loop(body: bytes) -> None:
        t0 = time.perf_counter()
        html = bytes_to_str(body, detect_encoding(body))
        t1 = time.perf_counter()
        trafilatura.extract(html)
        t2 = time.perf_counter()
        ms["loop: decode"] += (t1 - t0) * 1000
        ms["loop: extract"] += (t2 - t1) * 1000
        ms["loop"] += (t2 - t0) * 1000

    for row in rows:
        page = PageInput.from_row(row)
        if args.profile:
            markup = profiles["ours"].runcall(ours, page)
            profiles["loop"].runcall(loop, row["body"] or b"")
        else:
            markup = ours(page)
            loop(row["body"] or b"")
        same(markup)
    n = len(rows)
    print(f"{n} pages of {args.pages}, method {args.method}; ms per page (mean) and in all")
    for key in sorted(ms):
        print(f"  {key:45s} {ms[key] / n:8.2f} {ms[key]:10.0f}")
    print(f"  ours / loop: {ms['ours'] / ms['loop']:.2f}")
    if args.profile:
        for name, profile in profiles.items():
            text = io.StringIO()
            pstats.Stats(profile, stream=text).sort_stats("tottime").print_stats(15)
            print(f"--- {name} (cProfile, by own time)\n" + "\n".join(text.getvalue().splitlines()[6:24]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
