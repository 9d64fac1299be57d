import { createServer, request as httpRequest, type Server } from 'node:http';
import { describe, expect } from 'vitest';
import { FragranceDetail, MeResponse, SearchResponse } from '@fragrance/contracts';
import { bumpCatalogueGeneration } from '@fragrance/response-cache';
import { currentIndex, ingestCatalogue } from '@fragrance/search';
import { makeRecord } from '@fragrance/search/testing';
import { close, listen } from '@fragrance/testkit';
import { edgeCacheBytes, edgeCacheEntries } from './metrics.ts';
import { bearer } from './testing/app.ts';
import { catalogueGatewayTest, gatewayInFrontOf } from './testing/catalogue.ts';

/** Sits between the gateway and the catalogue and counts the requests that reach the catalogue, by target. */
async function countingRelay(target: string): Promise<{ url: string; server: Server; seen: (url: string) => number }> {
  const counts = new Map<string, number>();
  const server = createServer((req, res) => {
    counts.set(req.url ?? '', (counts.get(req.url ?? '') ?? 0) + 1);
    const upstream = httpRequest(`${target}${req.url ?? ''}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  return { url: await listen(server), server, seen: (url) => counts.get(url) ?? 0 };
}

/** Headers that belong to one exchange (or count the quota down): the only ones a cached answer may differ in. */
const EXCHANGE = new Set(['date', 'x-request-id', 'ratelimit', 'ratelimit-remaining', 'ratelimit-reset', 'keep-alive', 'connection']);
const answerHeaders = (res: Response) => [...res.headers].filter(([name]) => !EXCHANGE.has(name)).sort();

const rose = (n: number) => makeRecord({ name: `Rose Garden ${n}`, brand: 'Edge House', votes: 100 + n });

const records = [rose(1), rose(2), rose(3)];

const it = catalogueGatewayTest
  .extend('catalogueRecords', { scope: 'file' }, records)
  // A swap made by hand is noticed within this (the edge test below waits up to 3 s).
  .extend('catalogueEnv', { scope: 'file' }, { RESPONSE_CACHE_GENERATION_CHECK_MS: '100' })
  .extend('relay', { scope: 'file' }, async ({ catalogue }, { onCleanup }) => {
    const relay = await countingRelay(catalogue.url);
    onCleanup(() => close(relay.server));
    return relay;
  })
  .extend('gatewayOptions', { scope: 'file' }, ({ catalogue, relay }) => ({ ...gatewayInFrontOf(catalogue), upstreamUrl: relay.url }))
  // Bursts far above the default: every test here sends dozens of requests at once.
  .extend('apiKey', { scope: 'file' }, async ({ keys }) => {
    const { apiKey } = await keys.create({ owner: 'edge-cache', quota: 100_000, burst: 10_000, refillPerSecond: 10_000 });
    return apiKey;
  })
  .extend(
    'get',
    { scope: 'file' },
    ({ gateway, apiKey }) =>
      (path: string, headers: Record<string, string> = {}) =>
        fetch(`${gateway.url}${path}`, { headers: { ...bearer(apiKey), ...headers } }),
  )
  .extend('searches', { scope: 'file' }, ({ es, catalogue }) => async () => {
    const stats = await es.client.indices.stats({ index: catalogue.alias, metric: 'search' });
    return stats._all.primaries?.search?.query_total ?? 0;
  });

const names = async (res: Response) => SearchResponse.parse(await res.json()).data.map((d) => d.name);

// Real gateway, real catalogue (its own process, its own response cache), real Redis and
// Elasticsearch; a counting relay between the two shows which requests reached the catalogue.
// The first test waits for the catalogue process too.
describe('edge cache (gateway)', { timeout: 120_000 }, () => {
  it('answers a repeated search and detail at the edge, byte for byte, each one admitted and counted', async ({ gateway, keys, relay }) => {
    const { apiKey: counted } = await keys.create({ owner: 'edge-billing', quota: 100 });
    for (const path of ['/v1/fragrances?query=rose%20garden&limit=2', `/v1/fragrances/${records[0]?.id ?? ''}`]) {
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await fetch(`${gateway.url}${path}`, { headers: bearer(counted) }));
      expect(answers.map((r) => r.status)).toEqual([200, 200, 200]);
      expect(relay.seen(path)).toBe(1); // the second and third never left the gateway
      const [first, ...rest] = await Promise.all(
        answers.map(async (r) => ({ headers: answerHeaders(r), body: Buffer.from(await r.arrayBuffer()) })),
      );
      for (const other of rest) {
        expect(other.body.equals(first!.body)).toBe(true);
        expect(other.headers).toEqual(first!.headers);
      }
      // The catalogue's caching headers pass through; its internal generation header does not.
      expect(answers[0]?.headers.get('etag')).toMatch(/^"/);
      expect(answers[0]?.headers.get('cache-control')).toBe('private, max-age=0, must-revalidate');
      expect(answers.some((r) => r.headers.has('x-catalogue-generation'))).toBe(false);
    }
    const me = MeResponse.parse(await (await fetch(`${gateway.url}/v1/me`, { headers: bearer(counted) })).json());
    expect(me.used_today).toBe(6);
  });

  it('answers If-None-Match with 304 at the edge, counted, and 200 when the tag is another', async ({ get, relay }) => {
    const path = `/v1/fragrances/${records[1]?.id ?? ''}`;
    const first = await get(path);
    const etag = first.headers.get('etag') ?? '';
    const remaining = Number(first.headers.get('ratelimit-remaining'));
    const revalidated = await get(path, { 'if-none-match': etag });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get('etag')).toBe(etag);
    expect(revalidated.headers.get('cache-control')).toBe('private, max-age=0, must-revalidate');
    expect(revalidated.headers.has('content-type')).toBe(false);
    expect(Number(revalidated.headers.get('ratelimit-remaining'))).toBe(remaining - 1);
    expect((await get(path, { 'if-none-match': '"something-else"' })).status).toBe(200);
    expect(relay.seen(path)).toBe(1);
  });

  it('passes a revalidation of an answer it does not hold to the catalogue, and keeps nothing of its 304', async ({
    catalogue,
    get,
    relay,
  }) => {
    const path = `/v1/fragrances/${records[0]?.id ?? ''}/similar`;
    const etag = (await fetch(`${catalogue.url}${path}`)).headers.get('etag') ?? '';
    expect(etag).toMatch(/^"/);
    const revalidated = await get(path, { 'if-none-match': etag });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get('etag')).toBe(etag);
    expect(relay.seen(path)).toBe(1);
    const full = await get(path);
    expect(full.status).toBe(200);
    expect(full.headers.get('etag')).toBe(etag);
    expect(relay.seen(path)).toBe(2); // the 304 had no body to keep
    expect((await get(path)).status).toBe(200);
    expect(relay.seen(path)).toBe(2);
  });

  it('sends 50 concurrent requests for a cold key to the catalogue (and Elasticsearch) once', async ({ get, relay, searches }) => {
    const path = '/v1/fragrances?query=garden&limit=3';
    const before = await searches();
    const answers = await Promise.all(Array.from({ length: 50 }, () => get(path)));
    expect(answers.map((r) => r.status)).toEqual(Array.from({ length: 50 }, () => 200));
    const bodies = new Set(await Promise.all(answers.map((r) => r.text())));
    expect(bodies.size).toBe(1);
    expect(relay.seen(path)).toBe(1);
    expect(await searches()).toBe(before + 1);
    // Each was admitted on its own: 50 distinct counts of the quota.
    expect(new Set(answers.map((r) => r.headers.get('ratelimit-remaining'))).size).toBe(50);
  });

  it('shows an enrichment change on the very next request once its batch bumps the generation', async ({ es, redis, catalogue, get }) => {
    const id = records[2]?.id ?? '';
    const path = `/v1/fragrances/${id}`;
    const description = async () => FragranceDetail.parse(await (await get(path)).json()).description;
    expect(await description()).toBeNull();
    expect(await description()).toBeNull();
    // What an enrichment batch does: write, make it searchable, then bump the generation.
    const index = (await currentIndex(es.client, catalogue.alias)) ?? '';
    await es.client.update({ index, id, doc: { description: 'Petals at the edge.' }, refresh: true });
    expect(await description()).toBeNull(); // not bumped yet: the cached answer
    await bumpCatalogueGeneration(redis.redis, catalogue.scope);
    // No waiting: the edge reads the counter with the admission and tells the catalogue which one it saw.
    expect(await description()).toBe('Petals at the edge.');
    expect(await description()).toBe('Petals at the edge.');
  });

  it('serves a new index on the very next request after an ingest announces its swap', async ({ es, redis, catalogue, get }) => {
    const path = '/v1/fragrances?query=rose%20garden';
    const before = await names(await get(path));
    expect(await names(await get(path))).toEqual(before);
    await ingestCatalogue({
      client: es.client,
      alias: catalogue.alias,
      records: [...records, rose(4)],
      afterSwap: () => bumpCatalogueGeneration(redis.redis, catalogue.scope),
    });
    expect(await names(await get(path))).toContain('Rose Garden 4');
  });

  it('serves a swap nobody announced once a catalogue notices it (its check interval)', async ({ es, catalogue, get }) => {
    const path = '/v1/fragrances?query=rose%20garden&limit=20';
    expect(await names(await get(path))).not.toContain('Rose Garden 5');
    await ingestCatalogue({ client: es.client, alias: catalogue.alias, records: [...records, rose(4), rose(5)] });
    await expect.poll(async () => names(await get(path)), { timeout: 3_000, interval: 20 }).toContain('Rose Garden 5');
  });

  it('keeps nothing the catalogue does not mark as cacheable: errors, 404s, HEAD', async ({ gateway, apiKey, get, relay }) => {
    const missing = '/v1/fragrances/00000000-0000-4000-8000-000000000000';
    expect((await get(missing)).status).toBe(404);
    expect((await get(missing)).status).toBe(404);
    expect(relay.seen(missing)).toBe(2);
    const bad = '/v1/fragrances?limit=0';
    expect((await get(bad)).status).toBe(400);
    expect((await get(bad)).status).toBe(400);
    expect(relay.seen(bad)).toBe(2);
    const head = `/v1/fragrances/${records[0]?.id ?? ''}`;
    const seen = relay.seen(head);
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${gateway.url}${head}`, { method: 'HEAD', headers: bearer(apiKey) });
      expect(res.status).toBe(200);
      expect(res.headers.has('x-catalogue-generation')).toBe(false);
    }
    expect(relay.seen(head) - seen).toBe(2);
  });

  it('keeps nothing when its generation key is not the catalogue’s (another JOBS_PREFIX)', async ({
    catalogue,
    apiKey,
    relay,
    startGateway,
  }) => {
    const other = await startGateway({ env: { JOBS_PREFIX: `${catalogue.scope.prefix}-other` } });
    const path = '/v1/fragrances?query=rose&limit=4';
    for (let i = 0; i < 3; i++) expect((await fetch(`${other.url}${path}`, { headers: bearer(apiKey) })).status).toBe(200);
    expect(relay.seen(path)).toBe(3);
  });

  it('keeps no answer that varies by request headers or belongs to one client', async ({ apiKey, startGateway }) => {
    // A stand-in catalogue that marks its answers with the counter, as the real one does, and adds one header each time.
    const asked = new Map<string, number>();
    const extras: Record<string, [string, string]> = {
      '/v1/fragrances?q=vary': ['vary', 'accept-encoding'],
      '/v1/fragrances?q=encoding': ['content-encoding', 'identity'],
      '/v1/fragrances?q=cookie': ['set-cookie', 'session=1'],
      '/v1/fragrances?q=plain': ['x-plain', 'yes'],
    };
    const standIn = createServer((req, res) => {
      if (req.url === '/health') return void res.end('ok');
      asked.set(req.url ?? '', (asked.get(req.url ?? '') ?? 0) + 1);
      const [name, value] = extras[req.url ?? ''] ?? ['x-none', ''];
      res.setHeader(name, value);
      res.setHeader('etag', '"stand-in"');
      res.setHeader('x-catalogue-generation', String(req.headers['x-catalogue-generation']));
      res.setHeader('content-type', 'application/json');
      res.end('{"data":[]}');
    });
    const standInUrl = await listen(standIn);
    const other = await startGateway({ upstreamUrl: standInUrl });
    try {
      for (const path of Object.keys(extras)) {
        for (let i = 0; i < 2; i++) expect((await fetch(`${other.url}${path}`, { headers: bearer(apiKey) })).status).toBe(200);
      }
      expect(Object.fromEntries(asked)).toEqual({
        '/v1/fragrances?q=vary': 2,
        '/v1/fragrances?q=encoding': 2,
        '/v1/fragrances?q=cookie': 2,
        '/v1/fragrances?q=plain': 1,
      });
    } finally {
      await close(standIn);
    }
  });

  it('does not queue requests behind one another for an answer they cannot share', async ({ catalogue, apiKey, startGateway }) => {
    // A popular 404 (the real catalogue, Elasticsearch behind it): every request needs its own
    // answer. A relay in front of the catalogue holds each request until `gate` of them are in
    // flight (or 3 s pass), then lets them all through.
    const path = '/v1/fragrances/00000000-0000-4000-8000-00000000abcd';
    let gate = 1;
    let inFlight = 0;
    let mostInFlight = 0;
    let asked = 0;
    const waiting: (() => void)[] = [];
    const holdingRelay = createServer((req, res) => {
      if (req.url === '/health') return void res.end('ok');
      asked++;
      mostInFlight = Math.max(mostInFlight, ++inFlight);
      waiting.push(() => {
        const upstream = httpRequest(`${catalogue.url}${req.url ?? ''}`, { method: req.method, headers: req.headers }, (answer) => {
          inFlight--;
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        });
        upstream.on('error', () => res.destroy());
        upstream.end();
      });
      const timer = setTimeout(() => waiting.splice(0).forEach((go) => go()), 3_000);
      if (waiting.length >= gate) {
        clearTimeout(timer);
        waiting.splice(0).forEach((go) => go());
      }
    });
    const relayUrl = await listen(holdingRelay);
    const other = await startGateway({ upstreamUrl: relayUrl });
    try {
      expect((await fetch(`${other.url}${path}`, { headers: bearer(apiKey) })).status).toBe(404);
      gate = 5;
      mostInFlight = 0;
      const burst = await Promise.all(Array.from({ length: 5 }, () => fetch(`${other.url}${path}`, { headers: bearer(apiKey) })));
      expect(burst.map((res) => res.status)).toEqual([404, 404, 404, 404, 404]);
      // All five reached the catalogue together: none waited for another's answer first.
      expect(asked).toBe(6);
      expect(mostInFlight).toBe(5);
    } finally {
      await close(holdingRelay);
    }
  });

  it('never holds more bytes than EDGE_CACHE_MAX_BYTES', async ({ apiKey, startGateway }) => {
    const small = await startGateway({ env: { EDGE_CACHE_MAX_BYTES: '6000' } });
    const gauge = async (metric: typeof edgeCacheBytes) => (await metric.get()).values[0]?.value ?? 0;
    for (let limit = 1; limit <= 30; limit++) {
      const res = await fetch(`${small.url}/v1/fragrances?query=rose&limit=${limit}`, { headers: bearer(apiKey) });
      expect(res.status).toBe(200);
      expect(await gauge(edgeCacheBytes)).toBeLessThanOrEqual(6000);
    }
    expect(await gauge(edgeCacheEntries)).toBeGreaterThan(0);
  });
});
