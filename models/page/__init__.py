"""The page model shared by every method: bytes + headers -> decoded text -> lxml tree, the DOM helpers
(visible text, XPaths, tag paths) that methods reuse instead of rewriting, the method contract (`Method`
and its three kinds, their result types) and the per-page runner that every caller goes through."""

from .decode import DecodedText, decode_body, looks_binary, normalise_charset
from .dom import (
    BLOCK_TAGS,
    COMMENT,
    END,
    HIDING_TAGS,
    INVISIBLE_TAGS,
    SKIP,
    START,
    WalkEvent,
    hidden_chars,
    is_element,
    iter_text_chunks,
    join_paragraphs,
    page_title,
    tag_path,
    text_nodes,
    title_elements,
    visible_text,
    walk_tree,
    xpath_of,
    xpaths_of,
)
from .errors import DecodeError, EmptyPageError, NotHtmlError, PageError, ParseError, TooLargeError, one_line
from .guard import GUARDS, PageTimeout, deadline
from .method import GROUPINGS, NEEDS, Cleaner, Extractor, Method, Segmenter
from .parse import (
    MAX_DEPTH,
    ParsedPage,
    decode_page,
    page_from_decoded,
    page_markup,
    parse_html,
    parse_page,
    xml_compatible,
)
from .resources import SubResource, css_imports, page_stylesheets, resource_key, stylesheet_urls
from .result import (
    RESULT_TYPES,
    BBox,
    CleanResult,
    ExtractResult,
    Field,
    Record,
    Result,
    Segment,
    SegmentResult,
)
from .runner import (
    InlineRunner,
    Outcome,
    PageInput,
    Prepared,
    Runner,
    build_runner,
    charged_ms,
    failure_of,
    prepare,
    run_page,
    run_pages,
    run_prepared,
)

__all__ = ["DecodedText", "decode_body", "looks_binary", "normalise_charset", "BLOCK_TAGS", "INVISIBLE_TAGS",
           "HIDING_TAGS", "hidden_chars", "is_element", "iter_text_chunks", "join_paragraphs", "page_title", "tag_path",
           "title_elements", "visible_text", "xpath_of", "xpaths_of", "START", "END", "SKIP", "COMMENT", "WalkEvent",
           "walk_tree", "text_nodes",
           "DecodeError", "EmptyPageError", "NotHtmlError", "PageError", "ParseError", "TooLargeError", "one_line",
           "MAX_DEPTH",
           "GUARDS", "PageTimeout", "deadline", "GROUPINGS", "NEEDS", "Cleaner", "Extractor", "Method", "Segmenter",
           "ParsedPage", "SubResource", "css_imports", "page_stylesheets", "resource_key", "stylesheet_urls",
           "decode_page", "page_from_decoded", "page_markup", "parse_html", "parse_page", "xml_compatible",
           "RESULT_TYPES", "BBox", "CleanResult", "ExtractResult", "Field", "Record", "Result", "Segment",
           "SegmentResult", "InlineRunner", "Outcome", "PageInput", "Prepared", "Runner", "build_runner", "charged_ms",
           "failure_of", "prepare", "run_page", "run_pages", "run_prepared"]
