import { createHash, randomBytes } from 'node:crypto';
import type { TransportRequestParams } from '@elastic/elasticsearch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCatalogueRepository, ingestCatalogue } from '@fragrance/search';
import { makeRecord } from '@fragrance/search/testing';
import { testElasticsearch, type TestElasticsearch } from '@fragrance/testkit';
import { createElasticsearchClient } from './elasticsearch.ts';
import { PreserialisedSerializer, shardPreference, withShardPreference } from './shard-preference.ts';

describe('withShardPreference', () => {
  const preferenceOf = (params: TransportRequestParams) =>
    new URLSearchParams(params.querystring as Record<string, string>).get('preference');
  const search = (body: Record<string, unknown>, querystring?: Record<string, string>) =>
    preferenceOf(withShardPreference({ method: 'POST', path: '/fragrances/_search', body, ...(querystring ? { querystring } : {}) }));

  it('gives every page of one query the same preference, another query another', () => {
    const query = { match: { name: 'rose' } };
    const first = search({ query, size: 20 });
    expect(first).toMatch(/^q[\w-]{16}$/);
    expect(search({ query, from: 20, size: 20, aggs: { brands: { terms: { field: 'brand' } } } })).toBe(first);
    expect(search({ query, size: 20, search_after: [1.5, 'x'] })).toBe(first);
    expect(search({ query: { match: { name: 'oud' } }, size: 20 })).not.toBe(first);
    expect(preferenceOf(withShardPreference({ method: 'POST', path: '/other/_search', body: { query } }))).not.toBe(first);
  });

  it('keeps a preference the caller set and leaves other APIs alone', () => {
    expect(search({ query: { match_all: {} } }, { preference: '_local' })).toBe('_local');
    const serialised = withShardPreference({ method: 'GET', path: '/fragrances/_search', querystring: 'size=0&preference=_local' });
    expect(serialised.querystring).toBe('size=0&preference=_local');
    const added = withShardPreference({ method: 'GET', path: '/fragrances/_search', querystring: 'size=0' });
    expect(new URLSearchParams(added.querystring as string).get('preference')).toMatch(/^q/);
    const get = { method: 'GET', path: '/fragrances/_doc/1' };
    expect(withShardPreference(get)).toBe(get);
  });

  it('hashes what it hashed before: the path and the scoring parts as one JSON array, else the whole body', () => {
    // The preference as first written (createHash over the path, a newline and that JSON), so one query keeps its copies across versions.
    const reference = (path: string, text: string) =>
      `q${createHash('sha256').update(path).update('\n').update(text).digest('base64url').slice(0, 16)}`;
    const query = { bool: { should: [{ match: { name: 'rosé' } }], filter: [] } };
    const knn = { field: 'embedding.vector', k: 10, num_candidates: 50, query_vector: [0.25, -1, 3e-7] };
    expect(shardPreference('/f/_search', { query, size: 10, sort: ['_score'] })).toBe(
      reference('/f/_search', JSON.stringify([query, null, null, null, null])),
    );
    expect(shardPreference('/f/_search', { size: 1, knn, query, rescore: null, rank: undefined })).toBe(
      reference('/f/_search', JSON.stringify([query, knn, null, null, null])),
    );
    expect(shardPreference('/f/_search', { size: 0, aggs: { a: { terms: { field: 'b' } } } })).toBe(
      reference('/f/_search', JSON.stringify({ size: 0, aggs: { a: { terms: { field: 'b' } } } })),
    );
    expect(shardPreference('/f/_search', null)).toBe(reference('/f/_search', 'null'));
    expect(shardPreference('/f/_search', '{"query":{}}')).toBe(reference('/f/_search', '{"query":{}}'));
  });

  it('has a search body serialised once: the client sends the text the preference was computed on, byte for byte', () => {
    const serializer = new PreserialisedSerializer();
    const body = {
      query: { match: { name: 'l\u2019eau "n°5"' } },
      size: 20,
      skipped: undefined,
      sort: [{ 'rating.count': 'desc' }],
      at: new Date(0),
    };
    withShardPreference({ method: 'POST', path: '/fragrances/_search', body });
    expect(serializer.serialize(body)).toBe(JSON.stringify(body));
    // Taken once: changed and sent again without being pinned (a caller's preference), it is serialised afresh.
    body.size = 40;
    withShardPreference({ method: 'POST', path: '/fragrances/_search', body, querystring: { preference: '_local' } });
    expect(serializer.serialize(body)).toBe(JSON.stringify(body));
  });

  it('pins each search of an msearch as it would pin that search alone', () => {
    const a = { query: { match: { name: 'rose' } }, size: 0 };
    const b = { query: { match: { name: 'oud' } }, size: 0 };
    const pinned = withShardPreference({ method: 'POST', path: '/fragrances/_msearch', bulkBody: [{}, a, { preference: 'mine' }, b] });
    expect(pinned.bulkBody).toEqual([{ preference: shardPreference('/fragrances/_search', a) }, a, { preference: 'mine' }, b]);
  });
});

