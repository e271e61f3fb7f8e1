"""The optional C extensions (setup.py builds them where gcc is found): each has a Python fallback that gives the
same values, so a missing or unloadable one costs speed only."""

from __future__ import annotations

import importlib
import os
from types import ModuleType

__all__ = ["NATIVE_MODULES", "load_native", "native_status"]

# every optional extension setup.py builds (pagesieve.models.<name>); without each, the same values come slower from
# Python (the Collapsed DOM walk and XPaths; py3langid's byte walk; the class and id words) or LightGBM (the trees)
NATIVE_MODULES = ("web2text._cwalk", "page._clangid", "page._cwords", "blocknet._ctrees")


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


def native_status() -> dict[str, bool]:
    """Which of NATIVE_MODULES this Python loads (False: the Python fallback runs, slower, the same output)."""
    return {name: load_native(name) is not None for name in NATIVE_MODULES}
