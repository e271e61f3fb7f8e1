"""Web2Text settings: packaged defaults in conf/web2text.toml."""

from __future__ import annotations

from dataclasses import dataclass

from pagesieve.settings import Settings

__all__ = ["Web2TextSettings"]


@dataclass(frozen=True, slots=True)
class Web2TextSettings(Settings):
    conf_name = "web2text"

    model: str = "default"
    lam: float = 0.1
    device: str = "auto"
    threads: int = 1
    max_batch_blocks: int = 65536
    max_blocks: int = 200_000

    def __post_init__(self) -> None:
        if self.lam < 0:
            raise ValueError(f"lam must be >= 0, got {self.lam}")
        if self.threads < 1:
            raise ValueError(f"threads must be >= 1, got {self.threads}")
        if self.max_blocks < 1:
            raise ValueError(f"max_blocks must be >= 1, got {self.max_blocks}")
        if self.max_batch_blocks < 1:
            raise ValueError(f"max_batch_blocks must be >= 1, got {self.max_batch_blocks}")
