import { createServer as createNetServer } from 'node:net';
import { Redis } from 'ioredis';
import { describe, expect } from 'vitest';
import { bearer, gatewayTest } from './testing/app.ts';

/** The file's gateway, and a key on it with room for every test. */
const it = gatewayTest.extend('apiKey', { scope: 'file' }, async ({ keys }) => {
  const { apiKey } = await keys.create({ owner: 'app-test', quota: 1_000, burst: 1_000 });
  return apiKey;
});

describe('gateway app', () => {
  it('is healthy when Redis and the catalogue answer', async ({ gateway }) => {
    const res = await fetch(`${gateway.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok', dependencies: { redis: 'up', catalogue: 'up' } });
  });

  it('answers 503 naming the dependency that is down', async ({ startGateway }) => {
    const deadRedis = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    deadRedis.on('error', () => {});
    try {
      const other = await startGateway({ redis: deadRedis });
      const res = await fetch(`${other.url}/health`);
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ status: 'degraded', dependencies: { redis: 'down', catalogue: 'up' } });
    } finally {
      deadRedis.disconnect();
    }
  });

  it('proxies to the catalogue, passing the request id and dropping the credential', async ({ gateway, apiKey }) => {
    const res = await fetch(`${gateway.url}/v1/fragrances?query=rose`, { headers: { 'x-request-id': 'abc-123', ...bearer(apiKey) } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ url: '/v1/fragrances?query=rose', method: 'GET', requestId: 'abc-123', auth: null });
    expect(res.headers.get('x-request-id')).toBe('abc-123');
    expect(res.headers.get('ratelimit-limit')).toBe('1000');
  });

  it('refuses unknown query parameters on /v1/me like every data route (found by the fuzzer)', async ({ gateway, apiKey }) => {
    for (const name of ['page', '__proto__', 'toString']) {
      const res = await fetch(`${gateway.url}/v1/me?${name}=1`, { headers: bearer(apiKey) });
      expect(res.status).toBe(400);
      expect((await res.json()) as object).toMatchObject({ code: 'invalid_parameter', invalid_params: [{ name }] });
    }
  });

  it('serves the OpenAPI document without a key', async ({ gateway }) => {
    const res = await fetch(`${gateway.url}/v1/openapi.json`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ url: '/v1/openapi.json' });
  });

  it('turns a stalled upstream into 504 problem+json', async ({ gateway, apiKey }) => {
    const res = await fetch(`${gateway.url}/v1/fragrances/slow`, { headers: bearer(apiKey) });
    expect(res.status).toBe(504);
    expect(res.headers.get('content-type')).toMatch(/problem\+json/);
    expect((await res.json()) as object).toMatchObject({ code: 'upstream_timeout', status: 504 });
  });

  it('turns an unreachable upstream into 503 problem+json, and does not charge for it', async ({ keys, startGateway }) => {
    const other = await startGateway({ upstreamUrl: 'http://127.0.0.1:1' });
    const { apiKey: fresh } = await keys.create({ owner: 'refund', quota: 10 });
    const res = await fetch(`${other.url}/v1/fragrances`, { headers: bearer(fresh) });
    expect(res.status).toBe(503);
    // The request is given back, so the answer does not count it either.
    expect(res.headers.get('ratelimit-remaining')).toBe('10');
    expect((await res.json()) as object).toMatchObject({ code: 'service_unavailable' });
    // The refund follows the response: wait for it rather than for a guessed moment.
    const usedToday = async () =>
      ((await (await fetch(`${other.url}/v1/me`, { headers: bearer(fresh) })).json()) as { used_today: number }).used_today;
    await expect.poll(usedToday, { timeout: 2_000, message: 'used_today back to 0' }).toBe(0);
  });

  it('turns a broken upstream response into 502 problem+json', async ({ apiKey, startGateway }) => {
    const garbage = createNetServer((socket) => socket.end('this is not HTTP\r\n\r\n'));
    await new Promise<void>((resolve) => garbage.listen(0, '127.0.0.1', resolve));
    const port = (garbage.address() as { port: number }).port;
    try {
      const other = await startGateway({ upstreamUrl: `http://127.0.0.1:${port}` });
      const res = await fetch(`${other.url}/v1/fragrances`, { headers: bearer(apiKey) });
      expect(res.status).toBe(502);
      const body = (await res.json()) as Record<string, unknown>;
      expect(body).toMatchObject({ code: 'upstream_error', status: 502 });
      expect(JSON.stringify(body)).not.toMatch(/at .*\.(ts|js):\d+/);
    } finally {
      garbage.close();
    }
  });

  it('refuses writes on the read-only API with 405, after authenticating', async ({ gateway, apiKey }) => {
    const anonymous = await fetch(`${gateway.url}/v1/fragrances`, { method: 'POST', body: '{}' });
    expect(anonymous.status).toBe(401);
    const res = await fetch(`${gateway.url}/v1/fragrances`, { method: 'DELETE', headers: bearer(apiKey) });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    expect((await res.json()) as object).toMatchObject({ code: 'method_not_allowed' });
  });

  it.for(['/v1/suggest?q=ter', '/v1/brands', '/v1/brands/hermes', '/v1/notes', '/v1/accords', '/v1/perfumers'])(
    'forwards the discovery route %s with a key, counted against the quota like any data request',
    async (path, { gateway, apiKey }) => {
      expect((await fetch(`${gateway.url}${path}`)).status).toBe(401);
      const first = await fetch(`${gateway.url}${path}`, { headers: bearer(apiKey) });
      expect(first.status).toBe(200);
      expect(await first.json()).toMatchObject({ url: path, auth: null });
      const second = await fetch(`${gateway.url}${path}`, { headers: bearer(apiKey) });
      expect(Number(second.headers.get('ratelimit-remaining'))).toBe(Number(first.headers.get('ratelimit-remaining')) - 1);
      await second.body?.cancel();
    },
  );

  it('answers unknown paths with 404 problem+json (and asks for a key under /v1)', async ({ gateway, apiKey }) => {
    const res = await fetch(`${gateway.url}/nope`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/problem\+json/);
    expect((await fetch(`${gateway.url}/v1/nope`)).status).toBe(401);
    expect((await fetch(`${gateway.url}/v1/nope`, { headers: bearer(apiKey) })).status).toBe(404);
  });
});
