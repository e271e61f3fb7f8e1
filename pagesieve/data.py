"""Where the benchmark data lives: one setting, the environment variable `PAGESIEVE_DATA`.

Tests, benchmarks, training and `pagesieve evaluate --listings` read real pages from it: one folder per
data set (`cleaneval/`, `wcxb/`, `warc/`, ...; docs/data.md says where to get each). Unset, it is the
folder `shared/data` beside the checkout (`<repo>/../shared/data`), where our machines and CI keep it.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["DATA_ENV", "data_root"]

DATA_ENV = "PAGESIEVE_DATA"
_BESIDE_CHECKOUT = Path(__file__).resolve().parents[2] / "shared" / "data"


def data_root() -> Path:
    """The data folder: `$PAGESIEVE_DATA` when set (a `~` is expanded), else `<repo>/../shared/data`.

    The folder is not checked here; a caller that needs it says which data set is missing and this variable.
    """
    configured = os.environ.get(DATA_ENV)
    return Path(configured).expanduser() if configured else _BESIDE_CHECKOUT
