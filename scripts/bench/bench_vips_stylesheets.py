"""What serving archived stylesheets costs VIPS, and what it changes: the pages of one archive rendered with and
without the stylesheets the archive holds for them, in the same run, on one pinned core.

    python scripts/bench/bench_vips_stylesheets.py                       # the Internet Archive's 2008 WARC (140 pages)
    python scripts/bench/bench_vips_stylesheets.py --archive X.warc.gz --repeat 3

Each page is rendered both ways, by two renderers (one browser each, reused page after page, as in a job with
`segment.stylesheets` on and one with it off), the order of the two alternating page by page. Printed: pages/s
and the mean time a page either way (render + segmentation), and on how many pages the block tree (boxes and
texts) changed.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from pagesieve.archives import read_input
from pagesieve.archives.rows import RESOURCE_MEDIA_TYPES
from pagesieve.data import data_root
from pagesieve.models.page import SubResource, page_markup, page_stylesheets, prepare, resource_key
from pagesieve.models.page.runner import PageInput
from pagesieve.models.vips import analyse, segments_of
from pagesieve.models.vips.render import Renderer, archived_lookup
from pagesieve.models.vips.settings import VIPSSettings

ARCHIVE = data_root() / "warc" / \
    "ia-2008-archive-org-heritrix-warc017.warc.gz"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--archive", default=str(ARCHIVE))
    ap.add_argument("--repeat", type=int, default=1, help="passes over the pages")
    ap.add_argument("--cpu", type=int, default=0, help="the core to pin to (-1: no pinning)")
    args = ap.parse_args(argv)
    if args.cpu >= 0:
        os.sched_setaffinity(0, {args.cpu})
    rows = list(read_input(args.archive))
    archived = {resource_key(r["url"]): SubResource(r["url"], r["body"], r["content_type"]) for r in rows
                if r["content_type"] in RESOURCE_MEDIA_TYPES and r["body"] is not None and r["url"]}
    pages = []
    for row in rows:
        if row["skip_reason"] is None:
            sheets = page_stylesheets(row["body"] or b"", row["url"], archived)
            prepared = prepare(PageInput(row["body"], url=row["url"], charset_hint=row["charset_hint"])).page
            if prepared is not None:
                pages.append((prepared, sheets))
    settings = VIPSSettings.load({})
    renderers = {way: Renderer(settings.render_options()) for way in ("with", "without")}
    seconds = {"with": 0.0, "without": 0.0}
    trees: dict[str, list] = {"with": [], "without": []}
    for rep in range(args.repeat):
        for i, (page, sheets) in enumerate(pages):
            ways = (("with", archived_lookup(sheets)), ("without", None))
            for way, lookup in (ways if (i + rep) % 2 else ways[::-1]):
                start = time.perf_counter()
                visual = renderers[way].render(page_markup(page), page.url, lookup)
                analysis = analyse(visual, settings)
                seconds[way] += time.perf_counter() - start
                if rep == 0:
                    trees[way].append([(s.bbox, s.text) for s in segments_of(analysis)])
    for renderer in renderers.values():
        renderer.close()
    n = len(pages) * args.repeat
    loading = sum(1 for _, sheets in pages if sheets)
    changed = sum(a != b for a, b in zip(trees["with"], trees["without"], strict=True))
    print(f"{Path(args.archive).name}: {len(pages)} pages, {loading} load some of its {len(archived)} stylesheets; "
          f"{args.repeat} pass(es), pinned to core {args.cpu}")
    for way in ("with", "without"):
        print(f"  {way:<8} stylesheets {n / seconds[way]:6.2f} pages/s  {1000 * seconds[way] / n:7.1f} ms/page")
    print(f"  with / without time = {seconds['with'] / seconds['without']:.3f}; block tree changed on "
          f"{changed} of {loading} pages that load a stylesheet")
    return 0


if __name__ == "__main__":
    sys.exit(main())
