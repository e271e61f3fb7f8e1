"""Scrapy project of pagesieve (crawl -> pages shards). Not built yet: `pagesieve crawl` and the
streaming job come with the crawl issue; until then pages come from archives or HTML folders."""
