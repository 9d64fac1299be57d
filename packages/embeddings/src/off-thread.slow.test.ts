import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultModelDirectory } from './directory.ts';
import { EMBEDDING_MODEL_KEY } from './model-info.ts';
import { cosine, EmbeddingModelMissingError, loadEmbedder, type Embedder } from './model.ts';
import { loadEmbedderOffThread } from './off-thread.ts';
import { REFERENCE_TEXT, REFERENCE_VECTOR } from './reference-vector.ts';

/** How often the event loop turned while `work` ran: a loop blocked by the model barely turns. */
async function turnsDuring(work: () => Promise<unknown>): Promise<number> {
  let turns = 0;
  let running = true;
  const spin = () => {
    turns++;
    if (running) setImmediate(spin);
  };
  setImmediate(spin);
  await work();
  running = false;
  return turns;
}

describe('the embedder on a worker thread', () => {
  let offThread: Embedder;
  let inProcess: Embedder;
  beforeAll(async () => {
    offThread = await loadEmbedderOffThread({ directory: defaultModelDirectory() });
    inProcess = await loadEmbedder({ directory: defaultModelDirectory() });
  });
  afterAll(async () => {
    await offThread?.close();
    await inProcess?.close();
  });

  it('gives the same vectors as the model in process, and the same model key', async () => {
    const texts = ['fresh citrus for summer at the office', REFERENCE_TEXT, 'a powdery iris scent'];
    const [there, here] = await Promise.all([offThread.embed(texts), inProcess.embed(texts)]);
    expect(offThread.modelKey).toBe(EMBEDDING_MODEL_KEY);
    expect(there).toHaveLength(3);
    there.forEach((v, i) => expect(cosine(v, here[i]!)).toBeGreaterThan(0.99999));
    expect(cosine(there[1]!, REFERENCE_VECTOR)).toBeGreaterThanOrEqual(0.999);
  });

  it('leaves the event loop free while the model runs (in process, a model call blocks it)', async () => {
    // 64 texts of one length: two model calls of 32, tens of milliseconds each.
    const texts = Array.from({ length: 64 }, (_, i) => `a smoky leather fragrance for winter evenings ${String(i).padStart(2, '0')}`);
    const free = await turnsDuring(() => offThread.embed(texts));
    const blocked = await turnsDuring(() => inProcess.embed(texts));
    expect(blocked).toBeLessThan(20);
    expect(free).toBeGreaterThan(10 * blocked);
  });

  it('fails to start with EmbeddingModelMissingError when the model is not there', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'no-model-'));
    await expect(loadEmbedderOffThread({ directory: empty })).rejects.toBeInstanceOf(EmbeddingModelMissingError);
  });
});
