"""One configuration path: packaged `conf/<name>.toml`, then a user file, then key=value overrides.

The result is a frozen dataclass (hashable, so a UDF can cache a method per settings). An
unknown key or a value of the wrong type fails here, before any data is read.
"""

from __future__ import annotations

import dataclasses
import tomllib
import types
import typing
from importlib import resources
from pathlib import Path
from typing import Any, ClassVar, TypeVar

__all__ = ["Settings", "load_defaults", "build_settings", "parse_override", "ConfigError"]

T = TypeVar("T")


class ConfigError(ValueError):
    """A configuration key or value that the settings class does not accept."""


def load_defaults(name: str) -> dict[str, Any]:
    """The packaged defaults `conf/<name>.toml` as a dict."""
    text = resources.files("pagesieve.conf").joinpath(f"{name}.toml").read_text("utf-8")
    return tomllib.loads(text)


def load_file(path: str | Path) -> dict[str, Any]:
    with open(path, "rb") as fh:
        return tomllib.load(fh)


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


def _coerce(name: str, hint: Any, value: Any) -> Any:
    origin = typing.get_origin(hint)
    if origin in (types.UnionType, typing.Union):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        if value is None:
            return None
        return _coerce(name, args[0], value)
    if origin in (tuple, frozenset, list):
        if not isinstance(value, (list, tuple, set, frozenset)):
            raise ConfigError(f"{name}: expected a list, got {value!r}")
        item_hint = (typing.get_args(hint) or (Any,))[0]
        items = [_coerce(name, item_hint, v) for v in value]
        return frozenset(items) if origin is frozenset else tuple(items)
    if hint is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if hint in (int, float, str, bool) and (not isinstance(value, hint) or (hint is int and isinstance(value, bool))):
        raise ConfigError(f"{name}: expected {hint.__name__}, got {value!r}")
    return value


def build_settings(cls: type[T], *layers: dict[str, Any]) -> T:
    """Merge layers (later wins) into the frozen dataclass `cls`, checking keys and types."""
    hints = typing.get_type_hints(cls)
    fields = {f.name for f in dataclasses.fields(cls)}
    merged: dict[str, Any] = {}
    for layer in layers:
        for key, value in layer.items():
            if key not in fields:
                raise ConfigError(f"unknown setting {key!r} for {cls.__name__}; known: {sorted(fields)}")
            merged[key] = _coerce(key, hints[key], value)
    return cls(**merged)


class Settings:
    """Base of every method's frozen settings dataclass.

    `conf_name` names the packaged defaults file (`conf/<conf_name>.toml`), or None when the
    dataclass defaults are the defaults (the peers).
    """

    conf_name: ClassVar[str | None] = None

    @classmethod
    def load(cls, *overrides: dict[str, Any]) -> Any:
        """Packaged defaults, then each override layer (a user file, then --conf pairs), checked."""
        return build_settings(cls, load_defaults(cls.conf_name) if cls.conf_name else {}, *overrides)
