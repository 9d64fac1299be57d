import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { createLogger } from '@fragrance/http';
import { createRunStore, enrichmentQueue, requestEnrichmentRun } from '@fragrance/jobs';
import { close, listen, testElasticsearch, testRedis, type TestElasticsearch, type TestRedis } from '@fragrance/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorker, type RunningWorker } from './app.ts';
import { allDocs, catalogueFixture, testConfig, workerEnv, type CatalogueFixture } from './testing/fixtures.ts';
import { waitForRun } from './testing/wait.ts';

const logger = createLogger('worker-test', 'silent');
const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));

/** A slow OpenAI-compatible endpoint: a batch is busy long enough to be interrupted. */
function slowModelServer() {
  const state = { requests: 0, delayMs: 150 };
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      state.requests++;
      const content = JSON.stringify({
        accords: ['woody', 'amber'],
        description: 'A woody amber.',
        seasons: ['autumn'],
        occasions: ['evening'],
      });
      // Slow on purpose (the behaviour under test, not a wait).
      setTimeout(() => {
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ choices: [{ message: { role: 'assistant', content } }] }));
      }, state.delayMs);
    });
  });
  return { server, state };
}

describe('worker processes: SIGKILL mid-run, SIGTERM finishing or handing back', () => {
  let es: TestElasticsearch;
  let redis: TestRedis;
  let fixture: CatalogueFixture;
  let model: ReturnType<typeof slowModelServer>;
  let aiUrl: string;
  const children: ChildProcess[] = [];
  const workers: RunningWorker[] = [];

  beforeAll(async () => {
    es = await testElasticsearch('workerkill');
    redis = await testRedis('workerkill');
    fixture = await catalogueFixture(es, { count: 200, seed: 23 });
    model = slowModelServer();
    aiUrl = `${await listen(model.server)}/v1`;
  });
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await Promise.all(workers.map((w) => w.close(1_000)));
    await close(model.server);
    await redis?.cleanup();
    await es?.cleanup();
  });

  function env(prefix: string, extra: Record<string, string> = {}) {
    return workerEnv(es, redis, fixture, {
      JOBS_PREFIX: prefix,
      AI_ENRICHER: 'openai',
      AI_BASE_URL: aiUrl,
      AI_CONCURRENCY: '2',
      ENRICH_CONCURRENCY: '1',
      ENRICH_BATCH_SIZE: '20',
      LOCK_DURATION_MS: '2000',
      STALLED_INTERVAL_MS: '500',
      ...extra,
    });
  }

  function spawnWorker(childEnv: Record<string, string>): { child: ChildProcess; exited: Promise<number | null> } {
    const child = spawn(process.execPath, [MAIN], {
      env: { PATH: process.env.PATH ?? '', ...childEnv },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    children.push(child);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    return { child, exited };
  }

  it('a worker killed mid-batch loses nothing: another one completes the run, every row enriched once', async () => {
    const prefix = `${redis.prefix}kill`;
    const queue = enrichmentQueue({ connection: redis.connect({ maxRetriesPerRequest: null }), prefix });
    const runs = createRunStore({ redis: redis.redis, prefix });
    try {
      const { child, exited } = spawnWorker(env(prefix));
      await expect.poll(async () => (await queue.getWorkers()).length, { timeout: 30_000, message: 'the child worker' }).toBeGreaterThan(0);
      model.state.requests = 0;
      const { runId } = await requestEnrichmentRun(queue, { full: true });
      // Mid-batch: the child is waiting on the model for its first batch.
      await expect.poll(() => model.state.requests, { timeout: 30_000, message: 'the child to start a batch' }).toBeGreaterThanOrEqual(3);
      child.kill('SIGKILL');
      await exited;
      const interrupted = await runs.get(runId);
      expect(interrupted?.status).toBe('running');
      expect(interrupted!.batches_done).toBeLessThan(interrupted!.batches_total);
      expect(await queue.getActiveCount()).toBe(1); // still locked by the dead worker

      model.state.delayMs = 0;
      const survivor = await startWorker({
        config: testConfig(env(prefix)),
        logger,
        redis: redis.connect({ maxRetriesPerRequest: null }),
        elasticsearch: es.client,
      });
      workers.push(survivor);
      const summary = await waitForRun(runs, runId, 60_000);
      expect(summary).toMatchObject({
        status: 'completed',
        failed: 0,
        rows_total: fixture.count,
        rows_seen: fixture.count,
        batches_failed: 0,
      });
      expect(summary.batches_done).toBe(summary.batches_total);
      expect(summary.changed + summary.unchanged).toBe(fixture.count);

      const docs = await allDocs(es.client, fixture.alias);
      for (const doc of docs.values()) {
        const sources = doc.record.provenance.map((p) => p.source);
        expect(new Set(sources).size).toBe(sources.length); // no source stamped twice
        expect(doc.record.au_availability.checked_at).toBe(summary.as_of); // every row went through a batch
        const ai = doc.record.provenance.find((p) => p.source === 'ai_enriched');
        if (ai) expect(ai.recorded_at).toBe(summary.as_of);
      }
      expect([...docs.values()].filter((d) => d.record.provenance_tags.includes('ai_enriched')).length).toBeGreaterThan(20);
      await survivor.close(1_000);
      workers.splice(workers.indexOf(survivor), 1);
    } finally {
      await queue.close();
    }
  });

  it('SIGTERM lets the in-flight batch finish, then exits 0', async () => {
    const prefix = `${redis.prefix}term`;
    const queue = enrichmentQueue({ connection: redis.connect({ maxRetriesPerRequest: null }), prefix });
    const runs = createRunStore({ redis: redis.redis, prefix });
    try {
      model.state.delayMs = 100;
      const { child, exited } = spawnWorker(env(prefix, { SHUTDOWN_TIMEOUT_MS: '20000' }));
      await expect.poll(async () => (await queue.getWorkers()).length, { timeout: 30_000, message: 'the child worker' }).toBeGreaterThan(0);
      model.state.requests = 0;
      const { runId } = await requestEnrichmentRun(queue, { full: true });
      await expect.poll(() => model.state.requests, { timeout: 30_000, message: 'the child to start a batch' }).toBeGreaterThanOrEqual(2);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      const summary = await runs.get(runId);
      // The batch it was on finished (counted done); nothing failed, nothing left half-done.
      expect(summary!.batches_done).toBeGreaterThanOrEqual(1);
      expect(await queue.getActiveCount()).toBe(0);
      expect(await queue.getFailedCount()).toBe(0);
      expect(await queue.getWaitingCount()).toBe(summary!.batches_total - summary!.batches_done);
    } finally {
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });

  it('SIGTERM past the shutdown timeout hands the in-flight batch back to the queue', async () => {
    const prefix = `${redis.prefix}handback`;
    const queue = enrichmentQueue({ connection: redis.connect({ maxRetriesPerRequest: null }), prefix });
    const runs = createRunStore({ redis: redis.redis, prefix });
    try {
      model.state.delayMs = 2_000;
      const { child, exited } = spawnWorker(env(prefix, { SHUTDOWN_TIMEOUT_MS: '300' }));
      await expect.poll(async () => (await queue.getWorkers()).length, { timeout: 30_000, message: 'the child worker' }).toBeGreaterThan(0);
      model.state.requests = 0;
      const { runId } = await requestEnrichmentRun(queue, { full: true });
      await expect.poll(() => model.state.requests, { timeout: 30_000, message: 'the child to start a batch' }).toBeGreaterThanOrEqual(1);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      const summary = await runs.get(runId);
      // The interrupted batch is back in the queue with the rest: none failed, none lost.
      expect(await queue.getActiveCount()).toBe(0);
      expect(await queue.getFailedCount()).toBe(0);
      const waiting = await queue.getWaitingCount();
      expect(waiting).toBeGreaterThanOrEqual(1);
      expect(waiting).toBe(summary!.batches_total - summary!.batches_done);
    } finally {
      model.state.delayMs = 0;
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });
});
