import { describe, expect } from 'vitest';
import { parseList } from 'structured-headers';
import { Problem, UsageResponse } from '@fragrance/contracts';
import { bearer, gatewayTest } from './testing/app.ts';

// Publishable keys (fcs_pk_…) and CORS on the read endpoints, against a real Redis: what a page
// may reach, from which origins, the per-visitor limit, and secret keys sent from a page.
const SHOP = 'https://shop.example';
const READ_PATHS = [
  '/v1/fragrances?query=rose&facets=brand',
  '/v1/fragrances/abc',
  '/v1/fragrances/abc/similar',
  '/v1/suggest?q=ro',
  '/v1/brands',
  '/v1/brands/acme',
  '/v1/notes',
  '/v1/accords',
  '/v1/perfumers',
];

const it = gatewayTest
  // Visitors are told apart by X-Forwarded-For from the test (a proxy on loopback).
  .extend(
    'gatewayOptions',
    { scope: 'file' },
    {
      env: { UPSTREAM_TIMEOUT_MS: '10000', TRUST_PROXY: 'loopback', PUBLISHABLE_MAX_LIMIT: '40' },
    },
  )
  .extend(
    'get',
    { scope: 'file' },
    ({ gateway }) =>
      (path: string, headers: Record<string, string> = {}) =>
        fetch(`${gateway.url}${path}`, { headers }),
  )
  .extend(
    'publishable',
    { scope: 'file' },
    ({ keys }) =>
      (
        origins = [SHOP, 'https://*.shop.example'],
        extra: { visitorBurst?: number; visitorRefillPerSecond?: number; quota?: number } = {},
      ) =>
        keys.create({ owner: 'Shop', quota: extra.quota ?? 10_000, kind: 'publishable', origins, ...extra }),
  );

