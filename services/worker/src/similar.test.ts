import { randomBytes } from 'node:crypto';
import { Client } from '@elastic/elasticsearch';
import { createLogger } from '@fragrance/http';
import { requestEnrichmentRun, requestIngest } from '@fragrance/jobs';
import { bumpSimilarGeneration, createCatalogueRepository, currentIndex } from '@fragrance/search';
import { testElasticsearch, testRedis, type TestElasticsearch, type TestRedis } from '@fragrance/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorker, type RunningWorker } from './app.ts';
import { startSimilarRefresher, type SimilarRefresher } from './similar.ts';
import { allDocs, catalogueFixture, testConfig, workerEnv, type CatalogueFixture } from './testing/fixtures.ts';
import { waitForJob, waitForRun } from './testing/wait.ts';

const logger = createLogger('worker-test', 'silent');

interface Generations {
  generations?: Record<string, string>;
  complete?: Record<string, string>;
}

// The materialised similar lists end to end: a pass at start, stale after an enrichment run's
// writes, computed again once the run has finished, and used by the catalogue's repository.
describe('materialised similar lists kept current by the worker (real Redis and Elasticsearch)', () => {
  let es: TestElasticsearch;
  let redis: TestRedis;
  let fixture: CatalogueFixture;
  let worker: RunningWorker;
  let refresher: SimilarRefresher;
  let counted: Client;
  const paths: string[] = [];

  beforeAll(async () => {
    es = await testElasticsearch('worker-similar');
    redis = await testRedis('worker-similar');
    fixture = await catalogueFixture(es, { count: 200, seed: 38 });
    const config = testConfig(workerEnv(es, redis, fixture));
    refresher = startSimilarRefresher({
      elasticsearch: es.client,
      alias: fixture.alias,
      logger,
      ratePerSecond: 0,
      redis: redis.redis,
      jobsPrefix: redis.prefix.replace(/:$/, ''),
    });
    worker = await startWorker({
      config,
      logger,
      redis: redis.connect({ maxRetriesPerRequest: null }),
      elasticsearch: es.client,
      similar: refresher,
    });
    counted = new Client({ node: es.url });
    counted.diagnostic.on('request', (_error, event) => {
      if (event) paths.push(event.meta.request.params.path);
    });
  });
  afterAll(async () => {
    await refresher?.stop();
    await worker?.close(1_000);
    await counted?.close();
    await redis?.cleanup();
    await es?.cleanup();
  });

  const generations = async (): Promise<Generations> =>
    (await es.client.get<Generations>({ index: `${fixture.alias}-similar`, id: 'generation' }))._source ?? {};
  /** Whether every list of `index` was computed against its current generation (the mark is `<format>:<generation>`). */
  const computed = (g: Generations, index: string) =>
    g.generations?.[index] !== undefined && g.complete?.[index]?.endsWith(`:${g.generations[index]}`) === true;

  it('computes every list at start, recomputes them after a run that wrote, and answers from them', async () => {
    const index = (await currentIndex(es.client, fixture.alias))!;
    refresher.request('test start');
    await refresher.idle();
    const first = await generations();
    expect(first.generations?.[index]).toBeDefined();
    expect(computed(first, index)).toBe(true);
    await es.client.indices.refresh({ index: `${fixture.alias}-similar` });
    expect((await es.client.count({ index: `${fixture.alias}-similar`, query: { term: { index } } })).count).toBe(fixture.count);

    // Records without accords before the run: the AI enricher fills them in.
    const before = await allDocs(es.client, fixture.alias);
    const bare = [...before.values()].find((d) => d.record.accords.length === 0 && d.record.notes.top.length > 0)!;
    expect(bare).toBeDefined();

    const repo = createCatalogueRepository({
      client: counted,
      alias: fixture.alias,
      cursorKeys: { current: randomBytes(32).toString('base64url') },
    });
    const answered = async (id: string) => {
      paths.length = 0;
      const answer = await repo.similar(id, 10, {});
      return { answer, live: paths.some((p) => p.endsWith('/_search') || p.includes('_termvectors')) };
    };
    // Once the repository's rarity table is loaded, the stored lists answer.
    await expect.poll(async () => (await answered(bare.id)).live, { timeout: 10_000 }).toBe(false);
    const beforeRun = (await answered(bare.id)).answer!;
    expect(beforeRun.every((a) => a.reasons.shared_accords.length + a.reasons.shared_main_accords.length === 0)).toBe(true);

    const summary = await waitForRun(worker.runs, (await requestEnrichmentRun(worker.queues.enrichment, { full: false })).runId);
    expect(summary.changed).toBeGreaterThan(0);
    // The run's batches gave the index a new generation: the lists computed at start are stale.
    expect((await generations()).generations?.[index]).not.toBe(first.generations?.[index]);
    // The run's end asked for a pass; once it is done the lists are current again and answer.
    await expect.poll(async () => computed(await generations(), index), { timeout: 30_000 }).toBe(true);
    await refresher.idle();
    const after = await answered(bare.id);
    expect(after.live).toBe(false);
    // The source now has accords, and its stored alternatives are computed from them.
    expect(after.answer!.some((a) => a.reasons.shared_accords.length + a.reasons.shared_main_accords.length > 0)).toBe(true);
  });

  it('computes the lists of the new index an ingest swaps in, with no run after it', async () => {
    const before = (await currentIndex(es.client, fixture.alias))!;
    const job = await waitForJob(
      worker.queues.ingest,
      await requestIngest(worker.queues.ingest, { file: fixture.catalogueFile, enrich_after: false }),
    );
    expect(job.returnvalue).toMatchObject({ indexed: fixture.count });
    const index = (await currentIndex(es.client, fixture.alias))!;
    expect(index).not.toBe(before);
    await expect.poll(async () => computed(await generations(), index), { timeout: 30_000 }).toBe(true);
    await refresher.idle();
    await es.client.indices.refresh({ index: `${fixture.alias}-similar` });
    expect((await es.client.count({ index: `${fixture.alias}-similar`, query: { term: { index } } })).count).toBe(fixture.count);
  });

  it('resumes a pass a restart cut short: the next worker computes only the lists not yet current', async () => {
    await refresher.idle();
    const index = (await currentIndex(es.client, fixture.alias))!;
    // A write makes every list stale, then a worker starts a pass and is stopped part way (a
    // rolling restart), and its successor takes the pass up.
    await bumpSimilarGeneration(es.client, fixture.alias, [index]);
    const stopAfter = Math.floor(fixture.count / 2);
    /** A refresher of its own, with a client counting each record's computation (its pool search). */
    const worker = (onComputation: (count: number) => void) => {
      const client = new Client({ node: es.url });
      const counts = { computations: 0 };
      client.diagnostic.on('request', (_error, event) => {
        const params = event?.meta.request.params;
        if (params?.path !== `/${index}/_search` || !JSON.stringify(params.querystring ?? '').includes('matched_queries')) return;
        counts.computations += 1;
        onComputation(counts.computations);
      });
      const started = startSimilarRefresher({
        elasticsearch: client,
        alias: fixture.alias,
        logger,
        ratePerSecond: 0,
        redis: redis.redis,
        jobsPrefix: redis.prefix.replace(/:$/, ''),
      });
      return { refresher: started, client, counts };
    };
    const stopped = worker((count) => {
      if (count === stopAfter) void stopped.refresher.stop();
    });
    const successor = worker(() => undefined);
    try {
      stopped.refresher.request('test: before the restart');
      // Ends once the stop the counter asks for has ended the pass.
      await stopped.refresher.idle();
      expect(stopped.counts.computations).toBe(stopAfter);
      expect(computed(await generations(), index)).toBe(false);

      successor.refresher.request('test: after the restart');
      await successor.refresher.idle();
      expect(successor.counts.computations).toBe(fixture.count - stopAfter);
      expect(computed(await generations(), index)).toBe(true);
    } finally {
      for (const w of [stopped, successor]) {
        await w.refresher.stop();
        await w.client.close();
      }
    }
  });
});
