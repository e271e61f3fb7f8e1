"""BlockNet settings: packaged defaults in conf/blocknet.toml."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pagesieve.settings import Settings, check_at_least, check_device, check_threads

from ..page.weights import model_check
from .peers import PEERS

__all__ = ["PACKAGED_MODELS", "BlendSettings", "BlockNetSettings", "CascadeSettings", "ConsensusSettings"]

# name -> file stem under weights/ (scripts/train/train_blocknet.py writes them); here, not in model.py, so that
# checking the `model` setting imports no torch
PACKAGED_MODELS = {"default": "blocknet-default", "blend": "blocknet-blend", "blend-lite": "blocknet-blend-lite"}


def _check_share(key: str, share: float) -> None:
    """A class path pull's share (`method.pull_to_paths`): between 0 and 1."""
    if not 0 <= share <= 1:
        raise ValueError(f"{key}: must be between 0 (off) and 1 (each block takes its class path's mean), "
                         f"got {share!r}")


@dataclass(frozen=True, slots=True)
class BlockNetSettings(Settings):
    conf_name = "blocknet"
    field_checks = {"device": check_device, "threads": check_threads,   # on the driver, before Spark starts
                    "model": model_check(__package__, PACKAGED_MODELS, "BlockNet", "scripts/train/train_blocknet.py")}

    model: str = "default"
    threshold: float = 0.0
    min_words: int = 100
    fallback_margin: float = 3.0
    device: str = "auto"
    threads: int = 1
    max_batch_blocks: int = 65536
    max_blocks: int = 200_000
    unsure: float = 0.22
    unsure_peer: str = "resiliparse"
    trees: bool = True
    drop_hidden_copies: bool = True
    drop_landmarks: bool = True
    path_pull: float = 0.5

    def __post_init__(self) -> None:
        check_at_least(0, min_words=self.min_words, fallback_margin=self.fallback_margin)
        check_at_least(1, threads=self.threads, max_blocks=self.max_blocks, max_batch_blocks=self.max_batch_blocks)
        _check_share(f"{self.conf_name}.path_pull", self.path_pull)
        if not 0 <= self.unsure <= 0.5:
            raise ValueError(f"{self.conf_name}.unsure: must be between 0 (every page is unsure) and 0.5 (none), "
                             f"got {self.unsure!r}")
        if self.unsure_peer not in ("", *PEERS):         # the peers' text may stand in for BlockNet's
            raise ValueError(f"{self.conf_name}.unsure_peer: one of {', '.join(PEERS)}, or \"\" for none; "
                             f"got {self.unsure_peer!r}")


@dataclass(frozen=True, slots=True)
class BlendSettings(BlockNetSettings):
    """The `blend` method's: BlockNet's fields, read from conf/blend.toml, with the model that reads the peers."""

    conf_name = "blend"

    model: str = "blend"
    unsure: float = 0.22         # as blocknet's: left out, blend gains from the second opinion too


@dataclass(frozen=True, slots=True)
class CascadeSettings(BlockNetSettings):
    """The `cascade` method's: BlockNet's fields (its model labels every page), read from conf/cascade.toml, plus
    the blend model for the pages BlockNet is unsure of and how unsure that is."""

    conf_name = "cascade"
    field_checks = BlockNetSettings.field_checks | {"blend_model": BlockNetSettings.field_checks["model"]}

    blend_model: str = "blend"
    unsure_peer: str = ""        # the unsure pages get blend's labels instead
    trees: bool = False          # both passes: the routing was chosen on the networks' logits alone
    path_pull: float = 0.0       # the routing was chosen without it

    def __post_init__(self) -> None:
        BlockNetSettings.__post_init__(self)
        if self.unsure_peer:
            raise ValueError("cascade.unsure_peer: the cascade's unsure pages go to blend; leave it \"\"")


def _optional(check: Callable[[str], None]) -> Callable[[str], None]:
    """A model field's check that also takes "" (no such model)."""
    return lambda value: None if value == "" else check(value)


@dataclass(frozen=True, slots=True)
class ConsensusSettings(BlockNetSettings):
    """The `consensus` method's: BlockNet's fields (for the BlockNet candidate; blend's candidate shares them),
    read from conf/consensus.toml, plus blend's model. No second opinion: the peers' texts are candidates."""

    conf_name = "consensus"
    field_checks = BlockNetSettings.field_checks | {"blend_model": _optional(BlockNetSettings.field_checks["model"])}

    blend_model: str = "blend"
    unsure_peer: str = ""
    path_pull: float = 0.0       # its candidate set and order were chosen on blocknet's logits without the pull
    blend_path_pull: float = 0.5  # blend's candidate pulled as blend pulls its own logits

    def __post_init__(self) -> None:
        BlockNetSettings.__post_init__(self)
        _check_share("consensus.blend_path_pull", self.blend_path_pull)
        if self.unsure_peer:
            raise ValueError("consensus.unsure_peer: the peers' texts are candidates on every page; leave it \"\"")
