#!/usr/bin/env bash
# Runs a real Prometheus (Debian's prometheus package, which also brings promtool) on loopback,
# scraping the targets in a config written by scripts/prometheus-config.ts.
#
#   infra/prometheus.sh ensure                       install the package when missing
#   infra/prometheus.sh start --config FILE [--name dev] [--port 9090]
#   infra/prometheus.sh stop [--name dev] [--purge]     --purge also deletes its data (tests)
#   infra/prometheus.sh status [--port 9090]
#   infra/prometheus.sh test-rules                   promtool check rules + promtool test rules
#
# Data lives in .local/prometheus/<name>; the Debian system instance the package starts is
# disabled (the project runs its own, on its own port).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

NAME=dev PORT=9090 CONFIG="" PURGE=
CMD="${1:-}"; shift || true
parse_options "name port config purge!" "$@"
DIR="$LOCAL_DIR/prometheus/$NAME"
RULES_DIR="$ROOT/infra/prometheus"

ensure_installed() {
  command -v prometheus >/dev/null && command -v promtool >/dev/null && return
  mkdir -p "$LOCAL_DIR"
  # Without recommends: no node exporter or other exporters, just the server and promtool.
  apt_install prometheus prometheus
}

ready() { curl -fsS "http://127.0.0.1:$PORT/-/ready" >/dev/null 2>&1; }

start() {
  ensure_installed
  [[ -n "$CONFIG" ]] || die "start needs --config FILE (see scripts/prometheus-config.ts)"
  if ready; then log "prometheus already up on port $PORT"; return; fi
  mkdir -p "$DIR"
  promtool check config "$CONFIG" >&2 || die "invalid config $CONFIG"
  nohup prometheus --config.file="$CONFIG" --storage.tsdb.path="$DIR/data" \
    --web.listen-address="127.0.0.1:$PORT" --storage.tsdb.retention.time=2d \
    --web.enable-lifecycle >"$DIR/prometheus.log" 2>&1 8>&- &
  echo $! >"$DIR/prometheus.pid"
  wait_for 30 ready || die "prometheus did not become ready on port $PORT; see $DIR/prometheus.log"
  log "prometheus '$NAME' up at http://127.0.0.1:$PORT"
}

stop() {
  if [[ ! -f "$DIR/prometheus.pid" ]]; then
    if [[ -n $PURGE ]]; then rm -rf "$DIR"; fi
    return 0
  fi
  local pid; pid=$(cat "$DIR/prometheus.pid")
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid"
    wait_for 20 bash -c "! kill -0 $pid" || die "prometheus (pid $pid) did not stop"
  fi
  rm -f "$DIR/prometheus.pid"
  log "prometheus '$NAME' stopped"
  if [[ -n $PURGE ]]; then rm -rf "$DIR"; fi
}

test_rules() {
  ensure_installed
  promtool check rules "$RULES_DIR"/rules/*.yml
  promtool test rules "$RULES_DIR"/tests/*.yml
}

case "$CMD" in
  ensure) ensure_installed ;;
  start) start ;;
  stop) stop ;;
  status) if ready; then echo up; else echo down; exit 1; fi ;;
  test-rules) test_rules ;;
  *) die "usage: $0 ensure|start|stop|status|test-rules [--name N] [--port P] [--config FILE]" ;;
esac
