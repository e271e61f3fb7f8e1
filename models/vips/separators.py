"""Visual separator detection (section 4.2.1) and separator weights (section 4.2.2).

A separator is a stripe across the whole region being divided that no block crosses: horizontal
separators are ranges of y, vertical ones ranges of x. Detection is the paper's: start with one separator
covering the region, then for every block split the separators that contain it, shrink the ones it
crosses and remove the ones it covers; finally remove the separators that touch the region's border.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .extraction import Box, VisualTree
from .settings import VIPSSettings

__all__ = ["Separator", "SideInfo", "detect_separators", "weigh_separator", "block_info"]

# Blocks that merely touch (table cells, stacked divs without margins) still have a boundary between
# them: each block's extent is shrunk by this much, so touching blocks leave a 1 px separator.
TOUCH_PX = 0.5
FACING_MAX = 12


@dataclass(slots=True)
class Separator:
    """A stripe [start, end] of y (horizontal) or x (vertical) across the region, with its weight."""

    horizontal: bool
    start: float
    end: float
    weight: float = 0.0
    cues: dict[str, float] = field(default_factory=dict)   # what the weight is made of (for tests and plots)

    @property
    def width(self) -> float:
        return max(self.end - self.start, 0.0)


@dataclass(frozen=True, slots=True)
class SideInfo:
    """What the weights compare about a block: its dominant font, its background, its tag, its text."""

    font_size: float | None
    bold: bool | None
    background: str | None
    tag: str
    chars: int


def detect_separators(boxes: list[Box], region: Box, horizontal: bool) -> list[Separator]:
    """The separators between `boxes` inside `region` (section 4.2.1, steps 1-3)."""
    lo, hi = (region.y0, region.y1) if horizontal else (region.x0, region.x1)
    separators = [Separator(horizontal, lo, hi)]
    for box in boxes:
        top, bottom = (box.y0, box.y1) if horizontal else (box.x0, box.x1)
        top, bottom = top + TOUCH_PX, max(bottom - TOUCH_PX, top + TOUCH_PX)
        updated: list[Separator] = []
        for sep in separators:
            if bottom <= sep.start or top >= sep.end:        # no relation
                updated.append(sep)
            elif top > sep.start and bottom < sep.end:       # contained: split
                updated += [Separator(horizontal, sep.start, top), Separator(horizontal, bottom, sep.end)]
            elif top <= sep.start and bottom >= sep.end:     # covers: remove
                continue
            elif top <= sep.start:                           # crosses its start: update
                updated.append(Separator(horizontal, bottom, sep.end))
            else:                                            # crosses its end: update
                updated.append(Separator(horizontal, sep.start, top))
        separators = updated
    return [s for s in separators if s.start > lo and s.end < hi]   # step 3: not at the pool's border


def _overlap(a0: float, a1: float, b0: float, b1: float) -> bool:
    return min(a1, b1) - max(a0, b0) > 0


def facing(boxes: list[Box], sep: Separator, before: bool) -> list[int]:
    """Indices of the blocks right before (above / left of) or after the separator: on that side, with no
    other block between them and the separator."""
    def ext(b: Box) -> tuple[float, float, float, float]:   # (near edge, far edge, cross range) in sep's frame
        if sep.horizontal:
            return (b.y1, b.y0, b.x0, b.x1) if before else (b.y0, b.y1, b.x0, b.x1)
        return (b.x1, b.x0, b.y0, b.y1) if before else (b.x0, b.x1, b.y0, b.y1)

    if before:
        side = [i for i, b in enumerate(boxes) if ext(b)[0] <= sep.start + 1]
        side.sort(key=lambda i: -ext(boxes[i])[0])          # nearest to the separator first
    else:
        side = [i for i, b in enumerate(boxes) if ext(b)[0] >= sep.end - 1]
        side.sort(key=lambda i: ext(boxes[i])[0])
    out: list[int] = []
    seen: list[int] = []
    # a block is hidden from the separator by a nearer one across the same range; nearer blocks come first,
    # so only the ones already seen can hide it. Only the nearest FACING_MAX count (the weights look at the
    # dominant block of each side): it keeps a pool of hundreds of blocks from costing n^3.
    for i in side:
        _, _, c0, c1 = ext(boxes[i])
        if not any(_overlap(c0, c1, ext(boxes[j])[2], ext(boxes[j])[3]) for j in seen):
            out.append(i)
            if len(out) >= FACING_MAX:
                break
        seen.append(i)
        if len(seen) >= 4 * FACING_MAX:
            break
    return sorted(out)


def block_info(tree: VisualTree, node: int) -> SideInfo:
    """The dominant font (by characters) of a block's text, its effective background and its tag."""
    weights: dict[tuple[float, int], int] = {}
    for t in tree.text_nodes(node):
        key = (t.font_size, t.font_weight)
        weights[key] = weights.get(key, 0) + len(t.text or "")
    tag = tree.nodes[node].tag
    if not weights:
        return SideInfo(None, None, tree.background[node], tag, 0)
    (size, weight), _ = max(weights.items(), key=lambda kv: kv[1])
    return SideInfo(size, weight >= 600, tree.background[node], tag, sum(weights.values()))


def _dominant(infos: list[SideInfo]) -> SideInfo:
    return max(infos, key=lambda i: i.chars)


def weigh_separator(sep: Separator, before: list[SideInfo], after: list[SideInfo], hr_boxes: list[Box],
                    region: Box, settings: VIPSSettings) -> float:
    """Set `sep.weight` from the five rules of section 4.2.2 (see conf/vips.toml) and return it."""
    s = settings
    cues = {"distance": min(sep.width / s.px_per_weight, s.distance_weight_max)}
    for hr in hr_boxes:
        a0, a1, c0, c1 = (hr.y0, hr.y1, hr.x0, hr.x1) if sep.horizontal else (hr.x0, hr.x1, hr.y0, hr.y1)
        r0, r1 = (region.x0, region.x1) if sep.horizontal else (region.y0, region.y1)
        if a0 >= sep.start - 1 and a1 <= sep.end + 1 and _overlap(c0, c1, r0, r1):
            cues["hr"] = s.hr_weight
            break
    if before and after:
        a, b = _dominant(before), _dominant(after)
        if {i.background for i in before} != {i.background for i in after} and a.background != b.background:
            cues["background"] = s.background_weight
        if sep.horizontal and a.font_size is not None and b.font_size is not None:
            if a.font_size != b.font_size:
                cues["font_size"] = min(abs(a.font_size - b.font_size) * s.font_size_weight_per_px,
                                        s.font_size_weight_max)
            if a.bold != b.bold:
                cues["font_weight"] = s.font_weight_weight
            if a.font_size < b.font_size:
                cues["font_grows"] = s.font_grows_weight
            if (a.tag, a.font_size, a.bold) == (b.tag, b.font_size, b.bold):
                cues["similar"] = -s.similar_structure_weight
    sep.cues = cues
    sep.weight = max(sum(cues.values()), 0.0)
    return sep.weight
