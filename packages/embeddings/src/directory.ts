import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EMBEDDING_MODEL } from './model-info.ts';

/**
 * Where infra/embedding-model.sh puts the model in a checkout (`.local/embedding-model/<version>`),
 * for services started from it; EMBEDDING_MODEL_DIR in each service's config overrides it.
 */
export function defaultModelDirectory(): string {
  const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
  return join(root, '.local', 'embedding-model', EMBEDDING_MODEL.version);
}
