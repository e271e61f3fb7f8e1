"""The local site on 127.0.0.1: a subprocess serving tests/spiders/local_site.py and logging every request path."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from crawl_cli import LocalSite

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Iterator[LocalSite]:
    log = tmp_path_factory.mktemp("site") / "requests.log"
    log.touch()
    proc = subprocess.Popen([sys.executable, str(HERE / "local_site.py"), str(log)], stdout=subprocess.PIPE,
                            text=True)
    try:
        port = int(proc.stdout.readline())
        yield LocalSite(f"http://127.0.0.1:{port}", log)
    finally:
        proc.kill()
        proc.wait()
