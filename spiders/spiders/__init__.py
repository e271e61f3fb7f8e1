"""The spiders (Scrapy's SPIDER_MODULES)."""
