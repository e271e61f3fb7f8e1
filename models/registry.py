"""Method names -> classes, imported lazily so a worker loads only the method it runs."""

from __future__ import annotations

import importlib
from typing import Any

from .page import Method

__all__ = ["CleanMethod", "METHODS", "method_class", "build_method"]


# Every method derives from models.page.Method, which holds the interface and its defaults.
CleanMethod = Method


METHODS: dict[str, str] = {
    "cnr": "pagesieve.models.cnr:CNR",
    "web2text": "pagesieve.models.web2text:Web2Text",
    "trafilatura": "pagesieve.models.peers.trafilatura:Trafilatura",
    "resiliparse": "pagesieve.models.peers.resiliparse:Resiliparse",
    "trafilatura_precision": "pagesieve.models.peers.trafilatura:TrafilaturaPrecision",
    "readability": "pagesieve.models.peers.readability:Readability",
    "justext": "pagesieve.models.peers.justext:JusText",
    "boilerpy3": "pagesieve.models.peers.boilerpy3:BoilerPy3",
    "all_text": "pagesieve.models.peers.all_text:AllVisibleText",
}


def method_class(name: str) -> type:
    """The class registered under `name`; ValueError listing the known names otherwise."""
    if name not in METHODS:
        raise ValueError(f"unknown method {name!r}; known: {', '.join(sorted(METHODS))}")
    module, _, attr = METHODS[name].partition(":")
    return getattr(importlib.import_module(module), attr)


def build_method(name: str, overrides: dict[str, Any] | None = None) -> CleanMethod:
    """Build a method with its packaged defaults plus `overrides` (checked: unknown keys fail)."""
    cls = method_class(name)
    return cls(cls.settings_class.load(overrides or {}))
