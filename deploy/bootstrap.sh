#!/usr/bin/env bash
# Installs the companion into ./.venv from this repository's own files.
#   bash deploy/bootstrap.sh         the program (simulated hardware works out of the box)
#   bash deploy/bootstrap.sh --dev   plus the test tools and Debian's headless Chromium
#   bash deploy/bootstrap.sh --pi    plus the Raspberry Pi camera and GPIO packages
# (To run the table as a service on a Raspberry Pi: sudo bash deploy/install.sh)
# PYTHON= picks the interpreter (default python3), VENV= the venv's folder (default .venv), e.g.
#   PYTHON=python3.13 VENV=.venv313 bash deploy/bootstrap.sh --dev   (as .ci/run does for Python 3.13)
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
VENV=${VENV:-.venv}
extra=""
case "${1:-}" in
  --dev) extra="[dev]" ;;
  --pi) extra="[pi]" ;;
  "") ;;
  *) echo "usage: bash deploy/bootstrap.sh [--dev|--pi]" >&2; exit 2 ;;
esac
venv_args=""
if [ "$extra" = "[pi]" ]; then
  # The Pi camera's Python bindings (libcamera) come only from Raspberry Pi OS's packages, so the
  # venv must see the system's site-packages, and picamera2 is best taken from apt as well.
  venv_args="--system-site-packages"
  if command -v apt-get >/dev/null 2>&1; then
    SUDO=""; [ "$(id -u)" = "0" ] || SUDO="sudo"
    echo "Installing Raspberry Pi OS's camera packages (python3-picamera2, python3-libcamera)..."
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-picamera2 python3-libcamera libcap-dev >/dev/null \
      || echo "Note: could not install python3-picamera2 with apt; the Pi camera needs it (sudo apt install python3-picamera2)" >&2
  fi
  if [ -f "$VENV/pyvenv.cfg" ] && ! grep -q "include-system-site-packages = true" "$VENV/pyvenv.cfg"; then
    echo "Re-creating $VENV so it can see the system's camera packages..."
    rm -rf "$VENV"
  fi
fi
if [ -x "$VENV/bin/python" ] && ! "$VENV/bin/python" -m pip --version >/dev/null 2>&1; then
  echo "Re-creating $VENV: it has no pip (an earlier install was interrupted?)..."
  rm -rf "$VENV"
fi
if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv $venv_args "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --upgrade pip
"$VENV/bin/python" -m pip install --quiet -e ".$extra"
# The players' languages: compile the gettext catalogs (companion_app/translations/*/LC_MESSAGES/{messages,rules}.po)
"$VENV/bin/python" -m companion_app.i18n compile >/dev/null
if [ "$extra" = "[dev]" ]; then
  # Debian's headless Chromium for the browser tests, shellcheck for deploy/install.sh's test,
  # espeak-ng for the Pi speaker's test against the real program (tests/test_speaker.py)
  dev_packages=""
  command -v chromium >/dev/null 2>&1 || dev_packages="chromium chromium-driver"
  command -v shellcheck >/dev/null 2>&1 || dev_packages="$dev_packages shellcheck"
  command -v espeak-ng >/dev/null 2>&1 || dev_packages="$dev_packages espeak-ng"
  if [ -n "$dev_packages" ]; then
    if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
      echo "Installing Debian's $dev_packages for the tests..."
      apt-get update -qq
      # shellcheck disable=SC2086  # a list of package names
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $dev_packages >/dev/null
    else
      echo "Note: the tests need: sudo apt-get install $dev_packages" >&2
    fi
  fi
  # axe-core (npm) for the accessibility test, tests/test_web_a11y.py: the version pinned in tests/a11y/package-lock.json
  if command -v npm >/dev/null 2>&1; then
    npm ci --prefix tests/a11y --no-audit --no-fund --silent
  else
    echo "Note: the accessibility test needs npm (sudo apt-get install npm) for axe-core" >&2
  fi
fi
echo "Installed ($("$VENV/bin/python" --version)). The command is $VENV/bin/flure"
