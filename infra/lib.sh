# Shared helpers for infra/*.sh (sourced, not run).
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=versions.env
source "$ROOT/infra/versions.env"
LOCAL_DIR="${FRAGRANCE_LOCAL_DIR:-$ROOT/.local}"
log() { printf '\033[2m[%s]\033[0m %s\n' "$(basename "$0" .sh)" "$*" >&2; }
die() { printf '[%s] error: %s\n' "$(basename "$0" .sh)" "$*" >&2; exit 1; }
wait_for() { # <seconds> <command...>: polls the command until it succeeds
  local deadline=$((SECONDS + $1)); shift
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || return 1
    sleep 0.5
  done
}
