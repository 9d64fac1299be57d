#!/usr/bin/env bash
# Runs a real Redis (Debian's redis-server) on loopback with AOF persistence.
#
#   infra/redis.sh start [--name dev] [--port 6379] [--replica-of HOST:PORT | --primary]
#   infra/redis.sh stop  [--name dev] [--port 6379]
#   infra/redis.sh status [--port 6379]
#
# Data lives in .local/redis/<name>; `stop` is a SHUTDOWN, which flushes the AOF first, so keys,
# quotas and usage survive a restart. appendfsync everysec bounds a crash's loss to one second.
# --primary starts it as a primary even when a failover recorded it as a replica in its config.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

NAME=dev PORT=6379 REPLICA_OF= PRIMARY=
CMD="${1:-}"; shift || true
parse_options "name port replica-of primary!" "$@"
DIR="$LOCAL_DIR/redis/$NAME"
if [[ -n $REPLICA_OF && ! $REPLICA_OF =~ ^[^:[:space:]]+:[0-9]+$ ]]; then die "--replica-of must be HOST:PORT"; fi

start() {
  ensure_command redis-server redis-server redis-server
  if redis_ping "$PORT"; then log "redis already up on port $PORT"; return; fi
  mkdir -p "$DIR"
  # A config file of its own, so Sentinel can record a failover in it (CONFIG REWRITE) and a
  # restarted node comes back with the role it had; command-line options override it.
  [[ -f $DIR/redis.conf ]] || : >"$DIR/redis.conf"
  local replica=()
  if [[ -n $REPLICA_OF ]]; then replica=(--replicaof "${REPLICA_OF%:*}" "${REPLICA_OF##*:}"); fi
  if [[ -n $PRIMARY ]]; then replica=(--replicaof no one); fi
  redis_daemon redis "$PORT" "$DIR" redis-server "$DIR/redis.conf" --bind 127.0.0.1 --port "$PORT" --protected-mode yes \
    --dir "$DIR" --appendonly yes --appendfsync everysec --save "" "${replica[@]}"
  log "redis '$NAME' up at redis://127.0.0.1:$PORT${REPLICA_OF:+ (replica of $REPLICA_OF)}"
}


case "$CMD" in
  start)
    if redis_ping "$PORT"; then log "redis already up on port $PORT"; exit 0; fi
    mkdir -p "$LOCAL_DIR/redis"
    exec 8>"$LOCAL_DIR/redis/.$NAME.lock" && flock 8 # the daemon must not inherit fd 8 (redis_daemon closes it)
    start ;;
  stop) redis_shutdown "$PORT" "redis '$NAME'" ;;
  status) if redis_ping "$PORT"; then echo up; else echo down; exit 1; fi ;;
  *) die "usage: $0 start|stop|status [--name N] [--port P] [--replica-of HOST:PORT | --primary]" ;;
esac
