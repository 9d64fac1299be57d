#!/usr/bin/env bash
# `npm test`: provisions the real Elasticsearch and Redis the tests share (unless
# ELASTICSEARCH_URL/REDIS_URL point elsewhere), then lints, typechecks and tests every package.
# `npm run test:slow` (--slow): the same Elasticsearch and Redis plus what the slow tests
# (`*.slow.test.ts`: real browser, conformance, cluster, model loading) use, then only those.
# Tests install nothing themselves: every Debian package they need is installed here.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

slow=false
if [[ "${1:-}" == --slow ]]; then slow=true; shift; fi

started=()
cleanup() {
  for what in "${started[@]}"; do
    case "$what" in
      es) bash infra/elasticsearch.sh stop --name test ;;
      redis) bash infra/redis.sh stop --name test --port 6390 ;;
    esac
  done
}
trap cleanup EXIT

# Elasticsearch and Redis start in the background while the static checks run: neither needs
# the other, and on two cores the JVM's start overlaps the single-threaded lint and typecheck.
start_es=false start_redis=false
if [[ -z "${ELASTICSEARCH_URL:-}" ]]; then
  bash infra/elasticsearch.sh status --name test --port 9250 >/dev/null 2>&1 || started+=(es)
  start_es=true
  export ELASTICSEARCH_URL=http://127.0.0.1:9250
fi
if [[ -z "${REDIS_URL:-}" ]]; then
  bash infra/redis.sh status --port 6390 >/dev/null 2>&1 || started+=(redis)
  start_redis=true
  export REDIS_URL=redis://127.0.0.1:6390
fi
logs=$(mktemp -d)
trap 'cleanup; rm -rf "$logs"' EXIT
(
  if [[ $start_es == true ]]; then bash infra/elasticsearch.sh start --name test --port 9250 --heap 768m; fi
  if [[ $start_redis == true ]]; then bash infra/redis.sh start --name test --port 6390; fi
) >"$logs/services" 2>&1 &
services_pid=$!
# Waits for that start and shows its log; fails when either did not start.
services_ready() {
  local status=0
  wait "$services_pid" || status=1
  cat "$logs/services"
  return "$status"
}

if [[ $slow == true ]]; then
  services_ready
  # The sentence-embedding model (semantic search, the worker's vectors) from Maven Central; cached.
  bash infra/embedding-model.sh fetch
  # Debian's chromium (the real-browser tests drive it through playwright-core), HAProxy,
  # Sentinel and Prometheus (the cluster tests); apt allows one install at a time.
  bash infra/chromium.sh ensure
  bash infra/haproxy.sh ensure >/dev/null
  bash infra/redis-sentinel.sh ensure
  bash infra/prometheus.sh ensure
  turbo run test:slow --concurrency=2 --continue --output-logs=new-only "$@"
  exit
fi

# Two lanes of static checks, each logged whole when done. Formatting is part of the contract:
# a file prettier would change fails the run. The strict typecheck and the lint each run as one
# process over one TypeScript program (tsconfig.json); the storefront's page runs in browsers, so
# it is a second program with the DOM lib (and no Node types).
(
  status=0
  prettier --check --log-level warn . || status=1
  echo "typecheck: tsc -p tsconfig.json"
  tsc -p tsconfig.json || status=1
  tsc -p examples/storefront/src/page/tsconfig.json || status=1
  exit "$status"
) >"$logs/format-types" 2>&1 &
format_types=$!
(
  echo "lint: eslint (workspace)"
  LINT_WORKSPACE=1 eslint packages/*/src services/*/src services/mcp/scripts services/mcp/test examples/src examples/storefront/src infra/k8s/src scripts
) >"$logs/lint" 2>&1 &
lint=$!
status=0
wait "$format_types" || status=1
cat "$logs/format-types"
wait "$lint" || status=1
cat "$logs/lint"
services_ready || exit 1
turbo run test --concurrency=2 --continue --output-logs=new-only "$@" || status=1
exit "$status"
