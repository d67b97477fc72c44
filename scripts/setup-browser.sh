#!/usr/bin/env bash
# Installs headless Chromium and its WebDriver from Debian's packages, for
# the browser test of `dama serve` (crates/serve/tests/serve/browser.rs).
# Idempotent: does nothing when both binaries are already there.
set -euo pipefail

if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo=(sudo -n)
else
  echo "setup-browser: chromium and chromium-driver are missing and this user can neither" >&2
  echo "  install packages (not root) nor use sudo without a password." >&2
  echo "  Install them by hand: apt-get install -y chromium chromium-driver" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup-browser: no apt-get here; install Chromium and chromedriver by hand" >&2
  echo "  (/usr/bin/chromium and /usr/bin/chromedriver)" >&2
  exit 1
fi

echo "setup-browser: installing chromium and chromium-driver (Debian packages)" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends chromium chromium-driver >/dev/null
if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
  echo "setup-browser: apt-get finished but /usr/bin/chromium or /usr/bin/chromedriver is missing" >&2
  exit 1
fi
