"""The VIPS block tree drawn over a screenshot of the page (`pagesieve vips-show`).

Each level of the tree has its own colour (level 1 red, 2 blue, 3 green, ...), deeper levels thinner lines,
and each block down to `label_depth` is labelled with its id and DoC. Main-content leaves get a light fill.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from .method import Analysis, analyse, segments_of
from .render import Renderer
from .settings import VIPSSettings

__all__ = ["LEVEL_COLOURS", "draw_blocks", "show_page"]

LEVEL_COLOURS = [(220, 20, 60), (30, 90, 230), (20, 160, 60), (230, 140, 0), (150, 50, 200), (0, 170, 170),
                 (120, 120, 120)]


def draw_blocks(screenshot: str | Path, analysis: Analysis, out: str | Path, label_depth: int = 3) -> int:
    """Draw the blocks of `analysis` over the PNG `screenshot` into `out`; returns the blocks drawn."""
    from PIL import Image, ImageDraw, ImageFont

    image = Image.open(screenshot).convert("RGB")
    overlay = Image.new("RGBA", image.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(overlay)
    # large enough to stay legible when the picture is shrunk for a README (Pillow's bundled font)
    font = ImageFont.load_default(size=15)
    segments = segments_of(analysis)
    parents = {s.parent_id for s in segments}
    # nested blocks often share their top-left corner: a label that would cover one already drawn moves
    # to its right (the last drawn would hide the others)
    labels: list[tuple[float, float, float, float]] = []
    for s in segments:
        depth = s.block_id.count(".")
        if depth == 0 or s.bbox is None:
            continue              # the root is the whole page
        colour = LEVEL_COLOURS[(depth - 1) % len(LEVEL_COLOURS)]
        box = [s.bbox.x, s.bbox.y, s.bbox.x + s.bbox.w, s.bbox.y + s.bbox.h]
        if s.is_main and s.block_id not in parents:
            draw.rectangle(box, fill=(255, 230, 0, 50))
        draw.rectangle(box, outline=(*colour, 255), width=max(1, 4 - depth))
        if depth <= label_depth:
            label = f"{s.block_id} DoC {s.doc}"
            width = draw.textlength(label, font=font) + 2
            x, y = s.bbox.x + 2, s.bbox.y + 1
            while (hit := next((r for r in labels if x < r[2] and r[0] < x + width and y < r[3] and r[1] < y + 17),
                               None)) is not None:
                x = hit[2] + 4
            labels.append((x, y, x + width, y + 17))
            draw.rectangle([x, y, x + width, y + 17], fill=(255, 255, 255, 230))
            draw.text((x + 1, y), label, fill=(*colour, 255), font=font)
    Image.alpha_composite(image.convert("RGBA"), overlay).convert("RGB").save(out)
    return len(segments) - 1


def show_page(markup: str, url: str | None, out: str | Path, settings: VIPSSettings | None = None,
              label_depth: int = 3) -> Analysis:
    """Render `markup`, segment it and write the picture to `out` (PNG)."""
    settings = settings or VIPSSettings.load()
    renderer = Renderer(settings.render_options())
    try:
        with tempfile.TemporaryDirectory() as tmp:
            shot = Path(tmp) / "page.png"
            visual = renderer.screenshot(markup, url, str(shot))
            analysis = analyse(visual, settings)
            draw_blocks(shot, analysis, out, label_depth)
    finally:
        renderer.close()
    return analysis
