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
apt_install() { # <package> [system service the package starts]: installs a Debian package, as root
  local package=$1 service=${2:-}
  [[ $EUID -eq 0 ]] || die "$package is missing; install Debian's $package package"
  log "installing $package with apt-get"
  # Tests and stack steps install side by side on a new machine; apt allows one at a time, so
  # ours queue on one lock (and wait for any other apt-get's) instead of failing.
  local wait_lock=(-o DPkg::Lock::Timeout=600)
  (
    flock -w 900 9 || die "timed out waiting for another apt-get"
    DEBIAN_FRONTEND=noninteractive apt-get "${wait_lock[@]}" update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get "${wait_lock[@]}" install -y -qq --no-install-recommends "$package" >&2
  ) 9>/var/lock/fragrance-apt.lock
  # Packages with a daemon start a system instance on its default port; the project runs its own.
  if [[ -n $service ]]; then
    if command -v systemctl >/dev/null; then systemctl disable --now "$service" >/dev/null 2>&1 || true; fi
    service "$service" stop >/dev/null 2>&1 || true
  fi
}
maven_fetch() { # <groupId:artifactId:version:type> <directory>: copies the artifact there once
  local artifact=$1 downloads=$2
  local name=${artifact#*:}
  name="${name%%:*}-$(cut -d: -f3 <<<"$artifact").$(cut -d: -f4 <<<"$artifact")"
  [[ -f "$downloads/$name" ]] && return
  command -v mvn >/dev/null || die "mvn is needed to fetch $artifact from Maven Central"
  mkdir -p "$downloads"
  log "fetching $artifact from Maven Central"
  mvn -q -B dependency:copy -Dartifact="$artifact" -DoutputDirectory="$downloads" -Dmdep.useBaseVersion=true >&2 \
    || die "could not fetch $artifact with mvn"
}
parse_options() { # "<option> <flag>! …" "$@": --some-option VALUE sets SOME_OPTION, --flag sets FLAG=1
  local known=" $1 " option variable
  shift
  while [[ $# -gt 0 ]]; do
    option=${1#--}
    variable=${option^^}
    variable=${variable//-/_}
    if [[ $1 == --* && $known == *" $option! "* ]]; then
      printf -v "$variable" 1
      shift
    elif [[ $1 == --* && $known == *" $option "* ]]; then
      [[ $# -ge 2 ]] || die "$1 needs a value"
      printf -v "$variable" '%s' "$2"
      shift 2
    else
      die "unknown option $1"
    fi
  done
}
ensure_command() { # <command> <Debian package> [system service it starts]: installs the package when the command is missing
  command -v "$1" >/dev/null || apt_install "$2" "${3:-}"
}
redis_ping() { redis-cli -p "$1" ping 2>/dev/null | grep -q PONG; } # <port>
redis_shutdown() { # <port> <what>: SHUTDOWN (a Redis flushes its AOF first), then waits until it is gone
  redis_ping "$1" || return 0
  redis-cli -p "$1" shutdown >/dev/null 2>&1 || true
  wait_for 20 bash -c "! redis-cli -p $1 ping" || die "$2 on port $1 did not stop"
  log "$2 stopped"
}
redis_daemon() { # <kind: redis|sentinel> <port> <dir> <command...>: runs it daemonized (pid and log in <dir>/<kind>.pid, .log) and waits until it answers
  local kind=$1 port=$2 dir=$3
  shift 3
  "$@" --daemonize yes --pidfile "$dir/$kind.pid" --logfile "$dir/$kind.log" 8>&- # the daemon must not inherit the start lock
  wait_for 20 redis_ping "$port" || die "$kind did not answer on port $port; see $dir/$kind.log"
}
