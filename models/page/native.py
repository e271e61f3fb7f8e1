"""The optional C extensions (setup.py builds them where gcc is found): each has a Python fallback that gives the
same values, so a missing or unloadable one costs speed only."""

from __future__ import annotations

import importlib
import os
from types import ModuleType

__all__ = ["load_native"]


def load_native(module: str) -> ModuleType | None:
    """The extension `pagesieve.models.<module>` (e.g. `web2text._cwalk`), or None: not built (no gcc), not loadable
    (the cluster's zip of .py files), or PAGESIEVE_PURE_PYTHON set to anything but 0 (to run and test the Python
    fallbacks)."""
    if os.environ.get("PAGESIEVE_PURE_PYTHON", "0") not in ("", "0"):
        return None
    try:
        return importlib.import_module(f"{__package__.rpartition('.')[0]}.{module}")
    except ImportError:
        return None