// Against the real Elasticsearch: the catalogue's searches carry the preference on the wire and are answered.
describe('the catalogue client pins its searches', () => {
  let es: TestElasticsearch;
  let alias: string;

  beforeAll(async () => {
    es = await testElasticsearch('preference');
    alias = es.index(`fragrances-${randomBytes(3).toString('hex')}`);
    const records = ['Rose Noir', 'Rose Blanche', 'Rose Ambre', 'Oud Royal'].map((name) => makeRecord({ name, brand: 'Pinned House' }));
    await ingestCatalogue({ client: es.client, alias, records });
  });
  afterAll(async () => {
    await es.cleanup();
  });

  it('sends the same preference for every page of a query, and one per search of an msearch', async () => {
    const client = createElasticsearchClient({ ELASTICSEARCH_URL: es.url, ELASTICSEARCH_TIMEOUT_MS: 10_000 });
    const sent: { path: string; querystring: string; body: string; status: number | null }[] = [];
    client.diagnostic.on('response', (_error, result) => {
      const request = result?.meta.request.params;
      if (request)
        sent.push({
          path: request.path,
          querystring: request.querystring ?? '',
          body: typeof request.body === 'string' ? request.body : '',
          status: result.statusCode,
        });
    });
    const repository = createCatalogueRepository({ client, alias, cursorKeys: { current: randomBytes(32).toString('base64url') } });

    const first = await repository.search({ query: 'rose', limit: 2 });
    const second = await repository.search({ query: 'rose', limit: 2, offset: 2 });
    expect(first.total).toBe(3);
    expect([...first.data, ...second.data].map((hit) => hit.name).sort()).toEqual(['Rose Ambre', 'Rose Blanche', 'Rose Noir']);
    const searches = sent.filter((r) => r.path.endsWith('/_search'));
    const preferences = searches.map((r) => new URLSearchParams(r.querystring).get('preference'));
    expect(preferences.length).toBeGreaterThanOrEqual(2);
    expect(new Set(preferences).size).toBe(1);
    expect(preferences[0]).toMatch(/^q/);
    // Each search body went out as the JSON its preference was computed on.
    expect(searches.every((r) => r.status === 200 && (JSON.parse(r.body) as { query?: unknown }).query !== undefined)).toBe(true);

    // A word nothing matches: the catalogue relaxes the query with an msearch of counts.
    sent.length = 0;
    const relaxed = await repository.search({ query: 'rose zzqx', limit: 2 });
    expect(relaxed.total).toBe(3);
    const multi = sent.filter((r) => r.path.endsWith('/_msearch'));
    expect(multi.length).toBeGreaterThan(0);
    for (const request of multi) {
      expect(request.status).toBe(200);
      const headers = request.body
        .trim()
        .split('\n')
        .filter((_, i) => i % 2 === 0)
        .map((line) => JSON.parse(line) as { preference?: string });
      expect(headers.every((header) => header.preference?.startsWith('q'))).toBe(true);
    }
  });

  it('leaves a point-in-time search unpinned: Elasticsearch refuses a preference there, and the PIT fixes the copies', async () => {
    const client = createElasticsearchClient({ ELASTICSEARCH_URL: es.url, ELASTICSEARCH_TIMEOUT_MS: 10_000 });
    const pit = await client.openPointInTime({ index: alias, keep_alive: '1m' });
    try {
      const page = await client.search({ pit: { id: pit.id, keep_alive: '1m' }, size: 10, sort: ['_shard_doc'] });
      expect(page.hits.hits).toHaveLength(4);
    } finally {
      await client.closePointInTime({ id: pit.id });
    }
  });
});
