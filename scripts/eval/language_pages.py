"""Real pages and their cleaned text for the language scripts (`bench_language.py`, `web2text_languages.py`).

Every HTML page of the real archives in `../shared/data/warc` (read by pagesieve's own readers), cleaned by a
method in this process, and CLD2's verdict on a text (pycld2: the detector Common Crawl runs for its
`languages-cld2` line, here run on our text).
"""

from __future__ import annotations

import glob
from dataclasses import dataclass
from pathlib import Path

from pagesieve.archives import iter_records
from pagesieve.data import data_root
from pagesieve.models.page import PageInput, build_runner
from pagesieve.models.page.language import iso639_1
from pagesieve.models.registry import load_settings, method_class

WARC_DIR = data_root() / "warc"


@dataclass(frozen=True)
class ArchivePage:
    archive: str
    page: PageInput


def archive_pages(warc_dir: Path = WARC_DIR) -> list[ArchivePage]:
    """Every page (HTML response) of every archive in the folder, in file order."""
    out = []
    for path in sorted(glob.glob(str(warc_dir / "*.*arc*"))):
        if path.endswith((".wat.gz", ".wet.gz")):
            continue
        for row in iter_records(path):
            if row["skip_reason"] is None:
                out.append(ArchivePage(Path(path).name, PageInput.from_row(row)))
    return out


def clean_texts(pages: list[ArchivePage], method: str) -> list[str]:
    """The method's text of each page ("" when it kept nothing or failed)."""
    runner = build_runner(method_class(method, "cleaner"), load_settings(method), 30.0)
    outcomes = runner.run([p.page for p in pages])
    runner.close()
    return [o.result.text if o.result.status == "ok" else "" for o in outcomes]


def cld2(text: str) -> tuple[str | None, bool]:
    """(CLD2's top language as ISO 639-1 or None, whether CLD2 calls it reliable)."""
    import pycld2

    try:
        reliable, _, details = pycld2.detect(text)
    except pycld2.error:  # CLD2 calls C0/C1 control characters (from lossy decoding) invalid UTF-8: drop them
        kept = "".join(c for c in text if c.isprintable() or c.isspace())
        reliable, _, details = pycld2.detect(kept.encode("utf-8", "replace"))
    return iso639_1(details[0][1]), bool(reliable)