describe('publishable keys and CORS at the edge (real Redis)', () => {
  async function refusal(res: Response, status: number, code: string): Promise<Problem> {
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const problem = Problem.parse(await res.json());
    expect(problem).toMatchObject({ status, code });
    return problem;
  }

  it('answers the preflight of every read endpoint without a key', async ({ gateway }) => {
    for (const path of READ_PATHS) {
      const res = await fetch(`${gateway.url}${path}`, {
        method: 'OPTIONS',
        headers: { origin: SHOP, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
      });
      expect(res.status, path).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(SHOP);
      expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
      expect(res.headers.get('access-control-allow-methods')).toBe('GET,HEAD');
      expect(res.headers.get('access-control-max-age')).toBe('7200');
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
      expect(res.headers.get('vary')).toMatch(/\bOrigin\b/);
    }
  });

  it('serves the read endpoints to an allowed origin, exposing the quota headers, and counts each', async ({ keys, get, publishable }) => {
    const { apiKey, record } = await publishable();
    for (const path of READ_PATHS) {
      const res = await get(path, { ...bearer(apiKey), origin: SHOP });
      expect(res.status, path).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe(SHOP);
      expect(res.headers.get('vary')).toMatch(/\bOrigin\b/);
      const exposed = (res.headers.get('access-control-expose-headers') ?? '').split(',');
      for (const name of ['RateLimit', 'RateLimit-Policy', 'RateLimit-Remaining', 'Retry-After']) expect(exposed).toContain(name);
      expect(res.headers.get('ratelimit-limit')).toBe('10000');
    }
    // The key's own meter, which billing reads and the owner's secret key reads through /v1/usage.
    expect(await keys.usedToday(record.id, 'UTC')).toBe(READ_PATHS.length);
    const server = await keys.create({ owner: 'Shop', quota: 10 });
    const usage = await get(`/v1/usage?key_id=${record.id}`, bearer(server.apiKey));
    expect(usage.status).toBe(200);
    expect(UsageResponse.parse(await usage.json())).toMatchObject({ key_id: record.id, owner: 'Shop', total: READ_PATHS.length });
    const stranger = await keys.create({ owner: 'Someone else', quota: 10 });
    const refused = await refusal(await get(`/v1/usage?key_id=${record.id}`, bearer(stranger.apiKey)), 400, 'invalid_parameter');
    expect(refused.invalid_params?.[0]?.name).toBe('key_id');
    await refusal(await get('/v1/usage?key_id=key_0000000000000000', bearer(server.apiKey)), 400, 'invalid_parameter');
    // One wildcard label, and Referer when there is no Origin.
    expect((await get('/v1/suggest?q=ro', { ...bearer(apiKey), origin: 'https://eu.shop.example' })).status).toBe(200);
    expect((await get('/v1/suggest?q=ro', { ...bearer(apiKey), referer: 'https://shop.example/search?q=x' })).status).toBe(200);
  });

  it('refuses other origins, no origin and the wildcard edge cases with 403 origin_not_allowed, counting nothing', async ({
    keys,
    upstream,
    get,
    publishable,
  }) => {
    const { apiKey, record } = await publishable();
    const before = upstream.requests.length;
    for (const origin of [
      'https://a.b.shop.example', // a label too many
      'http://eu.shop.example', // another scheme
      'https://eu.shop.example:8443', // a port
      'https://shop.example:8443',
      'http://shop.example',
      'https://evilshop.example',
      'https://shop.example.evil',
      'null',
    ]) {
      const res = await get('/v1/fragrances?query=rose', { ...bearer(apiKey), origin });
      // The page can read why: the refusal carries CORS headers too.
      expect(res.headers.get('access-control-allow-origin')).toBe(origin);
      const problem = await refusal(res, 403, 'origin_not_allowed');
      expect(problem.detail).toContain(origin);
    }
    const none = await refusal(await get('/v1/fragrances?query=rose', bearer(apiKey)), 403, 'origin_not_allowed');
    expect(none.detail).toMatch(/no Origin/);
    expect(upstream.requests.length).toBe(before);
    expect(await keys.usedToday(record.id, 'UTC')).toBe(0);
  });

  it('refuses export, usage and /v1/me with 403 endpoint_not_allowed, counting nothing', async ({ keys, get, publishable }) => {
    const { apiKey, record } = await publishable();
    for (const path of ['/v1/fragrances/export', '/v1/usage', '/v1/usage/searches', '/v1/me']) {
      const problem = await refusal(await get(path, { ...bearer(apiKey), origin: SHOP }), 403, 'endpoint_not_allowed');
      expect(problem.detail).toMatch(/secret key/);
    }
    expect(await keys.usedToday(record.id, 'UTC')).toBe(0);
  });

  it('caps limit for publishable keys (400 naming limit), not for secret keys', async ({ keys, get, publishable }) => {
    const { apiKey } = await publishable();
    expect((await get('/v1/fragrances?limit=40', { ...bearer(apiKey), origin: SHOP })).status).toBe(200);
    const problem = await refusal(await get('/v1/fragrances?li%6Dit=41', { ...bearer(apiKey), origin: SHOP }), 400, 'invalid_parameter');
    expect(problem.invalid_params).toEqual([{ name: 'limit', reason: 'must be at most 40 with a publishable key' }]);
    const own = await keys.create({ kind: 'publishable', owner: 'Shop', quota: 100, origins: [SHOP], maxLimit: 10 });
    expect((await get('/v1/suggest?limit=11', { ...bearer(own.apiKey), origin: SHOP })).status).toBe(400);
    const secret = await keys.create({ owner: 'Server', quota: 100 });
    expect((await get('/v1/fragrances?limit=100', bearer(secret.apiKey))).status).toBe(200);
  });

  it('limits each visitor (key + client address) with 429 visitor_limit_exceeded, others unaffected', async ({ get, publishable }) => {
    // A bucket that does not refill while the test runs: at the default 5 a second, four requests
    // slower than 200 ms on a loaded machine would find a token again.
    const { apiKey } = await publishable([SHOP], { visitorBurst: 3, visitorRefillPerSecond: 0.001 });
    const from = (address: string) => get('/v1/suggest?q=ro', { ...bearer(apiKey), origin: SHOP, 'x-forwarded-for': address });
    for (let i = 0; i < 3; i += 1) expect((await from('203.0.113.7')).status).toBe(200);
    const res = await from('203.0.113.7');
    const problem = await refusal(res, 429, 'visitor_limit_exceeded');
    expect(problem.retry_after_seconds).toBeGreaterThanOrEqual(1);
    expect(res.headers.get('retry-after')).toBe(String(problem.retry_after_seconds));
    expect(parseList(res.headers.get('ratelimit') ?? '')[0]?.[0]).toBe('visitor');
    expect(res.headers.get('access-control-allow-origin')).toBe(SHOP);
    expect((await from('198.51.100.1')).status).toBe(200);
    // One IPv6 subscriber is one visitor: its /64.
    for (let i = 0; i < 3; i += 1) expect((await from(`2001:db8:1:2::${i + 1}`)).status).toBe(200);
    expect((await from('2001:db8:1:2:ffff::9')).status).toBe(429);
  });

  it('keeps the daily quota exact while 1,000 requests race, a limited visitor among them', async ({ keys, get }) => {
    const { apiKey, record } = await keys.create({
      kind: 'publishable',
      owner: 'Shop',
      quota: 250,
      origins: [SHOP],
      visitorBurst: 60,
      visitorRefillPerSecond: 0.001,
    });
    const from = (address: string) => get('/v1/fragrances?query=rose', { ...bearer(apiKey), origin: SHOP, 'x-forwarded-for': address });
    // One visitor has spent its bucket already (and it does not refill during the test).
    const greedy = '192.0.2.99';
    for (let i = 0; i < 60; i += 1) expect((await from(greedy)).status).toBe(200);
    // Half the race is the greedy visitor, the other half ten visitors well inside their buckets.
    const results = await Promise.all(
      Array.from({ length: 1_000 }, async (_, i) => {
        const address = i % 2 === 0 ? greedy : `198.51.100.${i % 20}`;
        const res = await from(address);
        const body = (await res.json()) as { code?: string; retry_after_seconds?: number };
        return { address, status: res.status, code: body.code, retry: body.retry_after_seconds };
      }),
    );
    // 60 before the race: the race gets exactly the 190 left, none of them the greedy visitor's.
    expect(results.filter((r) => r.status === 200)).toHaveLength(190);
    expect(results.filter((r) => r.status === 429)).toHaveLength(810);
    expect(results.some((r) => r.status === 200 && r.address === greedy)).toBe(false);
    const codes = new Set(results.filter((r) => r.status === 429).map((r) => r.code));
    expect(codes).toEqual(new Set(['daily_quota_exceeded', 'visitor_limit_exceeded']));
    expect(results.every((r) => r.status === 200 || (r.retry ?? 0) >= 1)).toBe(true);
    expect(await keys.usedToday(record.id, 'UTC')).toBe(250);
  });

  it('refuses a secret key sent from a foreign page (403, counted nowhere) but not from its own pages', async ({
    keys,
    upstream,
    gateway,
    get,
  }) => {
    const { apiKey, record } = await keys.create({ owner: 'Leaky', quota: 100 });
    const before = upstream.requests.length;
    for (const path of ['/v1/fragrances?query=rose', '/v1/me', '/v1/usage', '/v1/fragrances/export']) {
      const res = await get(path, { ...bearer(apiKey), origin: SHOP });
      const problem = await refusal(res, 403, 'secret_key_in_browser');
      expect(problem.detail).toMatch(/roll/i);
      expect(problem.detail).not.toContain(apiKey);
    }
    expect(upstream.requests.length).toBe(before);
    expect(await keys.usedToday(record.id, 'UTC')).toBe(0);
    expect((await keys.get(record.id)).lastUsedAt).toBeUndefined();
    // The edge's own pages (the /docs "try it") and servers (no Origin) are fine.
    const host = new URL(gateway.url).host;
    expect((await get('/v1/fragrances?query=rose', { ...bearer(apiKey), origin: `http://${host}` })).status).toBe(200);
    expect((await get('/v1/fragrances?query=rose', bearer(apiKey))).status).toBe(200);
    expect(await keys.usedToday(record.id, 'UTC')).toBe(2);
  });

  it('keeps server-to-server answers free of CORS headers but marks them Vary: Origin', async ({ keys, gateway, get }) => {
    const { apiKey } = await keys.create({ owner: 'Server', quota: 100 });
    const res = await get('/v1/fragrances?query=rose', bearer(apiKey));
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.headers.get('vary')).toMatch(/\bOrigin\b/);
    // A bare OPTIONS (not a preflight) is still a data route's 405 after the key check.
    expect((await fetch(`${gateway.url}/v1/fragrances`, { method: 'OPTIONS', headers: bearer(apiKey) })).status).toBe(405);
  });
});
