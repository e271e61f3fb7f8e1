"""One configuration path: packaged `conf/<name>.toml`, then a user file, then key=value overrides.

The result is a frozen dataclass. It is hashable all the way down (lists become tuples, tables become
`FrozenMap`s, nested tables typed as settings classes become those classes), so a UDF can key its
per-worker method cache on the settings object itself. An unknown key, a value of the wrong type or
out of range fails here with one line naming `section.key`, before Spark starts or any data is read.

General rules, so that a value every page would fail on is refused here instead: every float setting is finite
(a class lists the exceptions in `nonfinite`), and a class names in `field_checks` the fields that are a device
(`check_device`), a thread count (`check_threads`) or a file that must exist (`check_file`, `check_executable`).
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
import tomllib
import types
import typing
from collections.abc import Callable, Iterator, Mapping
from importlib import resources
from pathlib import Path
from typing import Any, ClassVar, TypeVar

__all__ = ["Settings", "NoSettings", "FrozenMap", "ConfigError", "load_defaults", "load_file", "build_settings",
           "parse_override", "settings_dict", "check_at_least", "check_positive", "check_device", "check_threads",
           "check_file", "check_executable"]

T = TypeVar("T")


class ConfigError(ValueError):
    """A configuration key or value that the settings class does not accept (one line, names the key)."""


class FrozenMap(Mapping[str, Any]):
    """An immutable, hashable mapping: the value of a settings field typed `dict[str, X]`."""

    __slots__ = ("_items", "_hash")

    def __init__(self, items: Mapping[str, Any] | None = None) -> None:
        self._items = dict(items or {})
        self._hash: int | None = None

    def __getitem__(self, key: str) -> Any:
        return self._items[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(tuple(sorted(self._items.items())))
        return self._hash

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mapping) and self._items == dict(other)

    def __repr__(self) -> str:
        return f"FrozenMap({self._items!r})"

    def __reduce__(self) -> tuple:
        return FrozenMap, (self._items,)


def load_defaults(name: str) -> dict[str, Any]:
    """The packaged defaults `conf/<name>.toml` as a dict."""
    text = resources.files("pagesieve.conf").joinpath(f"{name}.toml").read_text("utf-8")
    return tomllib.loads(text)


def load_file(path: str | Path) -> dict[str, Any]:
    """A user's TOML file as a dict; ConfigError (one line) when it is missing or not TOML."""
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except OSError as exc:
        raise ConfigError(f"--config {path}: {exc.strerror}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"--config {path}: not TOML: {exc}") from exc


def parse_override(item: str) -> tuple[str, Any]:
    """`key=value` -> (key, value), the value read as TOML when it parses (numbers, bools, lists)."""
    key, sep, raw = item.partition("=")
    if not sep or not key.strip():
        raise ConfigError(f"expected key=value, got {item!r}")
    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw
    return key.strip(), value


def _is_settings_class(hint: Any) -> bool:
    return isinstance(hint, type) and dataclasses.is_dataclass(hint) and issubclass(hint, Settings)


def _coerce(name: str, hint: Any, value: Any, finite: bool = True) -> Any:
    origin = typing.get_origin(hint)
    if hint is Any:
        return _freeze(value)
    if origin in (types.UnionType, typing.Union):
        if value is None:
            return None
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        return _coerce(name, args[0], value, finite)
    if _is_settings_class(hint):
        if not isinstance(value, Mapping):
            raise ConfigError(f"{name}: expected a table, got {value!r}")
        return build_settings(hint, dict(value), section=name)
    if origin in (dict, Mapping) or hint in (dict, Mapping):
        if not isinstance(value, Mapping):
            raise ConfigError(f"{name}: expected a table, got {value!r}")
        value_hint = (typing.get_args(hint) or (str, Any))[1]
        return FrozenMap({str(k): _coerce(f"{name}.{k}", value_hint, v, finite) for k, v in value.items()})
    if origin in (tuple, frozenset, list):
        if not isinstance(value, (list, tuple, set, frozenset)):
            raise ConfigError(f"{name}: expected a list, got {value!r}")
        item_hint = (typing.get_args(hint) or (Any,))[0]
        items = [_coerce(f"{name}[{i}]", item_hint, v, finite) for i, v in enumerate(value)]
        return frozenset(items) if origin is frozenset else tuple(items)
    if hint is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if hint is float and isinstance(value, float) and finite and not math.isfinite(value):
        # nan passes every `<` range check, and inf made a deadline that never ends: every page then failed
        raise ConfigError(f"{name}: must be a finite number, got {value}")
    if hint in (int, float, str, bool) and (not isinstance(value, hint) or (hint is int and isinstance(value, bool))):
        raise ConfigError(f"{name}: expected {hint.__name__}, got {value!r}")
    return value


def _freeze(value: Any) -> Any:
    """An untyped value made hashable: lists -> tuples, tables -> FrozenMap, recursively."""
    if isinstance(value, Mapping):
        return FrozenMap({str(k): _freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    return value


def build_settings(cls: type[T], *layers: dict[str, Any], section: str | None = None) -> T:
    """Merge layers (later wins) into the frozen dataclass `cls`, checking keys, types and ranges.

    Args:
        cls: a frozen dataclass deriving from `Settings`.
        layers: dicts of field values, applied in order.
        section: the name errors are prefixed with (`clean` -> "clean.page_timeout_s: ...").

    Raises:
        ConfigError: an unknown key, a wrong type, or a value the class's `__post_init__` rejects.
    """
    prefix = f"{section}." if section else ""
    hints = typing.get_type_hints(cls)
    nonfinite = getattr(cls, "nonfinite", frozenset())
    fields = {f.name for f in dataclasses.fields(cls)}
    merged: dict[str, Any] = {}
    for layer in layers:
        for key, value in layer.items():
            if key not in fields:
                raise ConfigError(f"unknown setting {prefix}{key}; known: {', '.join(sorted(fields)) or 'none'}")
            merged[key] = _coerce(f"{prefix}{key}", hints[key], value, finite=key not in nonfinite)
    try:
        settings = cls(**merged)
    except ConfigError:
        raise
    except (ValueError, TypeError) as exc:     # __post_init__ range checks name their field first
        raise ConfigError(f"{prefix}{exc}") from exc
    checks = getattr(cls, "field_checks", {})
    for key in [k for k in merged if k in checks and merged[k] is not None]:
        try:
            checks[key](merged[key])
        except ValueError as exc:
            raise ConfigError(f"{prefix}{key}: {exc}") from None
    return settings


def settings_dict(settings: Any) -> dict[str, Any]:
    """A settings object as plain JSON-able values (for the run report)."""
    def plain(value: Any) -> Any:
        if dataclasses.is_dataclass(value):
            return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
        if isinstance(value, Mapping):
            return {k: plain(v) for k, v in value.items()}
        if isinstance(value, (tuple, list, frozenset, set)):
            return [plain(v) for v in (sorted(value) if isinstance(value, (set, frozenset)) else value)]
        return value

    return plain(settings)


def check_at_least(least: float, **values: float) -> None:
    """For a settings class's `__post_init__`: ValueError naming the first of `values` under `least` (the loader
    turns it into a ConfigError naming `section.key`)."""
    for name, value in values.items():
        if value < least:
            raise ValueError(f"{name} must be >= {least}, got {value}")


def check_positive(**values: float) -> None:
    """As `check_at_least`, for values that must be > 0."""
    for name, value in values.items():
        if value <= 0:
            raise ValueError(f"{name} must be > 0, got {value}")


def check_device(value: str) -> None:
    """For `field_checks`: a torch device this machine has: auto, cpu, cuda or cuda:N below its CUDA device count.

    Counted on the driver (`torch.cuda.device_count()`, no model loaded): executors are taken to have the
    driver's GPUs. Imports torch only for a cuda device.
    """
    if value in ("auto", "cpu"):
        return
    match = re.fullmatch(r"cuda(?::(\d+))?", value)
    if match is None:
        raise ValueError(f"must be auto, cpu, cuda or cuda:N, got {value!r}")
    try:
        import torch
    except ImportError:
        raise ValueError(f"{value!r} needs torch, which is not installed") from None
    count = torch.cuda.device_count()
    if int(match.group(1) or 0) >= count:
        have = f"cuda:0..cuda:{count - 1}" if count else "none"
        raise ValueError(f"{value!r}: this machine has {count} CUDA device(s) ({have})")


def check_threads(value: int) -> None:
    """For `field_checks`: a thread count of at most this machine's cores (more made torch's thread pool fail
    in every worker)."""
    cores = os.cpu_count() or 1
    if value > cores:
        raise ValueError(f"must be at most the {cores} cores of this machine, got {value}")


def check_file(value: str) -> None:
    """For `field_checks`: a local file that exists ("" = none given)."""
    if value and not os.path.isfile(value):
        raise ValueError(f"{value}: {'is a folder, expected a file' if os.path.isdir(value) else 'no such file'}")


def check_executable(value: str) -> None:
    """For `field_checks`: a program that exists and may be run."""
    check_file(value)
    if not os.access(value, os.X_OK):
        raise ValueError(f"{value}: not executable")


class Settings:
    """Base of every frozen settings dataclass, for methods and jobs alike.

    `conf_name` names the packaged defaults file (`conf/<conf_name>.toml`), or None when the
    dataclass defaults are the defaults (the peers); `conf_section` picks one `[section]` of that
    file (the job settings share `conf/jobs.toml`).

    `field_checks` maps a field to a check of its value (ValueError), run when the settings are loaded (packaged
    defaults, a user file, --conf pairs), not when a class is built directly: a script may name a file it is
    about to write, and a device check imports torch. `nonfinite` names the float fields that may be inf or nan.
    """

    conf_name: ClassVar[str | None] = None
    conf_section: ClassVar[str | None] = None
    field_checks: ClassVar[Mapping[str, Callable[[Any], None]]] = {}
    nonfinite: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def load(cls: type[T], *overrides: dict[str, Any], section: str | None = None) -> T:
        """Packaged defaults, then each override layer (a user file, then --conf pairs), checked."""
        defaults = load_defaults(cls.conf_name) if cls.conf_name else {}
        if cls.conf_section:
            defaults = defaults.get(cls.conf_section, {})
        return build_settings(cls, defaults, *overrides, section=section or cls.conf_section or cls.conf_name)


@dataclasses.dataclass(frozen=True, slots=True)
class NoSettings(Settings):
    """For a method without knobs."""
