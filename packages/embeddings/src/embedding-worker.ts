// The body of the embedding worker thread (see off-thread.ts): loads the model once, then embeds
// whatever texts the pool hands it.
import { workerData } from 'node:worker_threads';
import { loadEmbedder, type Embedder, type EmbedderOptions } from './model.ts';

let embedder: Promise<Embedder> | undefined;

export default async function embed(texts: readonly string[]): Promise<Float32Array[]> {
  embedder ??= loadEmbedder(workerData as EmbedderOptions);
  return (await embedder).embed(texts);
}
