"""CNR settings. The field defaults are the packaged defaults; conf/cnr.toml states the same values with a
comment on every key (tests/test_settings_defaults.py keeps the two equal)."""

from __future__ import annotations

from dataclasses import dataclass

from pagesieve.settings import Settings, check_at_least

__all__ = ["CNRSettings"]


@dataclass(frozen=True, slots=True)
class CNRSettings(Settings):
    conf_name = "cnr"

    # Algorithm 1's nonContentNodes (conf/cnr.toml says why each is there)
    non_content_tags: tuple[str, ...] = ("script", "style", "noscript", "template", "nav", "a", "img", "svg", "video",
                                         "audio", "iframe", "object", "embed", "canvas", "select", "button", "input",
                                         "textarea")
    top_fraction: float = 0.2
    top_min: int = 3
    adjust: int = 0

    def __post_init__(self) -> None:
        if not 0 < self.top_fraction <= 1:
            raise ValueError(f"top_fraction must be in (0, 1], got {self.top_fraction}")
        check_at_least(1, top_min=self.top_min)
