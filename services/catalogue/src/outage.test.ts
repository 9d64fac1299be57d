import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@fragrance/http';
import { bumpCatalogueGeneration, CATALOGUE_GENERATION_HEADER, readCatalogueGeneration } from '@fragrance/response-cache';
import { ingestCatalogue } from '@fragrance/search';
import { makeRecord } from '@fragrance/search/testing';
import {
  close,
  startFaultProxy,
  testElasticsearch,
  testRedis,
  type FaultProxy,
  type TestElasticsearch,
  type TestRedis,
} from '@fragrance/testkit';
import { buildApp } from './app.ts';
import { createElasticsearchBreaker, type ElasticsearchBreaker } from './breaker.ts';
import { CatalogueConfig } from './config.ts';
import { createElasticsearchClient, elasticsearchErrors } from './elasticsearch.ts';

const CURSOR_SECRET = randomBytes(32).toString('base64url');
const STALE_STATUS = /^catalogue;hit;ttl=-\d+;detail=stale-if-error$/;

interface Running {
  url: string;
  proxy: FaultProxy;
  breaker: ElasticsearchBreaker;
}

// The catalogue in process, reaching the shared test Elasticsearch through a TCP proxy whose
// faults the test sets (frozen: nothing answers; refused: a stopped node), and real Redis.
describe('catalogue while Elasticsearch fails (breaker, stale-if-error)', () => {
  let es: TestElasticsearch;
  let redis: TestRedis;
  const servers: Server[] = [];
  const proxies: FaultProxy[] = [];
  const subscribers: Redis[] = [];
  let aliases = 0;

  beforeAll(async () => {
    es = await testElasticsearch('outage');
    redis = await testRedis('outage');
  });
  afterEach(() => {
    for (const proxy of proxies) proxy.set('pass');
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => close(s)));
    await Promise.all(proxies.map((p) => p.close()));
    for (const subscriber of subscribers) subscriber.disconnect();
    await redis.cleanup();
    await es.cleanup();
  });

  const scope = (alias: string) => ({ prefix: redis.prefix.replace(/:$/, ''), alias });

  /** A fresh alias with a few records of its own. */
  async function catalogue(names: string[]): Promise<{ alias: string; ids: string[] }> {
    const alias = es.index(`fragrances-${++aliases}`);
    const records = names.map((name) => makeRecord({ name, brand: 'Outage House' }));
    await ingestCatalogue({ client: es.client, alias, records });
    return { alias, ids: records.map((r) => r.id) };
  }

  /** A catalogue on `alias` through a fault proxy of its own; `cache: false` runs it without the response cache. */
  async function start(alias: string, env: Record<string, string> = {}, { cache = true } = {}): Promise<Running> {
    const proxy = await startFaultProxy(es.url);
    proxies.push(proxy);
    const config = CatalogueConfig.parse({
      ELASTICSEARCH_URL: proxy.url,
      ELASTICSEARCH_TIMEOUT_MS: '300',
      ELASTICSEARCH_BREAKER_THRESHOLD: '2',
      ELASTICSEARCH_BREAKER_HALF_OPEN_MS: '300',
      CATALOGUE_ALIAS: alias,
      CURSOR_SECRET,
      RESPONSE_CACHE_MAX_BYTES: '1000000',
      JOBS_PREFIX: scope(alias).prefix,
      RESPONSE_CACHE_GENERATION_CHECK_MS: '100',
      ...env,
    });
    const logger = createLogger('t', 'silent');
    const breaker = createElasticsearchBreaker(
      { threshold: config.ELASTICSEARCH_BREAKER_THRESHOLD, halfOpenAfterMs: config.ELASTICSEARCH_BREAKER_HALF_OPEN_MS },
      logger,
    );
    const elasticsearch = createElasticsearchClient(config, breaker);
    const subscriber = redis.redis.duplicate();
    subscriber.on('error', () => undefined);
    subscribers.push(subscriber);
    const app = buildApp({ config, logger, elasticsearch, ...(cache ? { redis: redis.redis, subscriber } : {}) });
    const server = app.listen(0, '127.0.0.1');
    servers.push(server);
    await new Promise((r) => server.once('listening', r));
    return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, proxy, breaker };
  }

  /** Sends uncached searches until the breaker opens (each one a failure it counts). */
  async function openBreaker(running: Running): Promise<void> {
    for (let i = 0; i < 10 && running.breaker.state !== 'open'; i++) await fetch(`${running.url}/v1/fragrances?query=nothing${i}`);
    expect(running.breaker.state).toBe('open');
  }

  async function expectUnavailable(res: Response): Promise<void> {
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(((await res.json()) as { code: string }).code).toBe('service_unavailable');
  }

  it('answers 503 with Retry-After without calling a frozen Elasticsearch once the breaker opened, and closes by itself', async () => {
    const { alias } = await catalogue(['Rose Garden']);
    // Open long enough that no probe (the generation's background read) goes out meanwhile.
    const running = await start(alias, { ELASTICSEARCH_BREAKER_HALF_OPEN_MS: '2000' });
    expect((await fetch(`${running.url}/v1/fragrances?query=rose`)).status).toBe(200);
    running.proxy.set('freeze');
    await openBreaker(running);
    const sent = running.proxy.received;
    await expectUnavailable(await fetch(`${running.url}/v1/fragrances?query=tulip`));
    expect(running.proxy.received).toBe(sent); // refused by the breaker: not a byte to Elasticsearch

    running.proxy.set('pass');
    // Half-open after 2 s: one request probes, its success closes the breaker.
    await expect.poll(async () => (await fetch(`${running.url}/v1/fragrances?query=garden`)).status, { timeout: 10_000 }).toBe(200);
    expect(running.breaker.state).toBe('closed');
  });

  it('answers the requests already waiting on a frozen Elasticsearch as soon as the breaker opens', async () => {
    const { alias } = await catalogue(['Rose Garden']);
    // Searches would wait a minute for Elasticsearch; the readiness probes (1 s each) open the breaker.
    // It stays open for the test: a half-open probe (the generation's background read, every 100 ms)
    // would wait that minute too, and the poll below would have to catch the open state in between.
    const running = await start(alias, { ELASTICSEARCH_TIMEOUT_MS: '60000', ELASTICSEARCH_BREAKER_HALF_OPEN_MS: '60000' });
    expect((await fetch(`${running.url}/v1/fragrances?query=rose`)).status).toBe(200);
    running.proxy.set('freeze');
    const waiting = ['iris', 'vetiver', 'amber'].map((query) => fetch(`${running.url}/v1/fragrances?query=${query}`));
    // Each probe's search fails after its 1 s (the instance itself stays ready: it holds a cached answer).
    await expect.poll(async () => (await fetch(`${running.url}/health/ready`), running.breaker.state), { timeout: 10_000 }).toBe('open');
    for (const res of await Promise.all(waiting)) await expectUnavailable(res);
  }, 30_000);

  it('lets one request time out without touching the others in flight (each has its own abort signal)', async () => {
    const { alias } = await catalogue(['Rose Garden']);
    // Without the cache: no generation read of its own that the freeze could hold the search behind.
    const running = await start(alias, { ELASTICSEARCH_TIMEOUT_MS: '60000', ELASTICSEARCH_BREAKER_THRESHOLD: '100' }, { cache: false });
    expect((await fetch(`${running.url}/v1/fragrances?query=rose`)).status).toBe(200);
    running.proxy.set('freeze');
    const sent = running.proxy.received;
    const waiting = fetch(`${running.url}/v1/fragrances?query=garden`);
    await expect.poll(() => running.proxy.received, { timeout: 10_000 }).toBeGreaterThan(sent); // on its way to Elasticsearch
    // The readiness search times out after its own 1 s; the search waiting beside it must not be cut.
    const timeouts = async () =>
      (await elasticsearchErrors.get()).values.filter((v) => v.labels.kind === 'timeout').reduce((sum, v) => sum + v.value, 0);
    const before = await timeouts();
    await fetch(`${running.url}/health/ready`);
    await expect.poll(timeouts, { timeout: 15_000 }).toBeGreaterThan(before);
    running.proxy.set('pass');
    expect((await waiting).status).toBe(200);
  }, 30_000);

  it('serves a cached search and detail stale (Age, Cache-Status) while Elasticsearch is stopped; uncached requests 503', async () => {
    const { alias, ids } = await catalogue(['Rose Garden', 'Oud Night']);
    const running = await start(alias);
    const search = `${running.url}/v1/fragrances?query=rose`;
    const detail = `${running.url}/v1/fragrances/${ids[0] ?? ''}`;
    const fresh = await fetch(search);
    const freshBody = await fresh.text();
    expect(fresh.headers.has('cache-status')).toBe(false);
    expect((await fetch(detail)).status).toBe(200);

    running.proxy.set('refuse');
    // The generation held in process is dropped at the next check (100 ms) that cannot read it.
    await expect.poll(async () => (await fetch(search)).headers.get('cache-status'), { timeout: 15_000 }).toMatch(STALE_STATUS);
    const stale = await fetch(search);
    expect(stale.status).toBe(200);
    expect(await stale.text()).toBe(freshBody);
    expect(stale.headers.get('age')).toMatch(/^\d+$/);
    expect(stale.headers.get('etag')).toBe(fresh.headers.get('etag'));
    // Not marked with the generation: the gateway's edge cache does not keep it as current.
    expect(stale.headers.has(CATALOGUE_GENERATION_HEADER)).toBe(false);
    const staleDetail = await fetch(detail);
    expect([staleDetail.status, staleDetail.headers.get('cache-status')]).toEqual([200, expect.stringMatching(STALE_STATUS)]);
    const revalidated = await fetch(search, { headers: { 'if-none-match': fresh.headers.get('etag') ?? '' } });
    expect([revalidated.status, revalidated.headers.get('cache-status')]).toEqual([304, expect.stringMatching(STALE_STATUS)]);

    await expectUnavailable(await fetch(`${running.url}/v1/fragrances?query=oud`));
    await expectUnavailable(await fetch(`${running.url}/v1/fragrances/${ids[1] ?? ''}`));
    // It can still answer from its cache: it stays in the load balancer.
    expect((await fetch(`${running.url}/health/ready`)).status).toBe(200);

    running.proxy.set('pass');
    await expect.poll(async () => (await fetch(search)).headers.has('cache-status'), { timeout: 10_000 }).toBe(false);
  });

  it('stops serving stale answers RESPONSE_CACHE_STALE_IF_ERROR_SECONDS after the generation was last confirmed', async () => {
    const { alias } = await catalogue(['Rose Garden']);
    const running = await start(alias, { RESPONSE_CACHE_STALE_IF_ERROR_SECONDS: '1' });
    const search = `${running.url}/v1/fragrances?query=rose`;
    expect((await fetch(search)).status).toBe(200);
    running.proxy.set('refuse');
    await expect.poll(async () => (await fetch(search)).status, { timeout: 10_000 }).toBe(503);
    await expectUnavailable(await fetch(search));
    expect((await fetch(`${running.url}/health/ready`)).status).toBe(503);
  });

  it('never serves an answer of the index the alias left: swap announced during the outage', async () => {
    const { alias } = await catalogue(['Rose Garden']);
    const running = await start(alias);
    const search = `${running.url}/v1/fragrances?query=rose`;
    expect((await fetch(search)).status).toBe(200);
    running.proxy.set('refuse');
    await expect.poll(async () => (await fetch(search)).headers.get('cache-status'), { timeout: 15_000 }).toMatch(STALE_STATUS);

    // The swap reaches Elasticsearch (not through the proxy) and is announced, as ingest does.
    await ingestCatalogue({ client: es.client, alias, records: [makeRecord({ name: 'Rose Nouvelle', brand: 'Outage House' })] });
    await bumpCatalogueGeneration(redis.redis, scope(alias));
    await expectUnavailable(await fetch(search));
  });

  it('never serves an answer of the index the alias left: swap seen before the outage (not announced)', async () => {
    const { alias } = await catalogue(['Rose Garden']);
    const running = await start(alias);
    const search = `${running.url}/v1/fragrances?query=rose`;
    expect((await fetch(search)).status).toBe(200);
    const counter = await readCatalogueGeneration(redis.redis, scope(alias));
    await ingestCatalogue({ client: es.client, alias, records: [makeRecord({ name: 'Rose Nouvelle', brand: 'Outage House' })] });
    // The catalogue notices the swap at its next check (100 ms) and bumps the counter; the cached
    // search is still the old index's.
    await expect.poll(() => readCatalogueGeneration(redis.redis, scope(alias)), { timeout: 15_000 }).not.toBe(counter);
    running.proxy.set('refuse');
    await expectUnavailable(await fetch(search));
    await expectUnavailable(await fetch(search));
  });
});
