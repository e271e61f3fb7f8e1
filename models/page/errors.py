"""Failures a method can name; each carries the `documents.status` it maps to."""

from __future__ import annotations

__all__ = ["PageError", "DecodeError", "ParseError", "NotHtmlError", "EmptyPageError", "TooLargeError", "one_line"]


class PageError(Exception):
    """Base class: a page-level failure with a status for the documents table."""

    status = "error"


class DecodeError(PageError):
    status = "decode_error"


class ParseError(PageError):
    status = "parse_error"


class NotHtmlError(PageError):
    """The bytes are not markup (binary junk, an image labelled text/html, ...)."""

    status = "not_html"


class EmptyPageError(PageError):
    """Nothing to work on: an empty body, or a document without any element content."""

    status = "empty"


class TooLargeError(PageError):
    """The page is over a method's size limit (blocks, nodes): it is refused while being built, so that one
    page cannot take the worker's memory (hostile-pass issue: 13 GB for two pages of tiny inline elements)."""

    status = "too_large"


def one_line(failure: BaseException | str, limit: int = 200) -> str:
    """An exception (as `Type: message`) or a message, on one line of at most `limit` characters:
    the form of every `error` column and per-failure log line."""
    message = failure if isinstance(failure, str) else f"{type(failure).__name__}: {failure}"
    return " ".join(message.split())[:limit]
