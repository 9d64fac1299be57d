import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { FragranceDetail } from '@fragrance/contracts';
import { createLogger } from '@fragrance/http';
import { requestEnrichmentRun } from '@fragrance/jobs';
import { enrichmentFingerprint, ingestCatalogue, readEnrichment } from '@fragrance/search';
import { close, listen, testElasticsearch, testRedis, type TestElasticsearch, type TestRedis } from '@fragrance/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorker, type RunningWorker } from '../app.ts';
import { allDocs, catalogueFixture, testConfig, workerEnv, type CatalogueFixture } from '../testing/fixtures.ts';
import { waitForRun } from '../testing/wait.ts';

const logger = createLogger('worker-test', 'silent');

/** An OpenAI-compatible endpoint that records the name of every record it is asked about (a paid call each). */
function countingModel() {
  const asked: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { messages: { role: string; content: string }[] };
      const user = JSON.parse(body.messages.find((m) => m.role === 'user')?.content ?? '{}') as { name?: string };
      asked.push(user.name ?? '');
      const content = JSON.stringify({
        accords: ['woody', 'amber'],
        description: `A woody amber: ${user.name ?? ''}.`,
        seasons: ['autumn'],
        occasions: ['evening'],
      });
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ choices: [{ message: { role: 'assistant', content } }] }));
    });
  });
  return { server, asked };
}

describe('durable enrichment store: results outlive the index they were written to', () => {
  let es: TestElasticsearch;
  let redis: TestRedis;
  let fixture: CatalogueFixture;
  let worker: RunningWorker;
  let model: ReturnType<typeof countingModel>;

  beforeAll(async () => {
    es = await testElasticsearch('enrichstore');
    redis = await testRedis('enrichstore');
    fixture = await catalogueFixture(es, { count: 150, seed: 31 });
    model = countingModel();
    const aiUrl = `${await listen(model.server)}/v1`;
    const config = testConfig(workerEnv(es, redis, fixture, { AI_ENRICHER: 'openai', AI_BASE_URL: aiUrl, AI_CONCURRENCY: '2' }));
    worker = await startWorker({ config, logger, redis: redis.connect({ maxRetriesPerRequest: null }), elasticsearch: es.client });
  });
  afterAll(async () => {
    await worker?.close(1_000);
    if (model) await close(model.server);
    await redis?.cleanup();
    await es?.cleanup();
  });

  const run = async () => waitForRun(worker.runs, (await requestEnrichmentRun(worker.queues.enrichment, { full: false })).runId);
  const records = async () => new Map([...(await allDocs(es.client, fixture.alias))].map(([id, d]) => [id, d.record]));
  const ingest = (list: FragranceDetail[]) =>
    ingestCatalogue({ client: es.client, alias: fixture.alias, records: list, carryForward: true });

  it('keeps results across an ingest that drops a record and one that brings it back; the next run asks the model for changed rows only', async () => {
    const first = await run();
    expect(first).toMatchObject({ status: 'completed', failed: 0 });
    const enriched = await records();
    const aiRows = [...enriched.values()].filter((r) => r.provenance.some((p) => p.source === 'ai_enriched'));
    expect(model.asked.length).toBe(aiRows.length);
    expect(aiRows.length).toBeGreaterThanOrEqual(3);

    // The worker wrote each enriched row's results to the store, keyed by its inputs.
    const stored = await readEnrichment(
      es.client,
      fixture.alias,
      aiRows.map((r) => r.id),
    );
    for (const record of aiRows) {
      expect(stored.get(record.id)).toMatchObject({ inputs: enrichmentFingerprint(record) });
      const claimed = record.provenance.filter((p) => p.source !== 'community_taxonomy' && p.source !== 'operator_curated');
      // The AU check goes with them even when it found nothing (and claims no field).
      const fields = [...claimed.flatMap((p) => p.fields), 'au_availability', 'au_offers', 'available_in_au'];
      const values = Object.fromEntries(fields.map((f) => [f, record[f as keyof FragranceDetail]]));
      expect(stored.get(record.id)?.values).toEqual(values);
      expect(stored.get(record.id)?.provenance).toEqual(claimed);
    }

    // The source file as it was before any enrichment: one ingest drops two enriched records, the
    // next brings them back with a third record renamed (its inputs changed).
    const file = (await readFile(fixture.catalogueFile, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as FragranceDetail);
    const [dropped, droppedToo, renamed] = aiRows;
    await ingest(file.filter((r) => r.id !== dropped!.id && r.id !== droppedToo!.id));
    expect((await records()).has(dropped!.id)).toBe(false);
    await ingest(file.map((r) => (r.id === renamed!.id ? { ...r, name: `${r.name} Intense` } : r)));

    // Right after the ingest: every enriched row has its results again, the dropped ones included.
    const after = await records();
    for (const record of aiRows) {
      const now = after.get(record.id)!;
      if (record.id === renamed!.id) {
        expect(now.provenance.some((p) => p.source === 'ai_enriched')).toBe(false);
        continue;
      }
      expect({ description: now.description, seasons: now.seasons, occasions: now.occasions, accords: now.accords }).toEqual({
        description: record.description,
        seasons: record.seasons,
        occasions: record.occasions,
        accords: record.accords,
      });
      expect(now.au_availability).toEqual(record.au_availability);
    }

    // The next run pays for the renamed row only.
    model.asked.length = 0;
    const second = await run();
    expect(second).toMatchObject({ status: 'completed', failed: 0 });
    expect(model.asked).toEqual([`${renamed!.name} Intense`]);
  });
});
