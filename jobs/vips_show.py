"""vips-show: one page's VIPS blocks drawn over its screenshot, for a person to look at.

    pagesieve vips-show saved/page.html --out page.png [--url https://example.com/page]
    pagesieve vips-show https://example.com/page --out page.png
    pagesieve vips-show saved/page.html --out small.png --crop-height 1800 --width 640   # for a README

A URL is fetched once here (the page only; its sub-resources stay blocked, as in every VIPS run); a file is
read as bytes and decoded like any page. Prints the block tree (id, DoC, main, first words of the text).
The picture is at most 16,384 px each way (the usual GPU texture limit; a taller page's screenshot failed
after 8.4 GB): a larger page keeps its top-left part, says so on stderr, and its whole tree is still printed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pagesieve.jobs.common import ConfigError, check_apart, check_readable_file, exit_on_config_error
from pagesieve.settings import parse_override

__all__ = ["main"]


def _fetch(url: str) -> bytes:
    import urllib.request

    request = urllib.request.Request(url, headers={"User-Agent": "pagesieve vips-show"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:   # noqa: S310 - the user's own URL
            return response.read()
    except OSError as exc:
        raise ConfigError(f"cannot fetch {url}: {exc}") from None


def shrink(path: str, crop_height: int, width: int) -> None:
    """Keep the top `crop_height` px of the PNG (0: all), scale it to `width` px wide (0: as is), and store it
    with a 128-colour palette: a picture small enough to keep in git."""
    from PIL import Image

    image = Image.open(path).convert("RGB")
    if crop_height and image.height > crop_height:
        image = image.crop((0, 0, image.width, crop_height))
    if width and image.width > width:
        image = image.resize((width, round(image.height * width / image.width)), Image.LANCZOS)
    image.quantize(colors=128, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)


def main(argv: list[str] | None = None) -> int:
    from pagesieve.models.page import PageError, PageInput, page_markup, prepare
    from pagesieve.models.vips.render import MAX_SHOT_PX
    from pagesieve.models.vips.settings import VIPSSettings
    from pagesieve.models.vips.show import show_page

    ap = argparse.ArgumentParser(prog="pagesieve vips-show", description=__doc__.splitlines()[0])
    ap.add_argument("page", metavar="URL_OR_FILE")
    ap.add_argument("--out", required=True, help="PNG to write")
    ap.add_argument("--url", default=None, help="the page's URL when it is a file (base for its relative links)")
    ap.add_argument("--label-depth", type=int, default=3, help="label blocks down to this level")
    ap.add_argument("--crop-height", type=int, default=0, help="keep only the top PX of the picture (0: all)")
    ap.add_argument("--width", type=int, default=0, help="scale the picture down to PX wide (0: full size)")
    ap.add_argument("--conf", action="append", default=[], metavar="vips.KEY=VALUE", help="VIPS settings")
    args = ap.parse_args(argv)
    overrides = {}
    for item in args.conf:
        key, value = parse_override(item)
        overrides[key.removeprefix("vips.")] = value
    settings = VIPSSettings.load(overrides, section="vips")
    if args.page.startswith(("http://", "https://")):
        body, url = _fetch(args.page), args.page
    else:
        if not Path(args.page).is_file():
            raise ConfigError(f"{args.page}: no such file")
        check_readable_file(args.page, "URL_OR_FILE")
        check_apart(args.out, [("URL_OR_FILE", args.page)])     # the PNG would replace the page
        body, url = Path(args.page).read_bytes(), args.url
    prepared = prepare(PageInput(body, url=url))
    if prepared.page is None:
        raise ConfigError(f"{args.page}: {prepared.status}: {prepared.error}")
    try:
        analysis = show_page(page_markup(prepared.page), url, args.out, settings, args.label_depth)
    except PageError as exc:   # the browser failed or timed out on the page: one line, its first
        raise ConfigError(f"{args.page}: {exc.status}: {str(exc).splitlines()[0]}") from None
    visual = analysis.visual
    if max(visual.width, visual.height) > MAX_SHOT_PX:
        print(f"vips-show: the page is {visual.width:,.0f} x {visual.height:,.0f} px; the picture keeps its top-left "
              f"{MAX_SHOT_PX:,} px each way (the usual GPU texture limit); the tree below is the whole page's",
              file=sys.stderr)
    if args.crop_height or args.width:
        shrink(args.out, args.crop_height, args.width)
    from pagesieve.models.vips import segments_of

    for s in sorted(segments_of(analysis), key=lambda s: [int(k) for k in s.block_id.split('.')]):
        words = " ".join(s.text.split()[:8])
        print(f"{'  ' * s.block_id.count('.')}{s.block_id} DoC {s.doc}{' main' if s.is_main else ''}: {words}")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(exit_on_config_error(main))
