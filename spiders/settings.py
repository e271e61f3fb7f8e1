"""Scrapy settings module of the project (scrapy.cfg points here): conf/crawl.toml translated.

`scrapy crawl site -a seeds=seeds.txt -s PAGESIEVE_LANDING=landing/` runs with these; `pagesieve crawl`
builds the same from the same file plus --config/--conf/flags (`spiders/crawl.py`).
"""

from pagesieve.settings import settings_dict

from .config import CrawlSettings, scrapy_settings

_settings = CrawlSettings.load()
globals().update(scrapy_settings(_settings))

PAGESIEVE_LANDING = "landing"
PAGESIEVE_CONFIG = {"crawl": settings_dict(_settings)}
