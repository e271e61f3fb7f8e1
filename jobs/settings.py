"""The jobs' settings, typed like the methods': one frozen dataclass per `[section]` of `conf/jobs.toml`.

A wrong type or an out-of-range value fails when the settings are built, with one line naming
`section.key`, before Spark starts or any data is read.
"""

from __future__ import annotations

from dataclasses import dataclass

from pagesieve.models.page import GUARDS
from pagesieve.models.page.language import LanguageID
from pagesieve.models.quality import QualityRules
from pagesieve.schemas import PAGES_CODECS
from pagesieve.settings import Settings, check_at_least, check_positive

__all__ = ["IngestSettings", "CleanSettings", "ExportSettings", "StreamSettings", "SegmentSettings",
           "FilterSettings", "DedupSettings", "JOB_SETTINGS"]


def _check_page_job(page_timeout_s: float, guard: str, min_partitions: int) -> None:
    """The keys every job that runs a method over pages has (clean, segment)."""
    if page_timeout_s < 0:
        raise ValueError(f"page_timeout_s must be >= 0 (0: no deadline), got {page_timeout_s}")
    if guard not in GUARDS:
        raise ValueError(f"guard must be one of {', '.join(GUARDS)}, got {guard!r}")
    check_at_least(0, min_partitions=min_partitions)


@dataclass(frozen=True, slots=True)
class IngestSettings(Settings):
    conf_name = "jobs"
    conf_section = "ingest"

    max_body_bytes: int = 20_000_000
    max_records_per_file: int = 2000
    rows_per_batch: int = 256
    commoncrawl_base: str = "https://data.commoncrawl.org/"
    task_bytes: int = 64_000_000
    codec: str = "zstd"

    def __post_init__(self) -> None:
        check_positive(max_body_bytes=self.max_body_bytes, max_records_per_file=self.max_records_per_file,
                       rows_per_batch=self.rows_per_batch)
        if self.task_bytes < 0:
            raise ValueError(f"task_bytes must be >= 0 (0: one task per archive), got {self.task_bytes}")
        if self.codec not in PAGES_CODECS:
            raise ValueError(f"codec must be one of {', '.join(PAGES_CODECS)}, got {self.codec!r}")


@dataclass(frozen=True, slots=True)
class CleanSettings(Settings):
    conf_name = "jobs"
    conf_section = "clean"

    method: str = "blocknet"
    page_timeout_s: float = 30.0
    guard: str = "alarm"
    min_partitions: int = 0
    language_detector: str = "py3langid"
    language_min_chars: int = 50
    language_max_chars: int = 1000
    max_site_pages: int = 2000
    stylesheets: bool = True

    def __post_init__(self) -> None:
        if self.max_site_pages < 0:
            raise ValueError(f"max_site_pages must be >= 0 (0: no cap), got {self.max_site_pages}")
        _check_page_job(self.page_timeout_s, self.guard, self.min_partitions)
        check_positive(language_min_chars=self.language_min_chars)
        if self.language_max_chars < self.language_min_chars:
            raise ValueError(f"language_max_chars must be >= language_min_chars ({self.language_min_chars}), "
                             f"got {self.language_max_chars}")
        self.language_id()  # an unknown or missing detector fails here, naming the key

    def language_id(self) -> LanguageID | None:
        """How `documents.language` is filled; None when `language_detector = "none"`."""
        if self.language_detector == "none":
            return None
        try:
            return LanguageID(self.language_detector, self.language_min_chars, self.language_max_chars)
        except ValueError as exc:
            raise ValueError(f"language_detector: {exc}") from None


@dataclass(frozen=True, slots=True)
class SegmentSettings(Settings):
    conf_name = "jobs"
    conf_section = "segment"

    method: str = "vips"
    page_timeout_s: float = 60.0
    guard: str = "process"
    min_partitions: int = 0
    stylesheets: bool = True

    def __post_init__(self) -> None:
        _check_page_job(self.page_timeout_s, self.guard, self.min_partitions)


@dataclass(frozen=True, slots=True)
class ExportSettings(Settings):
    conf_name = "jobs"
    conf_section = "export"

    shards: int = 4
    include_title: bool = True

    def __post_init__(self) -> None:
        check_positive(shards=self.shards)


@dataclass(frozen=True, slots=True)
class StreamSettings(Settings):
    conf_name = "jobs"
    conf_section = "stream"

    max_files_per_trigger: int = 8
    trigger_seconds: float = 10.0
    partitions: int = 0

    def __post_init__(self) -> None:
        check_positive(max_files_per_trigger=self.max_files_per_trigger, trigger_seconds=self.trigger_seconds)
        check_at_least(0, partitions=self.partitions)


@dataclass(frozen=True, slots=True)
class FilterSettings(QualityRules):
    """The rules and thresholds of models/quality (defaults from conf/jobs.toml [filter]) and the job's knobs."""

    conf_name = "jobs"
    conf_section = "filter"

    min_partitions: int = 0

    def __post_init__(self) -> None:
        QualityRules.__post_init__(self)     # explicit: zero-argument super() breaks in slotted dataclasses
        check_at_least(0, min_partitions=self.min_partitions)

    def rules_only(self) -> QualityRules:
        """The rule settings alone (what the UDF needs), as the models' own settings class."""
        return QualityRules(**{name: getattr(self, name) for name in QualityRules.__dataclass_fields__})


DEDUP_KEEP_RULES = ("longest", "first_id")


@dataclass(frozen=True, slots=True)
class DedupSettings(Settings):
    conf_name = "jobs"
    conf_section = "dedup"

    shingle_size: int = 5
    num_perm: int = 128
    bands: int = 25
    rows: int = 5
    threshold: float = 0.8
    seed: int = 1
    lowercase: bool = True
    strip_punctuation: bool = True
    mask_digits: bool = True
    keep: str = "longest"
    max_bucket_size: int = 200
    max_rounds: int = 40
    min_partitions: int = 0

    def __post_init__(self) -> None:
        check_positive(shingle_size=self.shingle_size, num_perm=self.num_perm, bands=self.bands, rows=self.rows,
                       max_bucket_size=self.max_bucket_size, max_rounds=self.max_rounds)
        if self.bands * self.rows > self.num_perm:
            raise ValueError(f"bands * rows must be <= num_perm, got {self.bands} * {self.rows} > {self.num_perm}")
        if not 0 < self.threshold <= 1:
            raise ValueError(f"threshold must be in (0, 1], got {self.threshold}")
        if self.keep not in DEDUP_KEEP_RULES:
            raise ValueError(f"keep must be one of {', '.join(DEDUP_KEEP_RULES)}, got {self.keep!r}")
        check_at_least(0, min_partitions=self.min_partitions)


JOB_SETTINGS: dict[str, type[Settings]] = {"ingest": IngestSettings, "clean": CleanSettings, "export": ExportSettings,
                                          "stream": StreamSettings, "segment": SegmentSettings,
                                          "filter": FilterSettings, "dedup": DedupSettings}
