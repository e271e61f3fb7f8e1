"""Every script under scripts/ (and the test drivers in tests/support/) still works from the folder it lives in.

Fast: each Python file compiles, each shell script parses (`bash -n`), and every path a file derives from its own
location at module level (`ROOT = Path(__file__).resolve().parents[2]`, what is built from ROOT, a folder put on
`sys.path`, a shell script's `cd "$(dirname "$0")/../.."`) exists, so a script moved one folder up or down fails
here rather than at its first real run. Slow: each runnable script answers `--help` in its own process (its
imports, sibling imports through `sys.path` and its argument parser)."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYTHON_FILES = sorted((ROOT / "scripts").rglob("*.py")) + sorted((ROOT / "tests" / "support").glob("*.py"))
SHELL_FILES = sorted((ROOT / "scripts").rglob("*.sh"))
RUNNABLE = [p for p in sorted((ROOT / "scripts").rglob("*.py")) if 'if __name__ == "__main__":' in p.read_text("utf-8")]


def rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def _mentions(node: ast.AST, names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node))


def own_paths(path: Path) -> dict[str, Path]:
    """{what: path} for each module-level value derived from `__file__`, evaluated as the module would.

    An assignment counts when its value mentions `__file__` or a name bound by an earlier such assignment; a
    `sys.path.insert(i, value)` statement counts the same way. Only these are evaluated, with `Path`, `os` and
    `str` at hand (what the scripts use to build them)."""
    tree = ast.parse(path.read_text("utf-8"), filename=str(path))
    namespace: dict[str, object] = {"__file__": str(path), "Path": Path, "os": os, "str": str}
    derived = {"__file__"}
    found: dict[str, Path] = {}

    def value_of(expr: ast.expr) -> object:
        return eval(compile(ast.Expression(expr), str(path), "eval"), namespace)  # noqa: S307 (the repo's own code)

    for node in tree.body:
        if isinstance(node, ast.Assign) and _mentions(node.value, derived):
            value = value_of(node.value)
            for target in node.targets:
                if isinstance(target, ast.Name):
                    namespace[target.id] = value
                    derived.add(target.id)
                    if isinstance(value, Path):
                        found[target.id] = value
        elif (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
              and ast.unparse(node.value.func) == "sys.path.insert" and _mentions(node.value, derived)):
            found[f"sys.path entry, line {node.lineno}"] = Path(str(value_of(node.value.args[1])))
    return found


@pytest.mark.parametrize("path", PYTHON_FILES, ids=rel)
def test_python_file_compiles_and_the_paths_it_derives_from_its_location_exist(path, shared_data):
    compile(path.read_text("utf-8"), str(path), "exec")
    paths = own_paths(path)
    missing = {name: str(p) for name, p in paths.items() if not p.exists()}
    assert missing == {}
    # a root one level off still exists (scripts/, tests/): the names say which folder is meant
    wrong_root = {name: str(p) for name, p in paths.items() if name in ("ROOT", "REPO") and p != ROOT}
    assert wrong_root == {}


@pytest.mark.parametrize("path", SHELL_FILES, ids=rel)
def test_shell_script_parses_and_changes_to_the_repository_root(path):
    proc = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    for up in re.findall(r'cd "\$\(dirname "\$0"\)/([./]*)"', path.read_text("utf-8")):
        assert (path.parent / up).resolve() == ROOT, f"cd $(dirname $0)/{up} from {rel(path.parent)}"


def test_the_scripts_are_found():
    # an empty glob (a moved folder) would otherwise pass every check above
    assert len(RUNNABLE) > 30 and len(SHELL_FILES) >= 4 and (ROOT / "scripts" / "README.md").is_file()


def test_every_script_is_listed_in_the_scripts_readme():
    listed = (ROOT / "scripts" / "README.md").read_text("utf-8")
    unlisted = [rel(p) for p in (ROOT / "scripts").rglob("*") if p.suffix in (".py", ".sh")
                and f"`{p.relative_to(ROOT / 'scripts')}`" not in listed]
    assert unlisted == []


@pytest.mark.slow  # one Python start per script, with its imports (torch, pyspark): ~1-3 s each
@pytest.mark.parametrize("path", RUNNABLE, ids=rel)
def test_script_answers_help(path):
    proc = subprocess.run([sys.executable, str(path), "--help"], capture_output=True, text=True, timeout=120,
                          cwd=ROOT)
    assert proc.returncode == 0 and "usage:" in proc.stdout, proc.stderr[-2000:]
