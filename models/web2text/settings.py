"""Web2Text settings: packaged defaults in conf/web2text.toml."""

from __future__ import annotations

from dataclasses import dataclass

from pagesieve.settings import Settings, check_at_least, check_device, check_threads

from ..page.weights import model_check

__all__ = ["PACKAGED_MODELS", "Web2TextSettings"]

# name -> file stem under weights/ (scripts/train/train_web2text.py writes them); here, not in model.py, so that
# checking the `model` setting imports no torch
PACKAGED_MODELS = {"default": "web2text-default", "cleaneval": "web2text-cleaneval"}


@dataclass(frozen=True, slots=True)
class Web2TextSettings(Settings):
    conf_name = "web2text"
    field_checks = {"device": check_device, "threads": check_threads,   # on the driver, before Spark starts
                    "model": model_check(__package__, PACKAGED_MODELS, "Web2Text", "scripts/train/train_web2text.py")}

    model: str = "default"
    lam: float = 0.1
    device: str = "auto"
    threads: int = 1
    max_batch_blocks: int = 65536
    max_blocks: int = 200_000

    def __post_init__(self) -> None:
        check_at_least(0, lam=self.lam)
        check_at_least(1, threads=self.threads, max_blocks=self.max_blocks, max_batch_blocks=self.max_batch_blocks)
