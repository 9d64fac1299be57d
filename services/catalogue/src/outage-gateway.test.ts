import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyStore } from '@fragrance/api-keys';
import { ingestCatalogue } from '@fragrance/search';
import { makeRecord } from '@fragrance/search/testing';
import {
  freePort,
  startFaultProxy,
  startService,
  testElasticsearch,
  testRedis,
  type FaultProxy,
  type RunningService,
  type TestElasticsearch,
  type TestRedis,
} from '@fragrance/testkit';

const STALE_STATUS = /^catalogue;hit;ttl=-\d+;detail=stale-if-error$/;

// The real processes: a catalogue reaching the shared test Elasticsearch through a fault proxy,
// and two gateways in front of it, one with its edge cache, one without (so the catalogue's own
// stale answers reach the client). Elasticsearch freezes; what is answered is counted, exactly.
describe('gateway and catalogue while Elasticsearch is frozen', () => {
  let es: TestElasticsearch;
  let redis: TestRedis;
  let proxy: FaultProxy;
  let catalogue: RunningService;
  let edge: RunningService;
  let plain: RunningService;
  let apiKey: string;
  const records = [makeRecord({ name: 'Rose Garden', brand: 'Frozen House' }), makeRecord({ name: 'Oud Night', brand: 'Frozen House' })];

  beforeAll(async () => {
    es = await testElasticsearch('outage-gw');
    redis = await testRedis('outage-gw');
    const alias = es.index('fragrances');
    await ingestCatalogue({ client: es.client, alias, records });
    proxy = await startFaultProxy(es.url);
    const shared = { REDIS_URL: redis.url, JOBS_PREFIX: redis.prefix.replace(/:$/, ''), CATALOGUE_ALIAS: alias };
    catalogue = await startService('catalogue', await freePort(), {
      ...shared,
      ELASTICSEARCH_URL: proxy.url,
      ELASTICSEARCH_TIMEOUT_MS: '300',
      ELASTICSEARCH_BREAKER_THRESHOLD: '2',
      ELASTICSEARCH_BREAKER_HALF_OPEN_MS: '500',
      RESPONSE_CACHE_GENERATION_CHECK_MS: '100',
      CURSOR_SECRET: randomBytes(32).toString('base64url'),
    });
    const gateway = { ...shared, REDIS_PREFIX: redis.prefix, CATALOGUE_SERVICE_URL: catalogue.url, UPSTREAM_TIMEOUT_MS: '10000' };
    [edge, plain] = await Promise.all([
      startService('gateway', await freePort(), gateway),
      startService('gateway', await freePort(), { ...gateway, EDGE_CACHE_MAX_BYTES: '0' }),
    ]);
    const store = createKeyStore({ redis: redis.redis, prefix: redis.prefix });
    ({ apiKey } = await store.create({ owner: 'frozen', quota: 10_000, burst: 1_000, refillPerSecond: 1_000 }));
  }, 120_000);
  afterAll(async () => {
    proxy.set('pass');
    await Promise.all([edge.stop(), plain.stop()]);
    await catalogue.stop();
    await proxy.close();
    await redis.cleanup();
    await es.cleanup();
  });

  it('answers warmed requests (edge cache, stale catalogue answers), 503s the rest, and counts exactly what was answered', async () => {
    let answered = 0;
    const get = async (gateway: RunningService, path: string) => {
      const res = await fetch(`${gateway.url}${path}`, { headers: { authorization: `Bearer ${apiKey}` } });
      if (res.status === 200) answered += 1;
      return res;
    };
    const detail = `/v1/fragrances/${records[0]?.id ?? ''}`;
    const search = '/v1/fragrances?query=rose';
    expect((await get(edge, detail)).status).toBe(200);
    expect((await get(plain, search)).status).toBe(200);

    proxy.set('freeze');
    // The edge cache answers from the counter its admission read: no hop to the catalogue.
    expect((await get(edge, detail)).status).toBe(200);
    // The catalogue answers its cached search stale once it cannot confirm the generation.
    await expect.poll(async () => (await get(plain, search)).headers.get('cache-status'), { timeout: 30_000 }).toMatch(STALE_STATUS);
    const stale = await get(plain, search);
    expect([stale.status, stale.headers.get('age')]).toEqual([200, expect.stringMatching(/^\d+$/)]);
    const uncached = await get(plain, '/v1/fragrances?query=oud');
    expect([uncached.status, uncached.headers.get('content-type')]).toEqual([503, expect.stringMatching(/^application\/problem\+json/)]);
    expect(Number(uncached.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await get(edge, detail)).status).toBe(200);

    // Every answered request counted, no refused one: /v1/me counts nothing itself.
    const me = (await (await fetch(`${plain.url}/v1/me`, { headers: { authorization: `Bearer ${apiKey}` } })).json()) as {
      used_today: number;
    };
    expect(me.used_today).toBe(answered);

    proxy.set('pass');
    await expect.poll(async () => (await get(plain, '/v1/fragrances?query=oud')).status, { timeout: 15_000 }).toBe(200);
  }, 60_000);
});
