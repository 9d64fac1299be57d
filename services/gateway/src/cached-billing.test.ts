import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyStore, type KeyStore } from '@fragrance/api-keys';
import { MeResponse } from '@fragrance/contracts';
import { ingestCatalogue } from '@fragrance/search';
import { makeRecord } from '@fragrance/search/testing';
import {
  freePort,
  startService,
  testElasticsearch,
  testRedis,
  type RunningService,
  type TestElasticsearch,
  type TestRedis,
} from '@fragrance/testkit';
import { bearer, startGateway, type GatewayUnderTest } from './test-support.ts';

// The catalogue's response cache sits behind the edge: a cached answer is still admitted and
// counted here. Real gateway, real catalogue (child process), real Redis and Elasticsearch.
describe('billing of answers the catalogue serves from its cache', () => {
  let es: TestElasticsearch;
  let redis: TestRedis;
  let catalogue: RunningService;
  let gateway: GatewayUnderTest;
  let store: KeyStore;
  let alias: string;

  beforeAll(async () => {
    es = await testElasticsearch('gw-cache');
    redis = await testRedis('gw-cache');
    alias = es.index('fragrances');
    await ingestCatalogue({ client: es.client, alias, records: [makeRecord({ name: 'Vetiver Sky', brand: 'Test House' })] });
    catalogue = await startService('catalogue', await freePort(), {
      ELASTICSEARCH_URL: es.url,
      REDIS_URL: redis.url,
      JOBS_PREFIX: redis.prefix.replace(/:$/, ''),
      CATALOGUE_ALIAS: alias,
      CURSOR_SECRET: randomBytes(32).toString('base64url'),
      // Lexical only: the hybrid default's vector-readiness counts would add to the searches counted below.
      EMBEDDINGS_ENABLED: 'false',
    });
    gateway = await startGateway({
      redis: redis.redis,
      prefix: redis.prefix,
      upstreamUrl: catalogue.url,
      env: { UPSTREAM_TIMEOUT_MS: '5000' },
    });
    store = createKeyStore({ redis: redis.redis, prefix: redis.prefix });
  }, 90_000);
  afterAll(async () => {
    await gateway.close();
    await catalogue.stop();
    await redis.cleanup();
    await es.cleanup();
  });

  const searches = async () => {
    const stats = await es.client.indices.stats({ index: alias, metric: 'search' });
    return stats._all.primaries?.search?.query_total ?? 0;
  };

  it('counts every cached answer and its 304 against the quota, with the same headers', async () => {
    const { apiKey } = await store.create({ owner: 'cache-billing', quota: 10 });
    const path = `${gateway.url}/v1/fragrances?query=vetiver`;
    const before = await searches();
    const responses = [];
    for (let i = 0; i < 3; i++) responses.push(await fetch(path, { headers: bearer(apiKey) }));
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(await searches()).toBe(before + 1); // the second and third came from the cache
    expect(responses.map((r) => r.headers.get('ratelimit-remaining'))).toEqual(['9', '8', '7']);
    const etag = responses[0]?.headers.get('etag') ?? '';
    expect(responses.map((r) => r.headers.get('etag'))).toEqual([etag, etag, etag]);

    const revalidated = await fetch(path, { headers: { ...bearer(apiKey), 'if-none-match': etag } });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get('ratelimit-remaining')).toBe('6');

    const me = MeResponse.parse(await (await fetch(`${gateway.url}/v1/me`, { headers: bearer(apiKey) })).json());
    expect(me.used_today).toBe(4);
  });
});
