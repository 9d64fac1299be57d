import { Piscina } from 'piscina';
import { EMBEDDING_MODEL, EMBEDDING_MODEL_KEY } from './model-info.ts';
import { assertModelFiles, type Embedder, type EmbedderOptions } from './model.ts';

/**
 * The embedder on a worker thread of its own. ONNX Runtime's Node binding runs a model call
 * synchronously on the thread that asks (inside a setImmediate), so in a server every query's
 * embedding blocked the event loop for its whole run (~1.2 ms alone, several under load): no
 * other request's I/O moved meanwhile, and a hybrid search could not send its text legs to
 * Elasticsearch while its query was embedded. Here the model runs beside the event loop. One
 * thread: processes are scaled out, not threads (and intra-op threads stay 1).
 */
export async function loadEmbedderOffThread(options: EmbedderOptions): Promise<Embedder> {
  // A missing model is the caller's error to see at start, by its class and message.
  assertModelFiles(options.directory);
  const pool = new Piscina<readonly string[], Float32Array[]>({
    filename: new URL('./embedding-worker.ts', import.meta.url).href,
    workerData: options,
    minThreads: 1,
    maxThreads: 1,
    idleTimeout: Number.POSITIVE_INFINITY,
  });
  const embed = (texts: readonly string[]) => pool.run(texts);
  try {
    // Load the model now: the first search should not pay for it, and a model that does not load fails the start.
    await embed(['warm up']);
  } catch (error) {
    await pool.destroy();
    throw error;
  }
  return {
    model: EMBEDDING_MODEL,
    modelKey: EMBEDDING_MODEL_KEY,
    embed,
    close: () => pool.destroy(),
  };
}
