"""Methods of the two kinds no shipped method has yet, and one that needs a site's pages at once: they
drive the adapter's records and segments paths and the site grouping, loaded by dotted path the way a
user's own method is (`--method toy_methods:SiteRecords`; Spark workers get this file by addPyFile)."""

from __future__ import annotations

from pagesieve.models.page import (
    BBox,
    Extractor,
    ExtractResult,
    Field,
    Record,
    Segment,
    Segmenter,
    SegmentResult,
    page_title,
    xpath_of,
)


class ListItems(Extractor):
    """One record per `<li>`: its text as the field `item`; a page without one has no record."""

    name = "list_items"

    def process(self, page):
        items = page.root.findall(".//li")
        return ExtractResult(schema="toy", records=tuple(
            Record((Field("item", " ".join("".join(li.itertext()).split()), xpath_of(li), "annotated", 1.0),),
                   xpath=xpath_of(li)) for li in items))


class SiteRecords(Extractor):
    """Needs all the pages of a site at once: one record per page saying how many pages its site had."""

    name = "site_records"
    group_by = "site"

    def process(self, page):
        return self.process_batch([page])[0]

    def process_batch(self, pages):
        return [ExtractResult(schema="toy", records=(Record((Field("site_pages", str(len(pages)), None, "model"),)),))
                for _ in pages]


class TitleBlock(Segmenter):
    """A root block for the body and one child block holding the title."""

    name = "title_block"

    def process(self, page):
        return SegmentResult(segments=(
            Segment("1", None, 1, BBox(0, 0, 1024, 768), ("/html/body",), "", False),
            Segment("1.1", "1", 10, BBox(0, 0, 1024, 40), ("/html/head/title",), page_title(page.root) or "", True),
        ))
