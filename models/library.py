"""The library front door: one page of HTML in, its main text out, with no Spark (`pagesieve.extract`).

    import pagesieve
    doc = pagesieve.extract(html, url="https://example.org/a")
    doc.text, doc.title, doc.language, doc.status

The same code path as `pagesieve clean`: the page is decoded and parsed once by the runner, every failure
becomes a status (never an exception), and the language is labelled with the `[clean]` settings of
conf/jobs.toml, so a document from here equals the `documents` row the job writes for the same page.
"""

from __future__ import annotations

import atexit
import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pagesieve.settings import FrozenMap, load_defaults

from .page import Method
from .page.language import LanguageID, language_of
from .page.runner import PageInput, run_page
from .registry import KIND_NOUNS, load_settings, method_class, resolve

__all__ = ["Document", "extract", "default_method"]


@dataclass(frozen=True, slots=True)
class Document:
    """The main content of one page: the columns of a `documents` row (docs/schemas.md).

    `status` is "ok" when there is text; otherwise it says why not ("empty", "not_html", "decode_error",
    "parse_error", "timeout", "too_large", "error", ...) and `error` has one line of detail.
    """

    text: str
    title: str | None
    language: str | None
    language_score: float | None
    status: str
    error: str | None
    content_xpaths: tuple[str, ...]
    method: str
    n_chars: int
    n_words: int
    elapsed_ms: float
    url: str | None = None


def default_method() -> str:
    """The cleaner `clean`, `run`, `stream` and `extract` use when none is named (`clean.method`)."""
    return _packaged_clean_settings()["method"]


@functools.cache
def _packaged_clean_settings() -> dict[str, Any]:
    """The `[clean]` section of conf/jobs.toml, read once: `extract` must not parse TOML on every call."""
    return load_defaults("jobs")["clean"]


def extract(html: str | bytes, url: str | None = None, method: str | None = None, **settings: Any) -> Document:
    """The main text of one HTML page, with its title, language and status.

    Args:
        html: the page, as text or as the raw bytes of the response (bytes are decoded as `clean` decodes
            them: BOM, meta charset, then detection).
        url: the page's address, when known (kept in the document; some methods read the host).
        method: a cleaner's registered name (`blocknet`, `cnr`, `web2text`, `trafilatura`, ...) or a dotted
            path `module:Class`; None for the default (`default_method()`).
        **settings: that method's settings (the keys of `conf/<method>.toml`), e.g. `adjust=1` for cnr.

    Returns:
        A `Document`. A page that cannot be cleaned still gives one, with its status and error.

    Raises:
        ValueError: an unknown method, a method that is not a cleaner (amber and freedom extract records:
            use `pagesieve extract`), or a setting the method does not have or a value out of its range.

    The built method is kept per (method, settings) in this process, so calling this in a loop builds it once.
    No page deadline applies here (the jobs have one: `clean.page_timeout_s`).
    """
    name = method or default_method()
    entry = resolve(name)
    if entry.kind != "cleaner":
        raise ValueError(f"method {name!r} is {KIND_NOUNS[entry.kind]}, not a cleaner: pagesieve.extract returns "
                         f"main text; run `pagesieve {'segment' if entry.kind == 'segmenter' else 'extract'}` "
                         "for its output")
    cleaner = _cleaner(name, _hashable(settings))
    body = html.encode("utf-8") if isinstance(html, str) else html
    page = PageInput(body, url=url, charset_hint="utf-8" if isinstance(html, str) else None)
    outcome = run_page(cleaner, page)
    result = outcome.result
    language, score = result.language, result.language_score
    language_settings = _language_settings()
    if result.status == "ok" and language is None and language_settings is not None:
        language, score = language_of(result.text, language_settings)
    return Document(text=result.text, title=result.title, language=language, language_score=score,
                    status=result.status, error=result.error, content_xpaths=tuple(result.content_xpaths),
                    method=cleaner.method_id, n_chars=result.n_chars, n_words=result.n_words,
                    elapsed_ms=outcome.elapsed_ms, url=url)


def _hashable(value: Any) -> Any:
    """Settings given as keyword arguments, made a cache key (lists -> tuples, tables -> FrozenMap)."""
    if isinstance(value, Mapping):
        return FrozenMap({str(k): _hashable(v) for k, v in value.items()})
    if isinstance(value, (list, tuple, set, frozenset)):
        return tuple(_hashable(v) for v in value)
    return value


@functools.lru_cache(maxsize=16)
def _cleaner(name: str, overrides: FrozenMap) -> Method:
    """The method built once per (name, settings) in this process; settings are checked here."""
    built = method_class(name, "cleaner")(load_settings(name, dict(overrides), kind="cleaner"))
    atexit.register(built.close)       # a renderer's browser must not outlive the interpreter
    return built


@functools.cache
def _language_settings() -> LanguageID | None:
    clean = _packaged_clean_settings()
    if clean["language_detector"] == "none":
        return None
    return LanguageID(clean["language_detector"], clean["language_min_chars"], clean["language_max_chars"])
