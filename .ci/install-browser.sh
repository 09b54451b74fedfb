#!/usr/bin/env bash
# Debian's Chromium for the browser test (tests/server/test_browser_e2e.py);
# idempotent: does nothing when /usr/bin/chromium is already there.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
    exit 0
fi
SUDO=$([ "$(id -u)" = 0 ] && echo "" || echo sudo)
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq chromium chromium-driver fonts-liberation
