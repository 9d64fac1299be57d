import type { FragranceDetail } from '@fragrance/contracts';
import { defaultModelDirectory, loadEmbedder, type Embedder } from '@fragrance/embeddings';
import { createLogger } from '@fragrance/http';
import { requestEnrichmentRun } from '@fragrance/jobs';
import { embeddingInput, embeddingText, ingestCatalogue, type StoredEmbedding } from '@fragrance/search';
import { testElasticsearch, testRedis, type TestElasticsearch, type TestRedis } from '@fragrance/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorker, type RunningWorker } from '../app.ts';
import { catalogueFixture, testConfig, workerEnv, type CatalogueFixture } from '../testing/fixtures.ts';
import { waitForRun } from '../testing/wait.ts';
import type { RowEmbedder } from './embed.ts';

const logger = createLogger('worker-test', 'silent');

describe('record vectors: computed by the enrichment run, only for new and changed rows, kept across re-ingests', () => {
  let es: TestElasticsearch;
  let redis: TestRedis;
  let fixture: CatalogueFixture;
  let worker: RunningWorker;
  let model: Embedder;
  /** Texts each run sent to the model. */
  const embedded: string[] = [];

  beforeAll(async () => {
    es = await testElasticsearch('embed');
    redis = await testRedis('embed');
    fixture = await catalogueFixture(es, { count: 120, seed: 23 });
    model = await loadEmbedder({ directory: defaultModelDirectory() });
    const counting: RowEmbedder = {
      modelKey: model.modelKey,
      embed: (texts) => {
        embedded.push(...texts);
        return model.embed(texts);
      },
    };
    const config = testConfig(workerEnv(es, redis, fixture));
    worker = await startWorker({
      config,
      logger,
      redis: redis.connect({ maxRetriesPerRequest: null }),
      elasticsearch: es.client,
      embedder: counting,
    });
  }, 60_000);
  afterAll(async () => {
    await worker?.close(1_000);
    await model?.close();
    await redis?.cleanup();
    await es?.cleanup();
  });

  async function stored(): Promise<Map<string, { record: FragranceDetail; embedding?: StoredEmbedding }>> {
    await es.client.indices.refresh({ index: fixture.alias });
    const response = await es.client.search<FragranceDetail & { embedding?: StoredEmbedding }>({
      index: fixture.alias,
      size: 1_000,
      _source_excludes: ['search'],
    });
    return new Map(
      response.hits.hits.map((h) => {
        const { embedding, ...record } = h._source!;
        return [record.id, embedding ? { record, embedding } : { record }];
      }),
    );
  }
  const run = async () => waitForRun(worker.runs, (await requestEnrichmentRun(worker.queues.enrichment, { full: false })).runId);

  it('embeds every row once, records the model, and a second run embeds nothing', async () => {
    const first = await run();
    expect(first.status).toBe('completed');
    const docs = await stored();
    expect(docs.size).toBe(fixture.count);
    expect(embedded).toHaveLength(fixture.count);
    for (const { record, embedding } of docs.values()) {
      expect(embedding).toMatchObject({ source: 'ai_enriched', model: model.modelKey, input: embeddingInput(embeddingText(record)) });
      expect(embedding?.vector).toHaveLength(384);
    }
    embedded.length = 0;
    await run();
    expect(embedded).toHaveLength(0);
  });

  it('after a re-ingest, a changed record gets a new vector and unchanged ones keep theirs without re-embedding', async () => {
    const before = await stored();
    const records = [...before.values()].map((d) => d.record);
    const changed = records[3]!;
    const renamedOnly = records[4]!;
    const next = records.map((r) => {
      if (r.id === changed.id)
        return { ...r, notes: { ...r.notes, base: [...r.notes.base, 'smoked birch'] }, seasons: ['winter' as const] };
      // Name is an enrichment input but not in the vector's text: its vector stays.
      if (r.id === renamedOnly.id) return { ...r, name: `${r.name} Intense` };
      return r;
    });
    await ingestCatalogue({ client: es.client, alias: fixture.alias, records: next, carryForward: true });
    const afterIngest = await stored();
    expect(afterIngest.get(changed.id)?.embedding).toBeUndefined();
    expect(afterIngest.get(renamedOnly.id)?.embedding).toEqual(before.get(renamedOnly.id)?.embedding);
    const kept = [...afterIngest.values()].filter((d) => d.embedding).length;
    expect(kept).toBe(fixture.count - 1);

    embedded.length = 0;
    await run();
    const after = await stored();
    const changedText = embeddingText(after.get(changed.id)!.record);
    expect(embedded).toEqual([changedText]);
    expect(after.get(changed.id)?.embedding?.input).toBe(embeddingInput(changedText));
    expect(after.get(changed.id)?.embedding?.vector).not.toEqual(before.get(changed.id)?.embedding?.vector);
    for (const [id, doc] of after) if (id !== changed.id) expect(doc.embedding).toEqual(before.get(id)?.embedding);
  });
});
