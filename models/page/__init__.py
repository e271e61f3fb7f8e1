"""The page model shared by every method: bytes + headers -> decoded text -> lxml tree, and the
DOM helpers (visible text, XPaths, tag paths) that methods reuse instead of rewriting."""

from .decode import DecodedText, decode_body, looks_binary, normalise_charset
from .dom import (
    BLOCK_TAGS,
    INVISIBLE_TAGS,
    is_element,
    iter_text_chunks,
    join_paragraphs,
    page_title,
    tag_path,
    visible_text,
    xpath_of,
    xpaths_of,
)
from .errors import DecodeError, EmptyPageError, NotHtmlError, PageError, ParseError, one_line
from .method import Method
from .parse import MAX_DEPTH, ParsedPage, page_from_decoded, page_markup, parse_html, parse_page
from .result import CleanResult

__all__ = ["DecodedText", "decode_body", "looks_binary", "normalise_charset", "BLOCK_TAGS", "INVISIBLE_TAGS",
           "is_element", "iter_text_chunks", "join_paragraphs", "page_title", "tag_path", "visible_text", "xpath_of",
           "xpaths_of",
           "DecodeError", "EmptyPageError", "NotHtmlError", "PageError", "ParseError", "one_line", "MAX_DEPTH",
           "Method", "ParsedPage", "page_from_decoded", "page_markup", "parse_html", "parse_page", "CleanResult"]
