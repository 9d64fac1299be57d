import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { failedBatches, nightlySchedule, QUEUE_NAMES, requestEnrichmentRun, requestIngest, type RunStore } from '@fragrance/jobs';
import { Problem } from '@fragrance/contracts';
import { createLogger, Lifecycle } from '@fragrance/http';
import { close, listen, testElasticsearch, testRedis, waitFor, type TestElasticsearch, type TestRedis } from '@fragrance/testkit';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { healthServer, startWorker, type RunningWorker } from './app.ts';
import { processBatch } from './enrich/batch.ts';
import { localModel } from './enrichers/ai.ts';
import { buildEnrichers } from './enrichers/index.ts';
import type { Enricher } from './enrichers/types.ts';
import { feedLoader } from './feed.ts';
import { allDocs, catalogueFixture, testConfig, workerEnv, type CatalogueFixture } from './testing/fixtures.ts';
import { waitForJob, waitForRun } from './testing/wait.ts';
import { readCatalogueGeneration } from '@fragrance/response-cache';
import { currentIndex, toIndexDocument } from '@fragrance/search';
import type { DocumentBuilder } from './catalogue.ts';

const logger = createLogger('worker-test', 'silent');

describe('enrichment runs over a small catalogue (real Redis and Elasticsearch)', () => {
  let es: TestElasticsearch;
  let redis: TestRedis;
  let fixture: CatalogueFixture;
  let worker: RunningWorker;
  let runs: RunStore;

  beforeAll(async () => {
    es = await testElasticsearch('worker');
    redis = await testRedis('worker');
    fixture = await catalogueFixture(es, { count: 300, seed: 11 });
    const config = testConfig(workerEnv(es, redis, fixture));
    worker = await startWorker({ config, logger, redis: redis.connect({ maxRetriesPerRequest: null }), elasticsearch: es.client });
    runs = worker.runs;
  });
  afterAll(async () => {
    await worker?.close(1_000);
    await redis?.cleanup();
    await es?.cleanup();
  });

  it('reports healthy when Redis, Elasticsearch and both workers are up', async () => {
    expect(await worker.health()).toEqual({ ok: true, checks: { redis: 'up', elasticsearch: 'up', workers: 'up' } });
  });

  it('answers /health/live and /health/ready; ready turns 503 while draining', async () => {
    const lifecycle = new Lifecycle();
    const server = healthServer(worker, lifecycle);
    const base = await listen(server);
    try {
      expect((await fetch(`${base}/health/live`)).status).toBe(200);
      const ready = await fetch(`${base}/health/ready`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: 'ok', dependencies: { worker: 'up' } });
      lifecycle.startDraining();
      const draining = await fetch(`${base}/health/ready`);
      expect(draining.status).toBe(503);
      expect(await draining.json()).toEqual({ status: 'draining' });
      expect((await fetch(`${base}/health/live`)).status).toBe(200);
    } finally {
      await close(server);
    }
  });

  it('serves GET /health on its port and answers anything else with a not_found problem', async () => {
    const server = healthServer(worker);
    const base = await listen(server);
    try {
      expect((await fetch(`${base}/health`)).status).toBe(200);
      for (const [method, path] of [
        ['GET', '/nope'],
        ['POST', '/health'],
      ] as const) {
        const res = await fetch(base + path, { method });
        expect(res.status).toBe(404);
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(Problem.parse(await res.json())).toMatchObject({ status: 404, code: 'not_found', title: 'Not Found' });
      }
    } finally {
      await close(server);
    }
  });

  it('enriches what it should, stamps provenance, reports unmatched offers; a second run changes nothing', async () => {
    const before = await allDocs(es.client, fixture.alias);
    // Make one row's missing field operator-owned: enrichment must leave it empty.
    const guarded = [...before.values()].find(
      (d) => d.record.accords.length === 0 && !d.record.provenance.some((p) => p.source === 'operator_curated'),
    );
    expect(guarded).toBeDefined();
    const guardedProvenance = [
      ...guarded!.record.provenance,
      { source: 'operator_curated' as const, fields: ['accords'], recorded_at: '2026-10-01T00:00:00Z' },
    ];
    await es.client.update({
      index: fixture.alias,
      id: guarded!.id,
      doc: { provenance: guardedProvenance, provenance_tags: [...new Set([...guarded!.record.provenance_tags, 'operator_curated'])] },
      refresh: true,
    });
    const curatedBefore = [...before.values()].filter((d) => d.record.provenance.some((p) => p.source === 'operator_curated'));
    expect(curatedBefore.length).toBeGreaterThan(5);

    const { runId } = await requestEnrichmentRun(worker.queues.enrichment, { full: false });
    const summary = await waitForRun(runs, runId);
    expect(summary.status).toBe('completed');
    expect(summary.rows_total).toBeGreaterThan(0);
    expect(summary.rows_seen).toBe(summary.rows_total);
    expect(summary.changed + summary.unchanged + summary.failed).toBe(summary.rows_seen);
    expect(summary.failed).toBe(0);
    expect(summary.batches_done).toBe(summary.batches_total);
    expect(summary.per_enricher.ai_enriched?.changed).toBeGreaterThan(0);
    expect(summary.per_enricher.au_retailer_scrape?.changed).toBeGreaterThan(0);
    expect(summary.per_enricher.operator_curated).toEqual({ changed: 0, unchanged: summary.rows_seen, failed: 0 });
    expect(summary.au_unmatched_offers).toBeGreaterThan(0);
    expect(summary.au_unmatched_sample.length).toBeGreaterThan(0);

    const after = await allDocs(es.client, fixture.alias);
    expect(after.size).toBe(before.size);
    let aiStamped = 0;
    let auStamped = 0;
    for (const [id, doc] of after) {
      const old = before.get(id)!.record;
      const rec = doc.record;
      const ai = rec.provenance.filter((p) => p.source === 'ai_enriched');
      expect(ai.length).toBeLessThanOrEqual(1);
      if (id === guarded!.id) {
        expect(rec.accords).toEqual([]);
        expect(ai[0]?.fields ?? []).not.toContain('accords');
      } else if (old.accords.length === 0) {
        expect(rec.accords.length).toBeGreaterThan(0);
        expect(rec.main_accords).toEqual(rec.accords.slice(0, 5));
        expect(ai[0]?.fields).toEqual(expect.arrayContaining(['accords', 'main_accords']));
      }
      if (old.description === null) {
        expect(rec.description).toMatch(/\S/);
        expect(ai[0]?.fields).toContain('description');
      }
      if (ai.length === 1) {
        aiStamped++;
        expect(ai[0]!.recorded_at).toBe(summary.as_of);
        expect(rec.provenance_tags).toContain('ai_enriched');
        expect(rec.updated_at).toBe(summary.as_of);
      }
      // Every row was re-checked against the AU feed as of the run.
      expect(rec.au_availability.checked_at).toBe(summary.as_of);
      if (rec.au_offers.length > 0) {
        auStamped++;
        expect(rec.provenance.find((p) => p.source === 'au_retailer_scrape')?.recorded_at).toBe(summary.as_of);
        expect(rec.available_in_au).toBe(rec.au_offers.some((o) => o.in_stock));
      } else {
        expect(rec.provenance_tags).not.toContain('au_retailer_scrape');
      }
      // The folded search fields and the summary searches read (available_in_au is in it) follow the record.
      expect(doc.search).toEqual(toIndexDocument(rec).search);
    }
    expect(aiStamped).toBeGreaterThan(50);
    expect(auStamped).toBeGreaterThan(10);
    // Operator-curated values survive untouched.
    for (const doc of curatedBefore) {
      const rec = after.get(doc.id)!.record;
      for (const field of doc.record.provenance.find((p) => p.source === 'operator_curated')!.fields) {
        expect((rec as unknown as Record<string, unknown>)[field]).toEqual((doc.record as unknown as Record<string, unknown>)[field]);
      }
    }

    // The run rewrote most rows (each update leaves a deleted copy): the worker then merges the
    // fragmented index to one segment in the background.
    await expect
      .poll(
        async () => {
          await es.client.indices.refresh({ index: fixture.alias });
          const stats = await es.client.indices.stats({ index: fixture.alias, metric: ['segments'] });
          return stats._all.primaries?.segments?.count;
        },
        { timeout: 30_000, interval: 250 },
      )
      .toBe(1);

    // Idempotence: the next run finds only rows nothing can fix (no perfumers) and writes nothing.
    const second = await waitForRun(runs, (await requestEnrichmentRun(worker.queues.enrichment, { full: false })).runId);
    expect(second.changed).toBe(0);
    expect(second.failed).toBe(0);
    expect(second.rows_total).toBeLessThan(summary.rows_total);
    const again = await allDocs(es.client, fixture.alias);
    for (const [id, doc] of again) expect(doc.seqNo).toBe(after.get(id)!.seqNo);
  });

  it('redoing a batch with the same run time changes nothing (what a retried or recovered batch does)', async () => {
    const docs = await allDocs(es.client, fixture.alias);
    const ids = [...docs.keys()].slice(0, 40);
    const deps = {
      elasticsearch: es.client,
      alias: fixture.alias,
      enrichers: buildEnrichers({ feed: feedLoader(fixture.feedFile), auStaleMs: 1, model: localModel() }),
      toDocument: toIndexDocument as DocumentBuilder,
      logger,
      generation: { redis: redis.redis, prefix: redis.prefix.replace(/:$/, '') },
    };
    const data = { run_id: 'manual', batch_no: 0, full: true, as_of: new Date().toISOString(), ids };
    const generation = () => readCatalogueGeneration(redis.redis, { prefix: redis.prefix.replace(/:$/, ''), alias: fixture.alias });
    const before = Number(await generation());
    const first = await processBatch(deps, data);
    expect(first.changed).toBe(40); // a full run re-checks AU availability as of its own time
    // The catalogue's response cache is keyed by this generation: bumped once, after the writes
    // became searchable (a search, unlike a get, sees only refreshed writes).
    expect(Number(await generation())).toBe(before + 1);
    const searched = await es.client.search<{ au_availability: { checked_at: string | null } }>({
      index: fixture.alias,
      query: { ids: { values: ids } },
      size: 40,
      _source: ['au_availability.checked_at'],
    });
    expect(searched.hits.hits.map((h) => h._source?.au_availability.checked_at)).toEqual(ids.map(() => data.as_of));
    const second = await processBatch(deps, data);
    expect(second).toMatchObject({ seen: 40, changed: 0, unchanged: 40, failed: 0 });
    expect(Number(await generation())).toBe(before + 1); // nothing changed, nothing to invalidate
  });

  it('never clobbers a concurrent edit: a conflicting row is re-read and re-applied', async () => {
    const docs = await allDocs(es.client, fixture.alias);
    const target = [...docs.values()].find(
      (d) =>
        !d.record.provenance.some(
          (p) => p.source === 'operator_curated' || (p.source === 'ai_enriched' && p.fields.includes('description')),
        ),
    )!;
    // An operator edit lands between the batch's read and its write.
    const interloper: Enricher = {
      source: 'operator_curated',
      enrich: async () => {
        if (!edited) {
          edited = true;
          await es.client.update({
            index: fixture.alias,
            id: target.id,
            doc: {
              description: 'Edited by an operator.',
              provenance: [
                ...target.record.provenance,
                { source: 'operator_curated', fields: ['description'], recorded_at: new Date().toISOString() },
              ],
            },
          });
        }
        return new Map();
      },
    };
    let edited = false;
    // Clearing the description makes ai_enriched want to write it from the stale read.
    await es.client.update({ index: fixture.alias, id: target.id, doc: { description: null }, refresh: true });
    const deps = {
      elasticsearch: es.client,
      alias: fixture.alias,
      enrichers: [interloper, ...buildEnrichers({ feed: feedLoader(fixture.feedFile), auStaleMs: 1, model: localModel() })],
      toDocument: toIndexDocument as DocumentBuilder,
      logger,
    };
    const result = await processBatch(deps, {
      run_id: 'edit',
      batch_no: 0,
      full: false,
      as_of: new Date().toISOString(),
      ids: [target.id],
    });
    expect(result.conflicts).toBe(1);
    expect(result.failed).toBe(0);
    const rec = (await allDocs(es.client, fixture.alias)).get(target.id)!.record;
    expect(rec.description).toBe('Edited by an operator.');
    expect(rec.provenance.find((p) => p.source === 'ai_enriched')?.fields ?? []).not.toContain('description');
  });
  it('an ingest job rebuilds the index, swaps the alias and then enriches the fresh rows', async () => {
    const before = await currentIndex(es.client, fixture.alias);
    const enrichedBefore = await allDocs(es.client, fixture.alias);
    const jobId = await requestIngest(worker.queues.ingest, { file: fixture.catalogueFile, enrich_after: true });
    const job = await waitForJob(worker.queues.ingest, jobId);
    if (job.failedReason) throw new Error(job.failedReason);
    const result = job.returnvalue as { index: string; indexed: number; enrichment_run: string | null };
    expect(result.indexed).toBe(fixture.count);
    expect(result.index).not.toBe(before);
    expect(await currentIndex(es.client, fixture.alias)).toBe(result.index);
    const summary = await waitForRun(runs, result.enrichment_run ?? '');
    expect(summary).toMatchObject({ trigger: 'ingest', status: 'completed', failed: 0 });
    const docs = await allDocs(es.client, fixture.alias);
    // Every row is enriched: by this run, or carried from the previous index with its inputs
    // unchanged (ingest keeps enrichment results, docs/enrichment.md).
    for (const [id, d] of docs) {
      const carried = enrichedBefore.get(id)?.record.au_availability.checked_at;
      expect([summary.as_of, carried ?? summary.as_of]).toContain(d.record.au_availability.checked_at);
      expect(d.record.au_availability.checked_at).not.toBeNull();
    }
  });

  it('an ingest job that would shrink the catalogue is refused at once, unless allow_shrink says so', async () => {
    const live = await currentIndex(es.client, fixture.alias);
    // 3 good records and 2 broken lines where 300 records are live.
    const lines = (await readFile(fixture.catalogueFile, 'utf8')).split('\n').slice(0, 3);
    const small = join(fixture.dir, 'small.ndjson');
    await writeFile(small, [...lines, '{"not":"a record"}', 'garbage', ''].join('\n'));
    const finished = (jobId: string) => waitForJob(worker.queues.ingest, jobId);
    const refused = await finished(await requestIngest(worker.queues.ingest, { file: small, enrich_after: false }));
    expect(refused.failedReason).toMatch(/^not swapped: 2 of 5 lines were rejected .*; the new index has 3 records, the live one 300/);
    expect(refused.attemptsMade).toBe(1); // not retried: the same file would be refused again
    expect(await currentIndex(es.client, fixture.alias)).toBe(live);
    expect((await es.client.count({ index: fixture.alias })).count).toBe(fixture.count);

    const allowed = await finished(await requestIngest(worker.queues.ingest, { file: small, enrich_after: false, allow_shrink: true }));
    expect(allowed.failedReason).toBeUndefined();
    expect(allowed.returnvalue).toMatchObject({ indexed: 3, skipped: 2 });
    expect((await es.client.count({ index: fixture.alias })).count).toBe(3);
  });
});

