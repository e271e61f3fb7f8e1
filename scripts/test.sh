#!/usr/bin/env bash
# README command 2 (and what CI runs): set up .venv, lint, run the whole test suite.
#   bash scripts/test.sh [pytest args]
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || exit 1
.venv/bin/ruff check . || exit 1
# One pytest worker per core, at most 4 (each may start its own Spark session: ~1.5 GB); a test file is one unit
# of work (--dist loadfile), so its module fixtures (a Spark job run once, asserted many times) run once.
# Not --dist loadgroup: with pytest 9, xdist 3.8's groups are silently ignored (it renames item._nodeid, which
# pytest 9 no longer reads), every test is scheduled alone and a module's fixtures run on every worker.
# PAGESIEVE_TEST_WORKERS=0 runs everything in one process.
workers=${PAGESIEVE_TEST_WORKERS:-$(n=$(nproc); echo $(( n < 4 ? n : 4 )))}
if [ "$workers" -gt 1 ]; then
  .venv/bin/python -m pytest -n "$workers" --dist loadfile "$@"
else
  .venv/bin/python -m pytest "$@"
fi
rc=$?
if [ "$rc" -eq 5 ]; then
  echo "test: pytest collected no tests: that is a failure" >&2
  exit 1
fi
exit "$rc"
