import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultModelDirectory } from './directory.ts';
import { EMBEDDING_MODEL } from './model-info.ts';
import { cosine, EmbeddingModelMissingError, loadEmbedder, type Embedder } from './model.ts';
import { REFERENCE_TEXT, REFERENCE_VECTOR } from './reference-vector.ts';

describe('embedder (the shipped model, fetched by infra/embedding-model.sh)', () => {
  let embedder: Embedder;
  beforeAll(async () => {
    embedder = await loadEmbedder({ directory: defaultModelDirectory(), batchSize: 4 });
  });
  afterAll(() => embedder.close());

  it('embeds a fixed text as the stored reference vector (a model, tokenizer or pooling change fails here)', async () => {
    const [vector] = await embedder.embed([REFERENCE_TEXT]);
    expect(vector).toHaveLength(EMBEDDING_MODEL.dimensions);
    expect(cosine(vector!, REFERENCE_VECTOR)).toBeGreaterThanOrEqual(0.999);
  });

  it('returns unit vectors in input order, the same in a batch as alone', async () => {
    const texts = ['fresh citrus for summer at the office', REFERENCE_TEXT, 'a powdery iris scent', 'x', 'sweet vanilla gourmand'];
    const batched = await embedder.embed(texts);
    const alone = await Promise.all(texts.map(async (t) => (await embedder.embed([t]))[0]!));
    batched.forEach((v, i) => {
      expect(Math.hypot(...v)).toBeCloseTo(1, 5);
      expect(cosine(v, alone[i]!)).toBeGreaterThan(0.9999);
    });
    expect(cosine(batched[1]!, REFERENCE_VECTOR)).toBeGreaterThanOrEqual(0.999);
  });

  it('puts related descriptions closer than unrelated ones', async () => {
    const [query, near, far] = await embedder.embed([
      'something fresh and citrusy for summer',
      'bright lemon and bergamot cologne for hot days',
      'dark smoky leather and oud for winter nights',
    ]);
    expect(cosine(query!, near!)).toBeGreaterThan(cosine(query!, far!) + 0.1);
  });

  it('truncates long texts instead of failing', async () => {
    const [vector] = await embedder.embed([Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ')]);
    expect(vector).toHaveLength(EMBEDDING_MODEL.dimensions);
  });
});

describe('a missing model', () => {
  it('fails to load with an error naming the directory, the file and the fetch command', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'no-model-'));
    const loading = loadEmbedder({ directory: empty });
    await expect(loading).rejects.toBeInstanceOf(EmbeddingModelMissingError);
    await expect(loading).rejects.toThrow(/model\.onnx not found in .*no-model-.*infra\/embedding-model\.sh fetch/);
  });
});
