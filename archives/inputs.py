"""What to read: expanding inputs (globs, folders, manifests, URIs) and reading saved HTML files."""

from __future__ import annotations

import glob
import gzip
import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pagesieve.archives.archive import iter_records, one_line, reader_row

__all__ = ["COMMONCRAWL_BASE", "iter_html_files", "read_input", "list_inputs"]

logger = logging.getLogger(__name__)

_ARCHIVES = (".warc", ".warc.gz", ".arc", ".arc.gz")
_HTML = (".html", ".htm")
_MANIFESTS = (".txt", ".paths", ".paths.gz")
COMMONCRAWL_BASE = "https://data.commoncrawl.org/"
_COMMONCRAWL_KEY = "crawl-data/"


def iter_html_files(path: str, *, max_body_bytes: int = 20_000_000) -> Iterator[dict[str, Any]]:
    """Yield saved HTML files as pages: a directory's `*.html`/`*.htm` files, or one such file.

    Args:
        path: a directory or a single HTML file.
        max_body_bytes: longer files are cut to this and get ingest_status `too_large`.

    Returns:
        One row per file (page_id = file stem, url = its `file://` URI, source_profile `files`);
        a file or directory that cannot be read gives a `read_error` row instead of raising.
    """
    base = Path(path)
    try:
        files = [base] if base.is_file() else sorted(
            f for f in base.iterdir() if f.suffix.lower() in _HTML and f.is_file())
    except OSError as exc:
        files = []
        yield reader_row(path, skip_reason="read_error", source_profile="files", error=one_line(exc))
    for file in files:
        source = path if file is base else os.path.join(path, file.name)
        try:
            body = file.read_bytes()
        except OSError as exc:
            yield reader_row(source, skip_reason="read_error", source_profile="files", error=one_line(exc))
            continue
        yield reader_row(source, page_id=file.stem, url=file.resolve().as_uri(), content_type="text/html",
                   body=body[:max_body_bytes], source_profile="files",
                   ingest_status="too_large" if len(body) > max_body_bytes else "ok")
    logger.info("read %s: %d html files", path, len(files))


def read_input(path: str, *, max_body_bytes: int = 20_000_000, profile: str = "auto",
               tally: dict[str, Any] | None = None) -> Iterator[dict[str, Any]]:
    """Rows of one input from `list_inputs`: HTML files for a directory or `.html` file, else archive.

    Args:
        path: a path or URI as returned by `list_inputs`.
        max_body_bytes: the body cap passed to the reader.
        profile: the archive profile (see `iter_records`); HTML files and folders ignore it.
        tally: filled with the archive's byte accounting (see `iter_records`); untouched for HTML.

    Returns:
        The reader's row iterator (never raises for bad input).

    Raises:
        ValueError: an unknown profile.
    """
    local = path.removeprefix("file://")
    if "://" not in local and (os.path.isdir(local) or local.lower().endswith(_HTML)):
        return iter_html_files(local, max_body_bytes=max_body_bytes)
    return iter_records(path, max_body_bytes=max_body_bytes, profile=profile, tally=tally)


def list_inputs(inputs: list[str], *, commoncrawl_base: str = COMMONCRAWL_BASE) -> list[str]:
    """Expand inputs into the archives (and HTML directories/files) to read, sorted and de-duplicated.

    Args:
        inputs: paths, globs, directories (their *.warc[.gz]/*.arc[.gz] files, or the directory
            itself when it holds only *.html/*.htm), manifests (`*.txt`, `*.paths`, `*.paths.gz`:
            one path or URI per line, relative ones taken from the manifest's folder), or remote
            URIs (`s3://`, `http(s)://`, ...), which are kept as they are.
        commoncrawl_base: prefix for manifest lines that are Common Crawl keys (`crawl-data/...`,
            as in CC's `warc.paths.gz`): `https://data.commoncrawl.org/` by default, `s3://commoncrawl/`
            from inside AWS, or a local mirror's folder.

    Returns:
        The sorted list of inputs.

    Raises:
        FileNotFoundError: an input (or a manifest line) matches nothing readable.
    """
    found: set[str] = set()
    for item in inputs:
        matches = _expand(item, manifest=True, cc_base=commoncrawl_base)
        if not matches:
            raise FileNotFoundError(f"input {item!r} matches no archive, HTML file, directory or manifest")
        found.update(matches)
    return sorted(found)


def _expand(item: str, manifest: bool, cc_base: str = COMMONCRAWL_BASE) -> list[str]:
    if "://" in item and not item.startswith("file://"):
        return [item]
    item = item.removeprefix("file://")
    if any(c in item for c in "*?["):  # a glob's matches are inputs themselves, never manifests
        return [m for match in sorted(glob.glob(item, recursive=True)) for m in _expand(match, False)]
    if os.path.isdir(item):
        names = sorted(os.listdir(item))
        archives = [os.path.normpath(os.path.join(item, n)) for n in names if n.lower().endswith(_ARCHIVES)]
        if archives:
            return archives
        return [os.path.normpath(item)] if any(n.lower().endswith(_HTML) for n in names) else []
    if not os.path.isfile(item):
        return []
    if not (manifest and item.lower().endswith(_MANIFESTS)):
        return [os.path.normpath(item)]
    opener = gzip.open if item.lower().endswith(".gz") else open
    with opener(item, "rt", encoding="utf-8") as lines:
        entries = [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]
    out = []
    for entry in entries:
        if entry.startswith(_COMMONCRAWL_KEY):  # CC's warc.paths.gz lists keys of its bucket, not local paths
            entry = cc_base.rstrip("/") + "/" + entry
        elif "://" not in entry and not os.path.isabs(entry):
            entry = os.path.join(os.path.dirname(item), entry)
        matches = _expand(entry, manifest=False)
        if not matches:
            raise FileNotFoundError(f"manifest {item!r} lists {entry!r}, which matches nothing")
        out.extend(matches)
    return out
