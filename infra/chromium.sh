#!/usr/bin/env bash
# Ensures Debian's chromium exists for the real-browser tests (playwright-core drives it; no
# browser is ever downloaded by a test tool). Installs it with apt-get when root and missing.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

case "${1:-ensure}" in
  ensure)
    if command -v chromium >/dev/null; then exit 0; fi
    [[ $EUID -eq 0 ]] || die "chromium is missing; install Debian's chromium package"
    log "installing chromium with apt-get"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >&2
    ;;
  *) die "usage: $0 ensure" ;;
esac
