#!/usr/bin/env bash
# Build dist/pagesieve.zip for `spark-submit --py-files`: the wheel's contents (code + conf/ data), from a
# clean tree. setuptools reuses build/lib, so a deleted module would linger: both folders are removed first.
#   bash scripts/tools/build_zip.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=${PYTHON:-.venv/bin/python}
rm -rf build dist
"$PY" -m pip wheel -q --no-deps --no-build-isolation -w dist . >/dev/null
# A wheel is a zip with pagesieve/ at its root; Python imports from it once it is named .zip
# (passing the .whl itself to --py-files gives ModuleNotFoundError: docs/stack.md#packaging).
cp dist/pagesieve-*.whl dist/pagesieve.zip
rm -rf build
echo "built dist/pagesieve.zip ($(du -h dist/pagesieve.zip | cut -f1), $(unzip -l dist/pagesieve.zip | tail -1 | awk '{print $2}') files)"
