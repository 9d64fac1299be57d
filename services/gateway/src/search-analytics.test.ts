import { createServer } from 'node:http';
import { describe, expect } from 'vitest';
import { createKeyStore } from '@fragrance/api-keys';
import { createFragranceClient } from '@fragrance/client';
import { MeResponse, Problem, SearchUsageResponse } from '@fragrance/contracts';
import { SEARCH_OUTCOME_HEADER, searchAnalyticsKeys } from '@fragrance/search-analytics';
import { makeRecord } from '@fragrance/search/testing';
import { close, listen, waitFor } from '@fragrance/testkit';
import { bearer, captureLogs, startGatewayApp, type GatewayUnderTest } from './testing/app.ts';
import { catalogueGatewayTest, gatewayInFrontOf } from './testing/catalogue.ts';

const TODAY = '2026-03-10';
const clock = () => Date.parse(`${TODAY}T12:00:00Z`);

/**
 * The file's catalogue and gateway on the fake clock, `keys` on it too; `standIn`, a gateway in
 * front of a stand-in catalogue that states any outcome, logging to `standInLogs`.
 */
const it = catalogueGatewayTest
  .extend(
    'catalogueRecords',
    { scope: 'file' },
    [1, 2, 3].map((n) => makeRecord({ name: `Rose Garden ${n}`, brand: 'Analytics House', votes: 100 + n })),
  )
  .extend('gatewayOptions', { scope: 'file' }, ({ catalogue }) => ({ ...gatewayInFrontOf(catalogue), clock }))
  .extend('keys', { scope: 'file' }, ({ redis }) => createKeyStore({ redis: redis.redis, prefix: redis.prefix, clock }))
  .extend('standInLogs', { scope: 'file' }, () => captureLogs('gateway'))
  .extend('standIn', { scope: 'file' }, async ({ redis, standInLogs }, { onCleanup }) => {
    const upstream = createServer((req, res) => {
      const query = new URL(req.url ?? '/', 'http://x').searchParams.get('query') ?? '';
      res.setHeader('content-type', 'application/json');
      res.setHeader(SEARCH_OUTCOME_HEADER, query.includes('toilette') ? 'total=4; relaxed=1' : 'total=2; relaxed=0');
      res.end('{}');
    });
    const gateway = await startGatewayApp({
      redisUrl: redis.url,
      prefix: redis.prefix,
      upstreamUrl: await listen(upstream),
      clock,
      logger: standInLogs.logger,
    });
    onCleanup(async () => {
      await gateway.close();
      await close(upstream);
    });
    return gateway;
  });

