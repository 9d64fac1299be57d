export { EMBEDDING_MODEL, EMBEDDING_MODEL_KEY } from './model-info.ts';
export {
  assertModelFiles,
  cosine,
  EmbeddingModelMissingError,
  loadEmbedder,
  MAX_TOKENS,
  meanPool,
  type Embedder,
  type EmbedderOptions,
} from './model.ts';
export { defaultModelDirectory } from './directory.ts';
export { loadEmbedderOffThread } from './off-thread.ts';
