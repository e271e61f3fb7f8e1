"""The optional C extensions (setup.py builds them where gcc is found): each has a Python fallback that gives the
same values, so a missing or unloadable one costs speed only."""

from __future__ import annotations

import importlib
import os
from types import ModuleType

__all__ = ["NATIVE_MODULES", "load_native", "native_status"]

# every optional extension setup.py builds (pagesieve.models.<name>), and what falls back to Python without it
NATIVE_MODULES: dict[str, str] = {
    "web2text._cwalk": "the Collapsed DOM walk and XPaths (web2text, blocknet, blend, cascade)",
    "page._clangid": "py3langid's byte walk (language identification, page-language stop words)",
    "page._cwords": "the context's class and id words (blocknet, blend, cascade)",
    "blocknet._ctrees": "blocknet's trees and their inputs (LightGBM predicts them instead)",
}


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
