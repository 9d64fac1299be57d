import { describe, expect } from 'vitest';
import { MeResponse } from '@fragrance/contracts';
import { makeRecord } from '@fragrance/search/testing';
import { bearer } from './testing/app.ts';
import { catalogueGatewayTest, gatewayInFrontOf } from './testing/catalogue.ts';

const it = catalogueGatewayTest
  .extend('catalogueRecords', { scope: 'file' }, [makeRecord({ name: 'Vetiver Sky', brand: 'Test House' })])
  // No edge cache: it would answer the repeats before the catalogue's cache is asked.
  .extend('gatewayOptions', { scope: 'file' }, ({ catalogue }) => gatewayInFrontOf(catalogue, { EDGE_CACHE_MAX_BYTES: '0' }));

// The catalogue's response cache sits behind the edge: a cached answer is still admitted and
// counted here. Real gateway, real catalogue (child process), real Redis and Elasticsearch.
// The first test waits for the catalogue process too.
describe('billing of answers the catalogue serves from its cache', { timeout: 120_000 }, () => {
  it('counts every cached answer and its 304 against the quota, with the same headers', async ({ es, catalogue, gateway, keys }) => {
    const searches = async () => {
      const stats = await es.client.indices.stats({ index: catalogue.alias, metric: 'search' });
      return stats._all.primaries?.search?.query_total ?? 0;
    };
    const { apiKey } = await keys.create({ owner: 'cache-billing', quota: 10 });
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
