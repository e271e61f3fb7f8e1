"""Web2Text settings: packaged defaults in conf/web2text.toml."""

from __future__ import annotations

from dataclasses import dataclass

from pagesieve.settings import Settings, check_at_least

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
        check_at_least(0, lam=self.lam)
        check_at_least(1, threads=self.threads, max_blocks=self.max_blocks, max_batch_blocks=self.max_batch_blocks)
