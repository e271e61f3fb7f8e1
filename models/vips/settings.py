"""VIPS settings. The field defaults are the packaged defaults; conf/vips.toml states the same values with a
comment on every key (tests/test_settings_defaults.py keeps the two equal)."""

from __future__ import annotations

from dataclasses import dataclass

from pagesieve.settings import FrozenMap, Settings, check_at_least, check_executable

from .render import RenderOptions

__all__ = ["VIPSSettings"]


@dataclass(frozen=True, slots=True)
class VIPSSettings(Settings):
    conf_name = "vips"
    field_checks = {"executable_path": check_executable}   # a missing browser failed every page after 25-40 s


    # rendering (models/vips/render.py)
    executable_path: str = "/usr/bin/chromium"
    viewport_width: int = 1280
    viewport_height: int = 800
    javascript: bool = False
    js_budget_ms: int = 500
    render_timeout_s: float = 20.0
    restart_after_pages: int = 1000
    max_nodes: int = 50_000
    # block extraction (section 4.1)
    pdoc: int = 6
    max_rounds: int = 8
    inline_tags: frozenset[str] = frozenset((
        "a", "abbr", "acronym", "b", "bdi", "bdo", "big", "cite", "code", "del", "dfn", "em", "font", "i", "ins",
        "kbd", "label", "mark", "q", "s", "samp", "small", "span", "strike", "strong", "sub", "sup", "time", "tt",
        "u", "var", "wbr", "nobr"))
    replaced_tags: frozenset[str] = frozenset((
        "img", "svg", "video", "canvas", "iframe", "object", "embed", "input", "select", "textarea", "button",
        "math", "picture", "audio"))
    text_block_share: dict[str, float] = FrozenMap({"default": 0.1, "td": 0.15, "p": 0.3})
    small_child_share: dict[str, float] = FrozenMap({"default": 0.05})
    doc_by_tag: dict[str, int] = FrozenMap({
        "default": 6, "p": 8, "h1": 8, "h2": 8, "h3": 8, "h4": 8, "h5": 8, "h6": 8, "li": 8, "a": 8, "span": 8,
        "pre": 8, "img": 8, "blockquote": 7, "td": 7, "th": 7, "dd": 7, "dt": 7, "caption": 7, "table": 5,
        "tbody": 5, "body": 5, "main": 5})
    # separator weights (section 4.2.2)
    px_per_weight: float = 10.0
    distance_weight_max: float = 3.0
    hr_weight: float = 3.0
    background_weight: float = 2.0
    font_size_weight_per_px: float = 0.5
    font_size_weight_max: float = 2.0
    font_weight_weight: float = 1.0
    font_grows_weight: float = 1.0
    similar_structure_weight: float = 1.0
    # main content (the vips cleaner)
    main_min_words: int = 10
    main_max_link_density: float = 0.5
    main_boilerplate_penalty: float = 1.0
    main_expand_share: float = 0.1

    def __post_init__(self) -> None:
        if not 1 <= self.pdoc <= 10:
            raise ValueError(f"pdoc must be in 1..10, got {self.pdoc}")
        check_at_least(1, **{name: getattr(self, name) for name in
                             ("viewport_width", "viewport_height", "restart_after_pages", "max_nodes", "max_rounds")})
        if self.render_timeout_s <= 0 or self.js_budget_ms < 0:
            raise ValueError("render_timeout_s must be > 0 and js_budget_ms >= 0")
        for name in ("text_block_share", "small_child_share", "doc_by_tag"):
            if "default" not in getattr(self, name):
                raise ValueError(f"{name} needs a 'default' entry")
        if not 0 <= self.main_max_link_density <= 1:
            raise ValueError(f"main_max_link_density must be in [0, 1], got {self.main_max_link_density}")

    def render_options(self) -> RenderOptions:
        return RenderOptions(self.executable_path, self.viewport_width, self.viewport_height, self.javascript,
                             self.js_budget_ms, self.render_timeout_s, self.restart_after_pages, self.max_nodes)

    def share(self, table: str, tag: str) -> float:
        """The per-tag value of `text_block_share` or `small_child_share` (its default for other tags)."""
        values = getattr(self, table)
        return float(values.get(tag, values["default"]))
