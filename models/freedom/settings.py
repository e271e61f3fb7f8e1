"""FreeDOM settings: packaged defaults in conf/freedom.toml."""

from __future__ import annotations

from dataclasses import dataclass

from pagesieve.settings import Settings

__all__ = ["FreeDOMSettings"]


@dataclass(frozen=True, slots=True)
class FreeDOMSettings(Settings):
    conf_name = "freedom"

    model: str = "book"
    schema: str = ""
    top_n: int = 300
    relation: bool = True
    relation_top_m: int = 10
    vote: bool = True
    vote_min_pages: int = 3
    device: str = "auto"
    threads: int = 1
    max_batch_nodes: int = 8192

    def __post_init__(self) -> None:
        if self.top_n < 1:
            raise ValueError(f"top_n must be >= 1, got {self.top_n}")
        if self.relation_top_m < 1:
            raise ValueError(f"relation_top_m must be >= 1, got {self.relation_top_m}")
        if self.vote_min_pages < 2:
            raise ValueError(f"vote_min_pages must be >= 2, got {self.vote_min_pages}")
        if self.threads < 1:
            raise ValueError(f"threads must be >= 1, got {self.threads}")
        if self.max_batch_nodes < 1:
            raise ValueError(f"max_batch_nodes must be >= 1, got {self.max_batch_nodes}")
