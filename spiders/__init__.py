"""Scrapy project of pagesieve: a general-purpose spider that lands crawled HTML pages as `pages` Parquet shards
(and optionally WARC files), for the streaming job (`jobs/stream.py`) or the batch jobs to clean.

    pagesieve crawl --seeds seeds.txt --out landing/          # or, from the repository: scrapy crawl site -a ...

Layout (Scrapy's own): `settings.py` (the Scrapy settings module, from conf/crawl.toml), `items.py`,
`pipelines.py`, `middlewares.py`, `extensions.py`, `spiders/site.py`; `crawl.py` is the CLI entry point.
"""
