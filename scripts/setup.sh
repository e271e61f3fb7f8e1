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
# VIPS renders pages in Debian's Chromium (docs/stack.md#chromium-and-playwright); never `playwright install`, which downloads one.
if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
  if [ "$(id -u)" = 0 ]; then SUDO=(); elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO=(sudo -n);
  else
    echo "setup: /usr/bin/chromium is missing and this user cannot install it (not root, no sudo)." >&2
    echo "setup: as root run: apt-get update && apt-get install -y chromium chromium-driver" >&2
    exit 1
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "setup: /usr/bin/chromium is missing and there is no apt-get (not Debian): install Chromium at /usr/bin/chromium" >&2
    exit 1
  fi
  echo "setup: installing chromium with apt-get (VIPS renders pages in it)"
  if ! { "${SUDO[@]}" apt-get update -q && DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -q chromium chromium-driver; }; then
    echo "setup: apt-get could not install chromium chromium-driver (no network or no package source?); VIPS and its tests need it" >&2
    exit 1
  fi
fi
# the wrapper script can exist while the browser behind it cannot start (a missing library)
if ! chromium_version=$(/usr/bin/chromium --headless --no-sandbox --version 2>/dev/null); then
  echo "setup: /usr/bin/chromium is installed but does not run; reinstall it: apt-get install --reinstall -y chromium" >&2
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
echo "setup: ok ($(.venv/bin/pagesieve --version), $(.venv/bin/python -c 'import pyspark; print("pyspark", pyspark.__version__)'), $chromium_version)"
