#!/usr/bin/env bash
# Makes Debian's HAProxy available for `npm run cluster` (which writes its config and runs it in
# the foreground under its supervisor, so nothing here starts a daemon).
#
#   infra/haproxy.sh ensure     installs the haproxy package when missing; prints the binary's path
#   infra/haproxy.sh check <cfg>  validates a config file (haproxy -c)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ensure_installed() {
  if ! command -v haproxy >/dev/null; then
    [[ $EUID -eq 0 ]] || die "haproxy is missing; install Debian's haproxy package"
    log "installing haproxy with apt-get"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends haproxy >&2
    # The package may start a system instance (on whatever its default config binds); the project runs its own.
    if command -v systemctl >/dev/null; then systemctl disable --now haproxy >/dev/null 2>&1 || true; fi
    service haproxy stop >/dev/null 2>&1 || true
  fi
  command -v haproxy
}

case "${1:-}" in
  ensure) ensure_installed ;;
  check) [[ -n "${2:-}" ]] || die "check needs a config file"; "$(ensure_installed)" -c -q -f "$2" ;;
  *) die "usage: $0 ensure|check <config>" ;;
esac
