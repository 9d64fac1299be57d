#!/usr/bin/env bash
# Makes sure Node 24 and pnpm exist (installing them project-locally from the npm registry when
# the machine lacks them), installs the workspace and the repository's git hooks, then runs "$@"
# with that toolchain on PATH.
# Idempotent: a second run only checks versions and lets pnpm confirm the install is current.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=../infra/versions.env
source "$ROOT/infra/versions.env"
TOOLS="$ROOT/.toolchain"
REGISTRY="${npm_config_registry:-https://registry.npmjs.org}"
REGISTRY="${REGISTRY%/}"
NODE_MAJOR_WANTED="${NODE_VERSION%%.*}"

log() { printf '\033[2m[toolchain]\033[0m %s\n' "$*" >&2; }

fetch_tarball() { # <package> <version> <dest-dir>
  local pkg=$1 version=$2 dest=$3 tmp
  tmp=$(mktemp -d)
  log "downloading $pkg@$version from $REGISTRY"
  curl -fsSL --retry 3 -o "$tmp/pkg.tgz" "$REGISTRY/$pkg/-/${pkg##*/}-$version.tgz"
  rm -rf "$dest.partial" && mkdir -p "$dest.partial"
  tar -xzf "$tmp/pkg.tgz" -C "$dest.partial" --strip-components=1
  rm -rf "$dest" && mv "$dest.partial" "$dest"
  rm -rf "$tmp"
}

node_major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

ensure_node() {
  local system_node
  system_node=$(command -v node || true)
  if [[ -n "$system_node" && $(node_major "$system_node") -ge $NODE_MAJOR_WANTED ]]; then
    NODE_DIR=$(dirname "$system_node")
    return
  fi
  NODE_DIR="$TOOLS/node/bin"
  if [[ -x "$NODE_DIR/node" && "$("$NODE_DIR/node" --version)" == "v$NODE_VERSION" ]]; then return; fi
  local arch
  case "$(uname -m)" in
    x86_64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) echo "unsupported CPU architecture: $(uname -m)" >&2; exit 1 ;;
  esac
  fetch_tarball "node-linux-$arch" "$NODE_VERSION" "$TOOLS/node"
  chmod +x "$NODE_DIR/node"
}

ensure_pnpm() {
  local pnpm_js="$TOOLS/pnpm/bin/pnpm.cjs"
  if [[ ! -f "$pnpm_js" ]] || ! grep -q "\"version\": \"$PNPM_VERSION\"" "$TOOLS/pnpm/package.json"; then
    fetch_tarball pnpm "$PNPM_VERSION" "$TOOLS/pnpm"
  fi
  mkdir -p "$TOOLS/bin"
  printf '#!/usr/bin/env bash\nexec "%s/node" "%s" "$@"\n' "$NODE_DIR" "$pnpm_js" >"$TOOLS/bin/pnpm"
  chmod +x "$TOOLS/bin/pnpm"
}

ensure_workspace() {
  # Skip pnpm entirely when nothing that shapes node_modules changed since the last install.
  local stamp="$ROOT/node_modules/.toolchain-stamp" current
  current=$(cat "$ROOT/pnpm-lock.yaml" "$ROOT/package.json" "$ROOT"/{packages,services}/*/package.json "$ROOT"/infra/k8s/package.json 2>/dev/null | sha256sum | cut -d' ' -f1)
  if [[ -f "$stamp" && "$(cat "$stamp")" == "$current" ]]; then return; fi
  log "pnpm install --frozen-lockfile"
  (cd "$ROOT" && pnpm install --frozen-lockfile --reporter=append-only >&2)
  echo "$current" >"$stamp"
}

ensure_git_hooks() {
  # The repository's hooks (.githooks: commit-msg checks the subject line) in a git checkout.
  command -v git >/dev/null || return 0
  [[ -d "$ROOT/.githooks" ]] && git -C "$ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1 || return 0
  if [[ "$(git -C "$ROOT" config --get core.hooksPath || true)" != .githooks ]]; then
    git -C "$ROOT" config core.hooksPath .githooks || log "could not set core.hooksPath (the commit-msg check stays off)"
  fi
}

mkdir -p "$TOOLS"
exec 9>"$TOOLS/.lock"
flock 9
ensure_node
export PATH="$TOOLS/bin:$NODE_DIR:$ROOT/node_modules/.bin:$PATH"
ensure_pnpm
if [[ "${TOOLCHAIN_SKIP_INSTALL:-}" != 1 ]]; then ensure_workspace; fi
ensure_git_hooks
flock -u 9
exec 9>&-

export TURBO_TELEMETRY_DISABLED=1 NEXT_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1
if [[ $# -gt 0 ]]; then exec "$@"; fi
