export { EMBEDDING_MODEL, EMBEDDING_MODEL_KEY } from './model-info.ts';
export { cosine, EmbeddingModelMissingError, loadEmbedder, MAX_TOKENS, meanPool, type Embedder, type EmbedderOptions } from './model.ts';
export { defaultModelDirectory } from './directory.ts';
