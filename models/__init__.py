"""The methods: pure Python (+ torch for the neural ones). Nothing here imports Spark."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(package: str, names: Mapping[str, tuple[str, ...]]) -> tuple[Callable[[str], Any], list[str]]:
    """A package's module `__getattr__` (PEP 562) and `__all__` for `names` (submodule -> the names it exports),
    each submodule imported on first use: the neural methods' packages stay importable without torch, so their
    settings are checked on the Spark driver before any model loads.

        __getattr__, __all__ = lazy_exports(__name__, {"settings": ("BlockNetSettings",), ...})
    """
    module_of = {name: module for module, exported in names.items() for name in exported}

    def __getattr__(name: str) -> Any:
        module = module_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(f"{package}.{module}"), name)

    return __getattr__, list(module_of)
