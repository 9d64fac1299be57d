export { loadEmbedder, type Embedder } from './model.ts';
export { defaultModelDirectory } from './directory.ts';
export { loadEmbedderOffThread } from './off-thread.ts';
export { EMBEDDING_MODEL_KEY } from './model-info.ts';