// Real gateway (with and without its edge cache), real catalogue process, real Redis and Elasticsearch.
// The first test waits for the catalogue process too.
describe('search analytics through the gateway (real catalogue)', { timeout: 120_000 }, () => {
  const report = async (gateway: GatewayUnderTest, apiKey: string, query = '') => {
    const res = await fetch(`${gateway.url}/v1/usage/searches${query}`, { headers: bearer(apiKey) });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    return SearchUsageResponse.parse(await res.json());
  };
  /** Counting happens after the answer: wait until the owner's day shows `searches`. */
  const settled = async (gateway: GatewayUnderTest, apiKey: string, searches: number) =>
    waitFor(async () => {
      const body = await report(gateway, apiKey);
      return body.searches >= searches ? body : undefined;
    });

  for (const edge of [true, false]) {
    it(`counts each answered text search for the key's owner and strips the internal header (edge cache ${edge ? 'on' : 'off'})`, async ({
      keys,
      gateway: withEdge,
      startGateway,
    }) => {
      const gateway = edge ? withEdge : await startGateway({ env: { EDGE_CACHE_MAX_BYTES: '0' } });
      const newKey = async (owner: string) => (await keys.create({ owner, quota: 1_000, burst: 1_000 })).apiKey;
      const owner = `Shop ${edge ? 'A' : 'B'}`;
      const [first, second] = [await newKey(owner), await newKey(owner)];
      const other = await newKey(`${owner} (other)`);
      const get = (path: string, apiKey = first, init: RequestInit = {}) =>
        fetch(`${gateway.url}${path}`, { ...init, headers: { ...bearer(apiKey), ...(init.headers as Record<string, string>) } });
      const answers: Response[] = [];
      const send = async (path: string, apiKey?: string, init?: RequestInit) => {
        const res = await get(path, apiKey, init);
        answers.push(res);
        await res.arrayBuffer();
        return res;
      };

      // Three times the same text (spelt three ways; the edge answers the repeats itself), from two keys of the owner.
      const found = await send('/v1/fragrances?query=Rose%20Garden&limit=1');
      expect(found.status).toBe(200);
      await send('/v1/fragrances?query=Rose%20Garden&limit=1');
      await send('/v1/fragrances?query=ROSE+garden!&limit=1', second);
      // A revalidation (304) is a search too.
      const revalidated = await send('/v1/fragrances?query=Rose%20Garden&limit=1', first, {
        headers: { 'if-none-match': found.headers.get('etag') ?? '' },
      });
      expect(revalidated.status).toBe(304);
      // Nothing found, twice.
      for (let i = 0; i < 2; i++) expect((await send('/v1/fragrances?query=qqqqxxxxzzzz')).status).toBe(200);
      // Not counted: no text, an empty text, a refused request, HEAD, other routes, another owner's key.
      expect((await send('/v1/fragrances?limit=1')).status).toBe(200);
      expect((await send('/v1/fragrances?query=')).status).toBe(200);
      expect((await send('/v1/fragrances?query=rose&limit=0')).status).toBe(400);
      expect((await send('/v1/fragrances?query=rose&query=oud')).status).toBe(400);
      expect((await send('/v1/fragrances?query=rose%20garden', first, { method: 'HEAD' })).status).toBe(200);
      expect((await send('/v1/suggest?q=rose')).status).toBe(200);
      await send('/v1/fragrances?query=vetiver', other);

      // The catalogue's internal header never reaches a client.
      for (const res of answers) expect(res.headers.has(SEARCH_OUTCOME_HEADER), res.url).toBe(false);

      const body = await settled(gateway, second, 6);
      expect(body).toEqual({
        owner,
        time_zone: 'UTC',
        day: TODAY,
        searches: 6,
        zero_results: 2,
        relaxed: 0,
        limit: 20,
        top_queries: [
          { query: 'rose garden', count: 4 },
          { query: 'qqqqxxxxzzzz', count: 2 },
        ],
        zero_result_queries: [{ query: 'qqqqxxxxzzzz', count: 2 }],
        relaxed_queries: [],
      });
      // The other owner sees only its own.
      expect((await settled(gateway, other, 1)).top_queries).toEqual([{ query: 'vetiver', count: 1 }]);
      // Reading the report is free: the second key, which read it, was charged its one search only.
      expect(MeResponse.parse(await (await get('/v1/me', second)).json()).used_today).toBe(1);
    });
  }

  it('answers GET /v1/usage/searches for a day and a limit, and refuses bad ones with problem+json naming them', async ({
    keys,
    gateway: withEdge,
  }) => {
    const { apiKey } = await keys.create({ owner: 'Shop C', quota: 1_000, burst: 1_000 });
    for (const query of ['rose garden', 'rose garden', 'garden']) {
      expect((await fetch(`${withEdge.url}/v1/fragrances?query=${encodeURIComponent(query)}`, { headers: bearer(apiKey) })).status).toBe(
        200,
      );
    }
    await settled(withEdge, apiKey, 3);
    expect((await report(withEdge, apiKey, '?limit=1')).top_queries).toEqual([{ query: 'rose garden', count: 2 }]);
    // As a customer calls it, with the project's own client.
    const client = createFragranceClient({ baseUrl: `${withEdge.url}/v1`, apiKey });
    expect(await client.searchUsage({ day: TODAY, limit: 2 })).toMatchObject({
      searches: 3,
      top_queries: [
        { query: 'rose garden', count: 2 },
        { query: 'garden', count: 1 },
      ],
    });
    expect(await report(withEdge, apiKey, `?day=${TODAY}&limit=100`)).toMatchObject({ day: TODAY, limit: 100, searches: 3 });
    // The oldest day kept is still served (empty).
    expect(await report(withEdge, apiKey, '?day=2026-02-04')).toMatchObject({ day: '2026-02-04', searches: 0, top_queries: [] });
    for (const [query, name] of [
      ['?day=2026-03-11', 'day'],
      ['?day=2026-02-03', 'day'],
      ['?day=2026-02-30', 'day'],
      ['?day=yesterday', 'day'],
      ['?limit=0', 'limit'],
      ['?limit=101', 'limit'],
      ['?limit=ten', 'limit'],
      ['?day=2026-03-10&day=2026-03-09', 'day'],
      ['?owner=someone', 'owner'],
    ] as const) {
      const res = await fetch(`${withEdge.url}/v1/usage/searches${query}`, { headers: bearer(apiKey) });
      expect(res.status, query).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const problem = Problem.parse(await res.json());
      expect(problem.code, query).toBe('invalid_parameter');
      expect(
        problem.invalid_params?.map((p) => p.name),
        query,
      ).toContain(name);
    }
    expect((await fetch(`${withEdge.url}/v1/usage/searches`)).status).toBe(401);
    expect((await fetch(`${withEdge.url}/v1/usage/searches`, { method: 'POST', headers: bearer(apiKey) })).status).toBe(405);
    // Three searches counted; none of the reads.
    expect(MeResponse.parse(await (await fetch(`${withEdge.url}/v1/me`, { headers: bearer(apiKey) })).json()).used_today).toBe(3);
  });
});

