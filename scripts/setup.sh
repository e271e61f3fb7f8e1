#!/usr/bin/env bash
# Create (or reuse) .venv/ and install pagesieve with its pinned stack. Safe to re-run.
#   bash scripts/setup.sh
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
if ! command -v java >/dev/null 2>&1; then
  echo "setup: Java 17 is required by Spark (Debian: apt-get install -y openjdk-17-jre-headless)" >&2
  exit 1
fi
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv with $($PYTHON --version)"
  "$PYTHON" -m venv .venv
fi
PIP=(.venv/bin/python -m pip --disable-pip-version-check -q)
# pip 23.2 crashes resolving lxml[html-clean] twice (trafilatura + readability): upgrade first.
"${PIP[@]}" install -U pip
# torch before the rest, pinned: a bare or open torch requirement pulls GBs of CUDA packages.
"${PIP[@]}" install -c constraints.txt torch==2.13.0
"${PIP[@]}" install -c constraints.txt -r requirements.txt
"${PIP[@]}" install -c constraints.txt --no-deps -e .
echo "setup: ok ($(.venv/bin/pagesieve --version), $(.venv/bin/python -c 'import pyspark; print("pyspark", pyspark.__version__)'))"
