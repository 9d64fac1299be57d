// Which model we ship, apart from the code that runs it (scripts read it without loading ONNX Runtime).

/** The model we ship: all-MiniLM-L6-v2 (Apache-2.0), quantized to int8, from langchain4j's Maven Central jar. */
export const EMBEDDING_MODEL = {
  /** Recorded on every vector: a vector made by another model is not comparable and gets recomputed. */
  id: 'all-minilm-l6-v2-q',
  /** Version of the jar it comes from (infra/versions.env EMBEDDING_MODEL_VERSION). */
  version: '0.36.2',
  dimensions: 384,
} as const;

/** `<id>@<version>`: what records store as their vector's model. */
export const EMBEDDING_MODEL_KEY = `${EMBEDDING_MODEL.id}@${EMBEDDING_MODEL.version}`;