describe('failing batches and the nightly schedule', () => {
  let es: TestElasticsearch;
  let redis: TestRedis;
  let fixture: CatalogueFixture;
  let server: Server;
  let aiUrl: string;
  let requests = 0;
  const workers: RunningWorker[] = [];

  beforeAll(async () => {
    es = await testElasticsearch('workerfail');
    redis = await testRedis('workerfail');
    fixture = await catalogueFixture(es, { count: 120, seed: 5 });
    // An OpenAI-compatible endpoint that is down: every batch needing AI work throws.
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        requests++;
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"boom"}}');
      });
    });
    aiUrl = `${await listen(server)}/v1`;
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.close(1_000)));
    await close(server);
    await redis?.cleanup();
    await es?.cleanup();
  });

  it('retries a throwing batch with backoff, then lists it as failed and still finishes the run', async () => {
    const config = testConfig(
      workerEnv(es, redis, fixture, {
        AI_ENRICHER: 'openai',
        AI_BASE_URL: aiUrl,
        ENRICH_ATTEMPTS: '3',
        ENRICH_BATCH_SIZE: '200',
        AI_CONCURRENCY: '1',
      }),
    );
    const worker = await startWorker({ config, logger, redis: redis.connect({ maxRetriesPerRequest: null }), elasticsearch: es.client });
    workers.push(worker);
    const started = Date.now();
    const { runId } = await requestEnrichmentRun(worker.queues.enrichment, { full: false });
    const summary = await waitForRun(worker.runs, runId);
    expect(summary.status).toBe('completed_with_failures');
    expect(summary.batches_total).toBe(1);
    expect(summary.batches_failed).toBe(1);
    expect(summary.failed).toBe(summary.rows_total);
    expect(summary.changed).toBe(0);
    // Three attempts, one request each (the first row fails the batch), 100 ms then 200 ms apart.
    expect(requests).toBe(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    // The processor records the batch's failure (finishing the run) before it throws; BullMQ
    // moves the job to the failed set only after that, so the set may lag the run by a moment.
    const failed = await waitFor(
      async () => {
        const batches = await failedBatches(worker.queues.enrichment);
        return batches.length > 0 ? batches : undefined;
      },
      { description: 'the batch in the failed set' },
    );
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ run_id: runId, batch_no: 0, attempts: 3, reason: 'AI endpoint answered 500' });
    // Nothing was written.
    const docs = await allDocs(es.client, fixture.alias);
    expect([...docs.values()].every((d) => !d.record.provenance_tags.includes('ai_enriched'))).toBe(true);
  });

  it('a run whose planning keeps failing ends failed and frees the slot for the next run', async () => {
    const prefix = `${redis.prefix}noalias`;
    const config = testConfig(workerEnv(es, redis, fixture, { JOBS_PREFIX: prefix, CATALOGUE_ALIAS: es.index('missing') }));
    const worker = await startWorker({ config, logger, redis: redis.connect({ maxRetriesPerRequest: null }), elasticsearch: es.client });
    workers.push(worker);
    const { runId } = await requestEnrichmentRun(worker.queues.enrichment, { full: false });
    const summary = await waitForRun(worker.runs, runId, 30_000); // three attempts, 2 s then 4 s apart
    expect(summary.status).toBe('failed');
    expect(summary.error).toMatch(/index_not_found/);
    expect(await worker.runs.current()).toBeUndefined();
  });

  it('registers exactly one nightly entry however many workers start', async () => {
    const prefix = `${redis.prefix}sched`;
    const env = workerEnv(es, redis, fixture, {
      ENRICH_SCHEDULE_ENABLED: 'true',
      JOBS_PREFIX: prefix,
      ENRICH_CRON: '0 2 * * *',
      ENRICH_TIMEZONE: 'Australia/Sydney',
    });
    const started = await Promise.all(
      [1, 2, 3].map(() =>
        startWorker({ config: testConfig(env), logger, redis: redis.connect({ maxRetriesPerRequest: null }), elasticsearch: es.client }),
      ),
    );
    workers.push(...started);
    const queue = new Queue(QUEUE_NAMES.enrichment, { connection: redis.connect({ maxRetriesPerRequest: null }), prefix });
    try {
      expect(await queue.getJobSchedulersCount()).toBe(1);
      expect(await queue.getDelayedCount()).toBe(1);
      const schedule = await nightlySchedule(queue);
      expect(schedule).toMatchObject({ cron: '0 2 * * *', timezone: 'Australia/Sydney' });
      // 02:00 in Sydney is 15:00 or 16:00 UTC (daylight saving or not).
      expect(new Date(schedule!.next!).getUTCHours()).toBeOneOf([15, 16]);
      // A restarted worker with a new time updates the one entry in place.
      const moved = await startWorker({
        config: testConfig({ ...env, ENRICH_CRON: '30 3 * * *' }),
        logger,
        redis: redis.connect({ maxRetriesPerRequest: null }),
        elasticsearch: es.client,
      });
      workers.push(moved);
      expect(await queue.getJobSchedulersCount()).toBe(1);
      expect((await nightlySchedule(queue))?.cron).toBe('30 3 * * *');
      expect(await queue.getDelayedCount()).toBe(1);
    } finally {
      await queue.close();
    }
  });
});
