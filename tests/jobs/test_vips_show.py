"""`pagesieve vips-show` on a hand-built page in the real browser: the picture and the printed tree."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PIL import Image

from pagesieve.jobs import vips_show
from pagesieve.jobs.common import exit_on_config_error
from pagesieve.models.vips.show import LEVEL_COLOURS

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
import vips_layouts as layouts  # noqa: E402
from browsers import assert_no_chromium_left, chromium_pids  # noqa: E402

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


def test_a_very_tall_page_gives_its_top_16384_px_and_says_so(tmp_path, capsys):
    """A page taller than a GPU texture (30,000 px here; 800,000 px ended in "Unable to capture screenshot" after
    8.4 GB): the picture stops at 16,384 px, the tree is still the whole page's, and stderr says so."""
    before = set(chromium_pids())
    page = tmp_path / "tall.html"
    page.write_text(f'<html><body style="margin:0"><p>{layouts.PARA}</p><div style="height:30000px"></div>'
                    f"<p>The end of a tall page. {layouts.PARA}</p></body></html>", encoding="utf-8")
    out = tmp_path / "tall.png"
    assert vips_show.main([str(page), "--out", str(out), "--conf", "vips.viewport_width=400"]) == 0
    captured = capsys.readouterr()
    assert Image.open(out).size == (400, 16384)
    assert "1.2 DoC 10 main: The end of a tall page." in captured.out   # the tree reaches below the picture
    assert "400 x 30,120 px" in captured.err and "16,384 px" in captured.err and "Traceback" not in captured.err
    assert_no_chromium_left(before)


def test_a_browser_that_fails_is_one_line_not_a_traceback(tmp_path, capsys):
    page = tmp_path / "page.html"
    page.write_text(layouts.SIDEBAR, encoding="utf-8")
    # an executable that is not a browser passes the settings check (a missing one is refused there, before
    # anything starts: tests/jobs/test_bad_input.py) and fails when it is started
    argv = [str(page), "--out", str(tmp_path / "page.png"), "--conf", "vips.executable_path=/bin/false"]
    assert exit_on_config_error(vips_show.main, argv, "pagesieve vips-show") == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"pagesieve vips-show: error: {page}: error: cannot start /bin/false")
