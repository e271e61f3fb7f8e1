"""CNR settings: packaged defaults in conf/cnr.toml."""

from __future__ import annotations

from dataclasses import dataclass

from pagesieve.settings import Settings, check_at_least

__all__ = ["CNRSettings"]


@dataclass(frozen=True, slots=True)
class CNRSettings(Settings):
    conf_name = "cnr"

    non_content_tags: tuple[str, ...] = ()
    top_fraction: float = 0.2
    top_min: int = 3
    adjust: int = 0

    def __post_init__(self) -> None:
        if not 0 < self.top_fraction <= 1:
            raise ValueError(f"top_fraction must be in (0, 1], got {self.top_fraction}")
        check_at_least(1, top_min=self.top_min)
