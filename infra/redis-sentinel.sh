#!/usr/bin/env bash
# Runs one Redis Sentinel (Debian's redis-sentinel) on loopback, watching a primary started by
# infra/redis.sh. Three of them (quorum 2) fail the primary over to a replica when it dies.
#
#   infra/redis-sentinel.sh start --port 26379 --monitor 127.0.0.1:6379 [--name fcs-redis]
#                                 [--quorum 2] [--down-after-ms 5000] [--failover-timeout-ms 60000]
#   infra/redis-sentinel.sh stop   --port 26379
#   infra/redis-sentinel.sh status --port 26379 [--name fcs-redis]   # prints the primary's host:port
#   infra/redis-sentinel.sh ensure                                     # installs the package when missing
#
# State lives in .local/redis-sentinel/<port>: sentinel.conf (Sentinel rewrites it with what it
# learns: the current primary, replicas, other Sentinels), the log and the pid file. A restarted
# Sentinel reads it back, so --monitor is used only when the file does not exist yet.
# The default name matches REDIS_SENTINEL_NAME's default (docs/configuration.md).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PORT=26379 MONITOR= NAME=fcs-redis QUORUM=2 DOWN_AFTER_MS=5000 FAILOVER_TIMEOUT_MS=60000
CMD="${1:-}"; shift || true
parse_options "port monitor name quorum down-after-ms failover-timeout-ms" "$@"
DIR="$LOCAL_DIR/redis-sentinel/$PORT"
[[ $PORT =~ ^[0-9]+$ ]] || die "--port must be a number"
[[ $NAME =~ ^[A-Za-z0-9._-]+$ ]] || die "--name must be letters, digits, '.', '_' or '-'"
for number in "$QUORUM" "$DOWN_AFTER_MS" "$FAILOVER_TIMEOUT_MS"; do [[ $number =~ ^[0-9]+$ ]] || die "'$number' is not a number"; done

ensure_installed() { ensure_command redis-sentinel redis-sentinel redis-sentinel; }

start() {
  ensure_installed
  if redis_ping "$PORT"; then log "sentinel already up on port $PORT"; return; fi
  mkdir -p "$DIR"
  if [[ ! -f $DIR/sentinel.conf ]]; then
    [[ $MONITOR =~ ^[^:[:space:]]+:[0-9]+$ ]] || die "--monitor HOST:PORT is required for a new Sentinel"
    cat >"$DIR/sentinel.conf" <<CONF
# Written by infra/redis-sentinel.sh; Sentinel appends what it learns below.
bind 127.0.0.1
port $PORT
dir $DIR
sentinel resolve-hostnames yes
sentinel monitor $NAME ${MONITOR%:*} ${MONITOR##*:} $QUORUM
sentinel down-after-milliseconds $NAME $DOWN_AFTER_MS
sentinel failover-timeout $NAME $FAILOVER_TIMEOUT_MS
sentinel parallel-syncs $NAME 1
CONF
  fi
  redis_daemon sentinel "$PORT" "$DIR" redis-sentinel "$DIR/sentinel.conf"
  log "sentinel up on port $PORT, watching '$NAME'"
}

status() {
  redis_ping "$PORT" || { echo down; exit 1; }
  local primary
  primary=$(redis-cli -p "$PORT" sentinel get-master-addr-by-name "$NAME" 2>/dev/null | paste -sd: -)
  [[ -n $primary ]] || { echo "up, not watching '$NAME'"; exit 1; }
  echo "up, primary $primary"
}

case "$CMD" in
  start)
    mkdir -p "$LOCAL_DIR/redis-sentinel"
    exec 8>"$LOCAL_DIR/redis-sentinel/.$PORT.lock" && flock 8 # the daemon must not inherit fd 8
    start ;;
  stop) redis_shutdown "$PORT" "sentinel on port $PORT" ;;
  status) status ;;
  ensure) ensure_installed ;;
  *) die "usage: $0 start|stop|status|ensure --port P [--monitor HOST:PORT] [--name N] [--quorum Q] [--down-after-ms MS] [--failover-timeout-ms MS]" ;;
esac
