"""The jobs' settings, typed like the methods': one frozen dataclass per `[section]` of `conf/jobs.toml`.

A wrong type or an out-of-range value fails when the settings are built, with one line naming
`section.key`, before Spark starts or any data is read.
"""

from __future__ import annotations

from dataclasses import dataclass

from pagesieve.models.page import GUARDS
from pagesieve.settings import Settings

__all__ = ["IngestSettings", "CleanSettings", "ExportSettings", "StreamSettings", "SegmentSettings", "JOB_SETTINGS"]


def _positive(**values: float) -> None:
    for name, value in values.items():
        if value <= 0:
            raise ValueError(f"{name} must be > 0, got {value}")


@dataclass(frozen=True, slots=True)
class IngestSettings(Settings):
    conf_name = "jobs"
    conf_section = "ingest"

    max_body_bytes: int = 20_000_000
    max_records_per_file: int = 2000
    rows_per_batch: int = 256
    commoncrawl_base: str = "https://data.commoncrawl.org/"

    def __post_init__(self) -> None:
        _positive(max_body_bytes=self.max_body_bytes, max_records_per_file=self.max_records_per_file,
                  rows_per_batch=self.rows_per_batch)


@dataclass(frozen=True, slots=True)
class CleanSettings(Settings):
    conf_name = "jobs"
    conf_section = "clean"

    method: str = "cnr"
    page_timeout_s: float = 30.0
    guard: str = "alarm"
    min_partitions: int = 0

    def __post_init__(self) -> None:
        if self.page_timeout_s < 0:
            raise ValueError(f"page_timeout_s must be >= 0 (0: no deadline), got {self.page_timeout_s}")
        if self.guard not in GUARDS:
            raise ValueError(f"guard must be one of {', '.join(GUARDS)}, got {self.guard!r}")
        if self.min_partitions < 0:
            raise ValueError(f"min_partitions must be >= 0, got {self.min_partitions}")


@dataclass(frozen=True, slots=True)
class SegmentSettings(Settings):
    conf_name = "jobs"
    conf_section = "segment"

    method: str = "vips"
    page_timeout_s: float = 60.0
    guard: str = "process"
    min_partitions: int = 0

    def __post_init__(self) -> None:
        if self.page_timeout_s < 0:
            raise ValueError(f"page_timeout_s must be >= 0 (0: no deadline), got {self.page_timeout_s}")
        if self.guard not in GUARDS:
            raise ValueError(f"guard must be one of {', '.join(GUARDS)}, got {self.guard!r}")
        if self.min_partitions < 0:
            raise ValueError(f"min_partitions must be >= 0, got {self.min_partitions}")


@dataclass(frozen=True, slots=True)
class ExportSettings(Settings):
    conf_name = "jobs"
    conf_section = "export"

    shards: int = 4
    include_title: bool = True

    def __post_init__(self) -> None:
        _positive(shards=self.shards)


@dataclass(frozen=True, slots=True)
class StreamSettings(Settings):
    conf_name = "jobs"
    conf_section = "stream"

    max_files_per_trigger: int = 8
    trigger_seconds: float = 10.0
    partitions: int = 0

    def __post_init__(self) -> None:
        _positive(max_files_per_trigger=self.max_files_per_trigger, trigger_seconds=self.trigger_seconds)
        if self.partitions < 0:
            raise ValueError(f"partitions must be >= 0, got {self.partitions}")


JOB_SETTINGS: dict[str, type[Settings]] = {"ingest": IngestSettings, "clean": CleanSettings, "export": ExportSettings,
                                          "stream": StreamSettings, "segment": SegmentSettings}
