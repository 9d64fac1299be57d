#!/usr/bin/env bash
# `npm test`: provisions the real Elasticsearch and Redis the tests share (unless
# ELASTICSEARCH_URL/REDIS_URL point elsewhere), then lints, typechecks and tests every package.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

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

if [[ -z "${ELASTICSEARCH_URL:-}" ]]; then
  bash infra/elasticsearch.sh status --name test --port 9250 >/dev/null 2>&1 || started+=(es)
  bash infra/elasticsearch.sh start --name test --port 9250 --heap 768m
  export ELASTICSEARCH_URL=http://127.0.0.1:9250
fi
if [[ -z "${REDIS_URL:-}" ]]; then
  bash infra/redis.sh status --port 6390 >/dev/null 2>&1 || started+=(redis)
  bash infra/redis.sh start --name test --port 6390
  export REDIS_URL=redis://127.0.0.1:6390
fi

# The sentence-embedding model (semantic search, the worker's vectors) from Maven Central; cached.
bash infra/embedding-model.sh fetch

# The auth service's real-browser test drives Debian's chromium through playwright-core.
bash infra/chromium.sh ensure

# Formatting is part of the contract: a file prettier would change fails the run.
prettier --check --log-level warn .

# Strict typecheck and lint of every package (the dirs their own lint scripts cover), each in one
# process over one TypeScript program (tsconfig.json): per package, the shared sources were
# checked again by every package importing them. Then every package's tests.
status=0
echo "typecheck: tsc -p tsconfig.json"
tsc -p tsconfig.json || status=1
echo "lint: eslint (workspace)"
LINT_WORKSPACE=1 eslint packages/*/src services/*/src services/mcp/scripts services/mcp/test examples/src infra/k8s/src scripts || status=1
turbo run test --concurrency=2 --continue --output-logs=new-only "$@" || status=1
exit "$status"
