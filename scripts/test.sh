#!/usr/bin/env bash
# README command 2 (and what CI runs): set up .venv, lint, run the whole test suite.
#   bash scripts/test.sh [pytest args]
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || exit 1
.venv/bin/ruff check . || exit 1
.venv/bin/python -m pytest "$@"
rc=$?
if [ "$rc" -eq 5 ]; then
  echo "test: pytest collected no tests: that is a failure" >&2
  exit 1
fi
exit "$rc"
