"""The layout's arrows run one way: jobs -> udfs / eval / archives -> models -> the foundation (pagesieve/).

One file stands apart: `pagesieve/__init__.py` is the library's front door (`pagesieve.extract`), which
reaches down to `pagesieve.models.library` lazily; the rest of the foundation imports nothing above it.

Read from the source (every import statement, also those inside functions), so a new upward import
fails here before it makes a cycle."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ["jobs", "spiders", "udfs", "eval", "archives", "models", "foundation"]
# what each folder may import from pagesieve (besides itself)
ALLOWED = {
    "jobs": {"udfs", "eval", "archives", "models", "foundation", "spiders"},
    "spiders": {"archives", "models", "foundation"},
    "udfs": {"models", "foundation"},
    "eval": {"models", "foundation"},
    "archives": {"models", "foundation"},
    "models": {"foundation"},
    "foundation": set(),
}
FRONT_DOOR = ROOT / "pagesieve" / "__init__.py"
FOLDER = {"jobs": "jobs", "spiders": "spiders", "udfs": "udfs", "eval": "eval", "archives": "archives",
          "models": "models", "foundation": "pagesieve"}


def imported_layers(path: Path) -> set[tuple[str, int]]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        for name in names:
            parts = name.split(".")
            if parts[0] == "pyspark":
                found.add(("pyspark", node.lineno))
            if parts[0] != "pagesieve" or len(parts) == 1:
                continue
            sub = parts[1]
            layer = sub if sub in FOLDER and sub != "foundation" else "foundation"
            found.add((layer, node.lineno))
    return found


@pytest.mark.parametrize("layer", LAYERS)
def test_imports_point_down_only(layer):
    bad = []
    for path in sorted((ROOT / FOLDER[layer]).rglob("*.py")):
        if path == FRONT_DOOR:
            continue
        for imported, line in imported_layers(path):
            if imported == "pyspark":
                # methods must run from a plain Python loop; (schemas.spark_schema imports it lazily, for jobs)
                if layer in ("models", "archives", "eval"):
                    bad.append(f"{path.relative_to(ROOT)}:{line} imports pyspark")
            elif imported != layer and imported not in ALLOWED[layer]:
                bad.append(f"{path.relative_to(ROOT)}:{line} imports pagesieve.{imported}")
    assert bad == []


def test_the_foundation_extends_no_package_path():
    assert "__path__" not in (ROOT / "pagesieve" / "__init__.py").read_text("utf-8")


def test_the_front_door_reaches_only_the_library_module_and_only_lazily():
    tree = ast.parse(FRONT_DOOR.read_text("utf-8"))
    top_level = {n.module for n in tree.body if isinstance(n, ast.ImportFrom)}
    assert not any(m and m.startswith("pagesieve.") for m in top_level)
    assert {layer for layer, _ in imported_layers(FRONT_DOOR)} <= {"models", "foundation"}


def test_importing_the_foundation_loads_no_method_and_no_spark():
    code = ("import sys, pagesieve, pagesieve.settings, pagesieve.schemas; "
            "print(sorted(m for m in sys.modules if m.startswith(('pagesieve.models', 'pyspark', 'torch'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_run_driver_loads_no_datasketch_or_scipy():
    """`pagesieve run` imports the dedup job whether or not it deduplicates; datasketch pulls in scipy, 1.4 s of
    the driver's start-up (2026-11-27), so the dedup model imports it only when a signer is built."""
    code = ("import sys, pagesieve.jobs.run; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'datasketch', 'scipy'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
