"""The `pagesieve` console command: thin dispatch to the job files' `main` (the same ones spark-submit runs)."""

from __future__ import annotations

import importlib
import logging
import sys

__all__ = ["COMMANDS", "main"]

COMMANDS = {
    "run": ("pagesieve.jobs.run", "ingest -> clean -> export in one go"),
    "ingest": ("pagesieve.jobs.ingest", "archives or HTML folders -> pages (Parquet)"),
    "clean": ("pagesieve.jobs.clean", "pages -> documents (boilerplate removal)"),
    "extract": ("pagesieve.jobs.extract", "pages -> records (structured extraction)"),
    "segment": ("pagesieve.jobs.segment", "pages -> segments (VIPS visual block trees, rendered in Chromium)"),
    "vips-show": ("pagesieve.jobs.vips_show", "draw a page's VIPS blocks over its screenshot (PNG)"),
    "dedup": ("pagesieve.jobs.dedup", "documents -> documents + dup_cluster, dup_of (exact and near duplicates)"),
    "filter": ("pagesieve.jobs.filter", "documents -> documents + quality signals + removed_by (Gopher, C4)"),
    "export": ("pagesieve.jobs.export", "documents -> Pyserini JSONL / Parquet; records -> JSONL / Parquet"),
    "crawl": ("pagesieve.spiders.crawl", "seeds -> pages shards in a landing folder (Scrapy)"),
    "stream": ("pagesieve.jobs.stream", "landing folder -> documents, cleaned as the shards land"),
    "show-record": ("pagesieve.jobs.show_record", "print the archive record at ARCHIVE OFFSET (provenance)"),
    "evaluate": ("pagesieve.jobs.evaluate", "score methods on gold text or listing records, and time them"),
}

USAGE = "usage: pagesieve COMMAND [options]   (pagesieve COMMAND --help for its options)\n\ncommands:\n" + "\n".join(
    f"  {name:<11} {help_}" for name, (_, help_) in COMMANDS.items())


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0 if argv else 2
    if argv[0] in ("-V", "--version"):
        from pagesieve import __version__

        print(f"pagesieve {__version__}")
        return 0
    if argv[0] not in COMMANDS:
        print(f"pagesieve: unknown command {argv[0]!r}\n\n{USAGE}", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s",
                        datefmt="%H:%M:%S")
    logging.getLogger("py4j").setLevel(logging.WARNING)
    from pagesieve.jobs.common import exit_on_config_error

    # bad input or config: one clear line, no JVM trace
    return exit_on_config_error(importlib.import_module(COMMANDS[argv[0]][0]).main, argv[1:], f"pagesieve {argv[0]}")


if __name__ == "__main__":
    sys.exit(main())
