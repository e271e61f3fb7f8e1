"""Method names -> classes, with each method's kind, imported lazily so a worker loads only what it runs.

A job asks for a method of its kind (`clean` a cleaner, `extract` an extractor, `segment` a segmenter)
and gets a one-line error for a method of another kind. A user's own method needs no edit here: pass its
dotted path, as Scrapy does for components (`--method mypackage.cleaners:MyCleaner` or
`mypackage.cleaners.MyCleaner`); it must derive from one of the kinds in `models.page`.

Each entry names its settings class apart from its class, so that checking a method's settings on the
driver (which must fail within two seconds, before Spark starts) imports no torch and builds no model.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from pagesieve.settings import ConfigError, Settings

from .page import Method

__all__ = ["MethodEntry", "METHODS", "KIND_NOUNS", "resolve", "method_class", "method_traits", "load_settings",
           "build_method", "names_of_kind", "BY_KIND"]

KIND_NOUNS = {"cleaner": "a cleaner", "extractor": "an extractor", "segmenter": "a segmenter"}


@dataclass(frozen=True, slots=True)
class MethodEntry:
    """Where a method lives: its kind, its class and its settings class, as `module:attribute` paths."""

    name: str
    kind: str
    path: str
    settings_path: str | None = None     # None: the class's `settings_class` (import the class to learn it)
    # (needs, group_by) of the class, for a method whose module imports torch: the driver reads them here and
    # never imports the class (torch alone added ~140 MB to the driver of `pagesieve run`); None: import it
    traits: tuple[str, str | None] | None = None


_PEERS = "pagesieve.models.peers"
METHODS: dict[str, MethodEntry] = {e.name: e for e in (
    MethodEntry("cnr", "cleaner", "pagesieve.models.cnr.method:CNR", "pagesieve.models.cnr.settings:CNRSettings"),
    MethodEntry("web2text", "cleaner", "pagesieve.models.web2text.method:Web2Text",
                "pagesieve.models.web2text.settings:Web2TextSettings", ("tree", None)),
    MethodEntry("blocknet", "cleaner", "pagesieve.models.blocknet.method:BlockNet",
                "pagesieve.models.blocknet.settings:BlockNetSettings", ("tree", None)),
    MethodEntry("blend", "cleaner", "pagesieve.models.blocknet.method:Blend",
                "pagesieve.models.blocknet.settings:BlendSettings", ("tree", None)),
    MethodEntry("cascade", "cleaner", "pagesieve.models.blocknet.method:Cascade",
                "pagesieve.models.blocknet.settings:CascadeSettings", ("tree", None)),
    MethodEntry("consensus", "cleaner", "pagesieve.models.blocknet.consensus:Consensus",
                "pagesieve.models.blocknet.settings:ConsensusSettings", ("tree", None)),
    MethodEntry("amber", "extractor", "pagesieve.models.amber.method:Amber",
                "pagesieve.models.amber.method:AmberSettings"),
    MethodEntry("freedom", "extractor", "pagesieve.models.freedom.method:FreeDOM",
                "pagesieve.models.freedom.settings:FreeDOMSettings"),
    MethodEntry("vips", "cleaner", "pagesieve.models.vips.method:VIPSCleaner",
                "pagesieve.models.vips.settings:VIPSSettings"),
    MethodEntry("trafilatura", "cleaner", f"{_PEERS}.trafilatura:Trafilatura"),
    MethodEntry("trafilatura_precision", "cleaner", f"{_PEERS}.trafilatura:TrafilaturaPrecision"),
    MethodEntry("resiliparse", "cleaner", f"{_PEERS}.resiliparse:Resiliparse"),
    MethodEntry("readability", "cleaner", f"{_PEERS}.readability:Readability"),
    MethodEntry("justext", "cleaner", f"{_PEERS}.justext:JusText"),
    MethodEntry("boilerpy3", "cleaner", f"{_PEERS}.boilerpy3:BoilerPy3"),
    MethodEntry("all_text", "cleaner", f"{_PEERS}.all_text:AllVisibleText"),
)}

# A name that is a method of more than one kind: the job's kind picks the entry (`segment` runs the VIPS
# segmenter, `clean --method vips` its cleaner); both read the same `[vips]` settings.
BY_KIND: dict[tuple[str, str], MethodEntry] = {
    ("vips", "segmenter"): MethodEntry("vips", "segmenter", "pagesieve.models.vips.method:VIPS",
                                       "pagesieve.models.vips.settings:VIPSSettings"),
}


def _import(path: str) -> Any:
    module, sep, attr = path.partition(":")
    if not sep:                                   # Scrapy style: package.module.Class
        module, _, attr = path.rpartition(".")
    if not module or not attr:
        raise ConfigError(f"method {path!r}: expected a registered name or a dotted path module:Class")
    try:
        return getattr(importlib.import_module(module), attr)
    except ModuleNotFoundError as exc:
        if exc.name and module.startswith(exc.name):
            raise ConfigError(f"method {path!r}: no module {exc.name!r}") from None
        raise
    except AttributeError:
        raise ConfigError(f"method {path!r}: module {module!r} has no {attr!r}") from None


def names_of_kind(kind: str) -> list[str]:
    return sorted({n for n, e in METHODS.items() if e.kind == kind} | {n for n, k in BY_KIND if k == kind})


def resolve(name: str, kind: str | None = None) -> MethodEntry:
    """The entry of a registered name or a dotted path, checked to be of `kind` when given.

    Raises:
        ConfigError: an unknown name, a dotted path that does not import or is not a method, or a
            method of another kind (one line naming the method and what the job needs).
    """
    entry = BY_KIND.get((name, kind)) if kind else None
    entry = entry or METHODS.get(name)
    if entry is None:
        if "." not in name and ":" not in name:
            known = names_of_kind(kind) if kind else sorted(METHODS)
            raise ConfigError(f"unknown method {name!r}; known: {', '.join(known)} (or a dotted path module:Class)")
        cls = _import(name)
        if not (isinstance(cls, type) and issubclass(cls, Method) and getattr(cls, "result_type", None)
                and getattr(cls, "name", None)):
            raise ConfigError(f"method {name!r} is not a method class: derive from Cleaner, Extractor or "
                              "Segmenter and set `name`")
        entry = MethodEntry(cls.name, cls.kind(), f"{cls.__module__}:{cls.__qualname__}")
    if kind is not None and entry.kind != kind:
        raise ConfigError(f"method {name!r} is {KIND_NOUNS[entry.kind]}; this job needs {KIND_NOUNS[kind]}: "
                          f"{', '.join(names_of_kind(kind)) or 'none registered'}")
    return entry


def method_class(name: str, kind: str | None = None) -> type[Method]:
    """The class of a registered name or dotted path (see `resolve`)."""
    entry = resolve(name, kind)
    cls = _import(entry.path)
    if cls.kind() != entry.kind:   # a registry entry that lies about its kind is our bug, not the user's
        raise TypeError(f"registry entry {entry.name} says {entry.kind} but {entry.path} is {cls.kind()}")
    return cls


def method_traits(entry: MethodEntry) -> tuple[str, str | None]:
    """(needs, group_by) of an entry's method: from the entry when it gives them (no import), else its class's."""
    if entry.traits is not None:
        return entry.traits
    cls = _import(entry.path)
    return cls.needs, cls.group_by


def settings_class(name: str, kind: str | None = None) -> type[Settings]:
    entry = resolve(name, kind)
    if entry.settings_path:
        return _import(entry.settings_path)
    return method_class(name, kind).settings_class


def load_settings(name: str, overrides: dict[str, Any] | None = None, kind: str | None = None) -> Settings:
    """The method's packaged defaults plus `overrides`, checked (an unknown key or a bad value raises
    ConfigError naming `<method>.<key>`). Imports the settings class only, never a model."""
    entry = resolve(name, kind)
    return settings_class(name, kind).load(overrides or {}, section=entry.name)


def build_method(name: str, overrides: dict[str, Any] | None = None, kind: str | None = None) -> Method:
    """Build a method with its packaged defaults plus `overrides` (checked: unknown keys fail)."""
    return method_class(name, kind)(load_settings(name, overrides, kind))

