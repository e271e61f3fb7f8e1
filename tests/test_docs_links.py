"""The documentation holds together: every relative link and `#anchor` in README.md and docs/**/*.md
resolves inside the repository, and README.md stays a front door (at most 400 lines and 40 kB).

Anchors are computed as GitHub renders them (lower case, punctuation dropped, spaces to hyphens, a
`-1`, `-2` suffix for repeated headings), so a link that works here works on the repository's page.
Links inside code (fenced blocks and `inline code`) are not links and are not checked.
"""

from __future__ import annotations

import re
import sys
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").rglob("*.md"))]
MAX_README_LINES = 400
MAX_README_BYTES = 40_000

FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.MULTILINE | re.DOTALL)
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
HTML_LINK = re.compile(r"""<(?:a|img)\b[^>]*?\b(?:href|src)\s*=\s*["']([^"']+)["']""", re.IGNORECASE)
HTML_ID = re.compile(r"""<a\b[^>]*?\b(?:id|name)\s*=\s*["']([^"']+)["']""", re.IGNORECASE)
HEADING = re.compile(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$", re.MULTILINE)
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:|^//")


def without_code(markdown: str) -> str:
    """The text with fenced code blocks and inline code spans blanked (links and headings there do not count)."""
    markdown = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), markdown)
    return INLINE_CODE.sub(lambda m: " " * len(m.group(0)), markdown)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading's text: rendered text, lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)   # a link shows its text
    # an HTML tag renders as nothing, but inside `code` it is shown text (`<noscript>` gives "noscript")
    parts = re.split(r"(`+[^`]*`+)", text)
    text = "".join(part.strip("`") if part.startswith("`") else re.sub(r"<[^>]+>", "", part) for part in parts)
    text = text.replace("*", "").strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


@cache
def anchors(page: Path) -> frozenset[str]:
    """Every anchor a link may name in `page`: its headings (repeats numbered as GitHub does) and HTML ids."""
    markdown = page.read_text(encoding="utf-8")
    fenced_out = FENCE.sub("", markdown)
    seen: dict[str, int] = {}
    found = set()
    for heading in HEADING.findall(fenced_out):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    found.update(HTML_ID.findall(fenced_out))
    return frozenset(found)


def broken_links(page: Path) -> list[str]:
    """The relative links of `page` that do not resolve, each as 'target: why'."""
    text = without_code(page.read_text(encoding="utf-8"))
    targets = LINK.findall(text) + HTML_LINK.findall(text)
    broken = []
    for target in targets:
        if not target or SCHEME.match(target):
            continue
        path_part, _, fragment = target.partition("#")
        dest = (page.parent / path_part).resolve() if path_part else page
        if not dest.is_relative_to(ROOT):
            broken.append(f"{target}: points outside the repository")
        elif not dest.exists():
            broken.append(f"{target}: {dest.relative_to(ROOT)} does not exist")
        elif fragment and dest.suffix == ".md" and fragment not in anchors(dest):
            broken.append(f"{target}: no heading or id '{fragment}' in {dest.relative_to(ROOT)}")
    return broken


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_and_anchor_resolves(page: Path) -> None:
    assert broken_links(page) == []


def test_readme_is_a_front_door() -> None:
    data = README.read_bytes()
    lines = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
    assert lines <= MAX_README_LINES, f"README.md has {lines} lines (at most {MAX_README_LINES}): move detail to docs/"
    assert len(data) <= MAX_README_BYTES, f"README.md is {len(data):,} bytes (at most {MAX_README_BYTES:,})"


def test_the_checker_sees_broken_links_and_anchors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The checker itself: a missing file, a missing anchor, a link out of the repository are caught;
    code, external URLs and numbered repeated headings are not flagged."""
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "b.md").write_text("# B page\n## Repeat\n## Repeat\n## What's `new`, really?\n")
    page = tmp_path / "docs" / "a.md"
    page.write_text(
        "# A\n[ok](b.md) [ok](b.md#b-page) [ok](b.md#repeat-1) [ok](b.md#whats-new-really) [ok](#a)\n"
        "[ext](https://example.org/x.md) `[code](missing.md)`\n```\n[fenced](missing.md)\n```\n"
        "[gone](missing.md) [anchor](b.md#nope) [out](../../elsewhere.md) [self](#nope)\n")
    assert [b.split(":")[0] for b in broken_links(page)] == [
        "missing.md", "b.md#nope", "../../elsewhere.md", "#nope"]
