#!/usr/bin/env bash
# Makes Debian's HAProxy available for `npm run cluster` (which writes its config and runs it in
# the foreground under its supervisor, so nothing here starts a daemon).
#
#   infra/haproxy.sh ensure     installs the haproxy package when missing; prints the binary's path
#   infra/haproxy.sh check <cfg>  validates a config file (haproxy -c)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ensure_installed() {
  ensure_command haproxy haproxy haproxy
  command -v haproxy
}

case "${1:-}" in
  ensure) ensure_installed ;;
  check) [[ -n "${2:-}" ]] || die "check needs a config file"; "$(ensure_installed)" -c -q -f "$2" ;;
  *) die "usage: $0 ensure|check <config>" ;;
esac