// A stand-in catalogue that states any outcome: a relaxed search, and counting that fails.
describe('search analytics through the gateway (stand-in catalogue)', () => {
  it('counts a relaxed search among the relaxed ones', async ({ keys, standIn: gateway }) => {
    const { apiKey } = await keys.create({ owner: 'Relaxed Ltd', quota: 100 });
    for (const query of ['Cerruti Image eau de toilette', 'cerruti image']) {
      const res = await fetch(`${gateway.url}/v1/fragrances?query=${encodeURIComponent(query)}`, { headers: bearer(apiKey) });
      expect(res.status).toBe(200);
      expect(res.headers.has(SEARCH_OUTCOME_HEADER)).toBe(false);
    }
    const body = await waitFor(async () => {
      const res = await fetch(`${gateway.url}/v1/usage/searches`, { headers: bearer(apiKey) });
      const parsed = SearchUsageResponse.parse(await res.json());
      return parsed.searches === 2 ? parsed : undefined;
    });
    expect(body).toMatchObject({
      searches: 2,
      zero_results: 0,
      relaxed: 1,
      relaxed_queries: [{ query: 'cerruti image eau de toilette', count: 1 }],
    });
  });

  it('answers as usual when counting fails, and logs the failure with neither the key nor the query', async ({
    redis,
    keys,
    standIn: gateway,
    standInLogs: logs,
  }) => {
    const { apiKey } = await keys.create({ owner: 'Broken Counters', quota: 100 });
    // A key of the wrong type where the owner's sorted set belongs: the counting script fails.
    await redis.redis.set(searchAnalyticsKeys(redis.prefix).top(TODAY, 'Broken Counters'), 'not a sorted set');
    const res = await fetch(`${gateway.url}/v1/fragrances?query=secret%20garden%20query`, { headers: bearer(apiKey) });
    expect(res.status).toBe(200);
    expect(res.headers.has(SEARCH_OUTCOME_HEADER)).toBe(false);
    const line = await waitFor(() => logs.lines.find((l) => l.includes('could not count a search')));
    expect(line).not.toContain(apiKey);
    expect(line).not.toContain('"query"');
  });
});
