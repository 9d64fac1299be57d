#!/usr/bin/env bash
# Ensures Debian's chromium exists for the real-browser tests (playwright-core drives it; no
# browser is ever downloaded by a test tool). Installs it with apt-get when root and missing.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

case "${1:-ensure}" in
  ensure)
    if command -v chromium >/dev/null; then exit 0; fi
    apt_install chromium
    ;;
  *) die "usage: $0 ensure" ;;
esac
