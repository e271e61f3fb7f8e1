"""FreeDOM settings: packaged defaults in conf/freedom.toml."""

from __future__ import annotations

from dataclasses import dataclass, field

from pagesieve.settings import ConfigError, FrozenMap, Settings, check_at_least, check_device, check_threads

from ..page.weights import model_check
from .checks import CHECKS

__all__ = ["PACKAGED_MODELS", "FreeDOMSettings"]

# name -> file stem under weights/ (scripts/train/train_freedom.py writes them); here, not in model.py, so that
# checking the `model` setting imports no torch
PACKAGED_MODELS = {"book": "freedom-book"}


@dataclass(frozen=True, slots=True)
class FreeDOMSettings(Settings):
    conf_name = "freedom"
    field_checks = {"device": check_device, "threads": check_threads,   # on the driver, before Spark starts
                    "model": model_check(__package__, PACKAGED_MODELS, "FreeDOM", "scripts/train/train_freedom.py")}

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
    value_checks: bool = True
    value_spans: bool = False
    # field -> check name (checks.CHECKS); fields the model does not have are ignored
    checks: dict[str, str] = field(default_factory=lambda: FrozenMap(
        {"isbn_13": "isbn13", "publication_date": "date_or_year", "publisher": "not_title", "author": "not_title"}))

    def __post_init__(self) -> None:
        unknown = sorted(f"{k} = {v!r}" for k, v in self.checks.items() if v not in CHECKS)
        if unknown:
            raise ConfigError(f"freedom.checks: unknown check {unknown[0]}; known: {', '.join(CHECKS)}")
        check_at_least(1, top_n=self.top_n, relation_top_m=self.relation_top_m)
        check_at_least(2, vote_min_pages=self.vote_min_pages)
        check_at_least(1, threads=self.threads, max_batch_nodes=self.max_batch_nodes)
