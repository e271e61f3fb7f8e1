"""crawl: seeds -> `pages` Parquet shards in a landing folder (and optionally WARC files), with Scrapy.

    pagesieve crawl --seeds seeds.txt --out landing/ [--warc warc/] [--jobdir crawl-state/]
    pagesieve stream --landing landing/ --out out/           # cleans the shards as they land

One crawl per process (Twisted's reactor cannot be restarted). With `--jobdir` the crawl can be stopped
(Ctrl-C, a page limit, or a kill) and resumed by the same command: the crawl journal kept there
(spiders/journal.py) says what landed and what is left, so a resumed crawl fetches the rest, and lands
each page once; its report adds to the earlier runs'.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from typing import Any

from pagesieve.settings import ConfigError, load_file, parse_override, settings_dict

from .config import CrawlSettings, scrapy_settings

__all__ = ["load_crawl_settings", "crawl_settings", "main"]

log = logging.getLogger(__name__)


def load_crawl_settings(config: str | None, conf: list[str], flags: dict[str, Any] | None = None) -> CrawlSettings:
    """conf/crawl.toml, then the [crawl] section of `config`, then `crawl.key=value` pairs, then flags.

    Raises:
        ConfigError: an unknown section or key, a wrong type or range (one line naming `crawl.key`).
    """
    layers: list[dict[str, Any]] = []
    if config:
        for section, values in load_file(config).items():
            if section != "crawl" or not isinstance(values, dict):
                raise ConfigError(f"{config}: unknown section {section!r}; the crawl reads [crawl] only")
            layers.append(values)
    pairs: dict[str, Any] = {}
    for item in conf:
        key, value = parse_override(item)
        section, dot, name = key.partition(".")
        if section != "crawl" or not dot:
            raise ConfigError(f"setting {key!r}: the crawl takes crawl.KEY=VALUE (see conf/crawl.toml)")
        pairs[name] = value
    layers += [pairs, {k: v for k, v in (flags or {}).items() if v is not None}]
    return CrawlSettings.load(*layers)


def crawl_settings(settings: CrawlSettings, landing: str, *, warc: str | None = None, jobdir: str | None = None,
                   extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The Scrapy settings of one crawl run."""
    values = scrapy_settings(settings)
    values.update(PAGESIEVE_LANDING=landing, PAGESIEVE_CONFIG={"crawl": settings_dict(settings)})
    if warc:
        values["PAGESIEVE_WARC_DIR"] = warc
    if jobdir:
        values["JOBDIR"] = jobdir
    values.update(extra or {})
    return values


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="pagesieve crawl", description="Crawl from seeds into a landing folder of "
                                 "pages Parquet shards (Scrapy; robots.txt obeyed, throttled).")
    ap.add_argument("--seeds", default=None, metavar="FILE", help="seed URLs, one per line (# comments)")
    ap.add_argument("--url", action="append", default=[], help="a seed URL (repeatable)")
    ap.add_argument("--out", required=True, metavar="LANDING", help="landing folder of the pages shards")
    ap.add_argument("--allow-domain", action="append", default=None, dest="allowed_domains",
                    help="a domain to stay within (repeatable; default: the seeds' hosts)")
    ap.add_argument("--depth", type=int, default=None, dest="depth_limit", help="link depth limit (0: none)")
    ap.add_argument("--max-pages", type=int, default=None, help="stop after this many pages landed (0: none)")
    ap.add_argument("--sitemap", action="store_true", default=None, help="also crawl the sites' sitemaps")
    ap.add_argument("--warc", default=None, metavar="DIR", help="also write WARC files (request + response) here")
    ap.add_argument("--jobdir", default=None, metavar="DIR", help="crawl state for pause/resume (Scrapy JOBDIR)")
    ap.add_argument("--config", default=None, metavar="FILE", help="TOML file with a [crawl] section")
    ap.add_argument("--conf", action="append", default=[], metavar="crawl.KEY=VALUE",
                    help="a crawl setting (see conf/crawl.toml)")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                    help="a raw Scrapy setting, last word (e.g. LOG_LEVEL=DEBUG)")
    ap.add_argument("--quiet", action="store_true", help="no printed summary")
    args = ap.parse_args(argv)
    flags = {"depth_limit": args.depth_limit, "max_pages": args.max_pages, "sitemap": args.sitemap,
             "allowed_domains": args.allowed_domains}
    settings = load_crawl_settings(args.config, args.conf, flags)
    from pagesieve.inputs import check_readable_file

    from .spiders.site import read_seeds

    if args.seeds:   # a folder or a symlink to nothing gave a traceback, a FIFO hung the open
        check_readable_file(args.seeds, "--seeds")
    seeds = read_seeds(args.seeds, args.url)      # ValueError: one line, before the reactor starts
    if os.path.isfile(args.out):
        raise ConfigError(f"--out {args.out}: is a file, expected a folder")
    extra = dict(parse_override(item) for item in args.set)
    run_crawl(crawl_settings(settings, args.out, warc=args.warc, jobdir=args.jobdir, extra=extra), seeds)
    report_path = os.path.join(args.out, "_report.json")
    with open(report_path, encoding="utf-8") as fh:
        report = json.load(fh)
    if not args.quiet:
        outcomes = ", ".join(f"{k}={v}" for k, v in report["by_outcome"].items())
        this = report["this_run"]
        print(f"pagesieve crawl: {report['responses']} responses -> {report['rows']} pages in {report['shards']} "
              f"shards; this run {this['rows']} pages in {report['wall_s']:.1f} s ({report['pages_per_s'] or 0:.1f} "
              f"pages/s); report: {report_path}\n  by_outcome     {outcomes}", file=sys.stderr)
        if report["runs"] > 1:
            print(f"  resumed        run {report['runs']} of {args.jobdir}: {report['earlier_runs']['rows']} pages "
                  f"landed before, {this['rows']} now", file=sys.stderr)
    return 0 if report["accounting"]["pages"]["ok"] else 1


def run_crawl(values: dict[str, Any], seeds: list[str]) -> None:
    """One crawl in this process (the reactor is started here and cannot be started again)."""
    from scrapy.crawler import CrawlerProcess
    from scrapy.settings import Settings as ScrapySettings

    from .spiders.site import SiteSpider

    # docs/stack.md#scrapy: tldextract logs two long tracebacks when it cannot download the suffix list
    settings = ScrapySettings()
    settings.setmodule("pagesieve.spiders.settings", priority="project")
    settings.setdict(values, priority="cmdline")
    # the `pagesieve` CLI has configured the root logger already: Scrapy's lines go through it
    process = CrawlerProcess(settings, install_root_handler=not logging.getLogger().handlers)
    # without Scrapy's root handler its LOG_LEVEL is not applied, and its logging defaults set `scrapy` to
    # DEBUG: one line per request plus every item with its body would flood the log
    logging.getLogger("scrapy").setLevel(settings.get("LOG_LEVEL"))
    logging.getLogger("tldextract").setLevel(logging.ERROR)
    process.crawl(SiteSpider, urls=seeds)
    process.start()
