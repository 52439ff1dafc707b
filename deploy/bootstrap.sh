#!/usr/bin/env bash
# Installs the companion into ./.venv from this repository's own files.
#   bash deploy/bootstrap.sh         the program (simulated hardware works out of the box)
#   bash deploy/bootstrap.sh --dev   plus the test tools and Debian's headless Chromium
#   bash deploy/bootstrap.sh --pi    plus the Raspberry Pi camera and GPIO packages
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
extra=""
case "${1:-}" in
  --dev) extra="[dev]" ;;
  --pi) extra="[pi]" ;;
  "") ;;
  *) echo "usage: bash deploy/bootstrap.sh [--dev|--pi]" >&2; exit 2 ;;
esac
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e ".$extra"
if [ "$extra" = "[dev]" ] && ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing Debian's chromium and chromium-driver for the browser tests..."
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
  else
    echo "Note: the browser tests need Chromium: sudo apt-get install chromium chromium-driver" >&2
  fi
fi
echo "Installed. The command is .venv/bin/flure"
