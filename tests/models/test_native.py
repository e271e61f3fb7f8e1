"""`native_status`, which the clean, run and stream reports carry: it names every extension setup.py builds, and says
False for each one the Python fallback replaces (here forced with PAGESIEVE_PURE_PYTHON, as the Spark zip does)."""

from __future__ import annotations

import re
from pathlib import Path

from pagesieve.models.page.native import NATIVE_MODULES, native_status

SETUP = Path(__file__).resolve().parents[2] / "setup.py"


def test_every_extension_setup_builds_is_listed():
    source = SETUP.read_text()
    built = set(re.findall(r'"(?:pagesieve\.models\.)?(\w+\._c\w+)"', source))   # the one name and the loop's names
    assert built == set(NATIVE_MODULES)


def test_this_install_loads_every_extension():
    # the suite's install (scripts/test.sh, CI) builds them all: a missing one would hide the C paths' tests
    assert native_status() == dict.fromkeys(NATIVE_MODULES, True)


def test_the_fallback_switch_reads_false_for_each(monkeypatch):
    monkeypatch.setenv("PAGESIEVE_PURE_PYTHON", "1")
    assert native_status() == dict.fromkeys(NATIVE_MODULES, False)
    monkeypatch.setenv("PAGESIEVE_PURE_PYTHON", "0")
    assert native_status() == dict.fromkeys(NATIVE_MODULES, True)
