"""BlockNet settings: packaged defaults in conf/blocknet.toml."""

from __future__ import annotations

from dataclasses import dataclass

from pagesieve.settings import Settings

__all__ = ["BlockNetSettings"]


@dataclass(frozen=True, slots=True)
class BlockNetSettings(Settings):
    conf_name = "blocknet"

    model: str = "default"
    threshold: float = 0.0
    min_words: int = 100
    fallback_margin: float = 3.0
    device: str = "auto"
    threads: int = 1
    max_batch_blocks: int = 65536
    max_blocks: int = 200_000

    def __post_init__(self) -> None:
        if self.min_words < 0:
            raise ValueError(f"min_words must be >= 0, got {self.min_words}")
        if self.fallback_margin < 0:
            raise ValueError(f"fallback_margin must be >= 0, got {self.fallback_margin}")
        if self.threads < 1:
            raise ValueError(f"threads must be >= 1, got {self.threads}")
        if self.max_blocks < 1:
            raise ValueError(f"max_blocks must be >= 1, got {self.max_blocks}")
        if self.max_batch_blocks < 1:
            raise ValueError(f"max_batch_blocks must be >= 1, got {self.max_batch_blocks}")
