"""`pagesieve vips-show` on a hand-built page in the real browser: the picture and the printed tree."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PIL import Image

from pagesieve.jobs import vips_show
from pagesieve.models.vips.show import LEVEL_COLOURS

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
import vips_layouts as layouts  # noqa: E402

pytestmark = pytest.mark.slow  # every test here renders pages in a real Chromium


def test_vips_show_draws_the_blocks_and_prints_the_tree(tmp_path, capsys):
    page = tmp_path / "page.html"
    page.write_text(layouts.SIDEBAR, encoding="utf-8")
    assert vips_show.main([str(page), "--url", "http://example.test/", "--out", str(tmp_path / "full.png")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("1 DoC ") and lines[1].startswith("  1.1 DoC ") and lines[2].startswith("  1.2 DoC ")
    assert "main" in lines[2] and "main" not in lines[1]        # the column, not the sidebar
    full = Image.open(tmp_path / "full.png").convert("RGB")
    assert full.width == 1280
    colours = {c for _, c in full.getcolors(maxcolors=1 << 20)}
    assert LEVEL_COLOURS[0] in colours                          # the level-1 outlines are drawn

    small = tmp_path / "small.png"
    vips_show.main([str(page), "--out", str(small), "--crop-height", "400", "--width", "320"])
    shrunk = Image.open(small)
    assert (shrunk.size, shrunk.mode) == ((320, 100), "P")
