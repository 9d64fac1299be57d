import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyStore } from '@fragrance/api-keys';
import { testRedis, waitFor, type TestRedis } from '@fragrance/testkit';
import { bearer, close, fakeUpstream, listen, startGateway, type GatewayUnderTest } from './test-support.ts';
import type { Server } from 'node:http';

describe('gateway app', () => {
  let redis: TestRedis;
  let upstream: Server;
  let upstreamUrl: string;
  let gateway: GatewayUnderTest;
  let apiKey: string;

  beforeAll(async () => {
    redis = await testRedis('gateway');
    upstream = fakeUpstream();
    upstreamUrl = await listen(upstream);
    gateway = await startGateway({ redis: redis.redis, prefix: redis.prefix, upstreamUrl });
    ({ apiKey } = await createKeyStore({ redis: redis.redis, prefix: redis.prefix }).create({
      owner: 'app-test',
      quota: 1_000,
      burst: 1_000,
    }));
  });
  afterAll(async () => {
    await gateway.close();
    await close(upstream);
    await redis.cleanup();
  });

  it('is healthy when Redis and the catalogue answer', async () => {
    const res = await fetch(`${gateway.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok', dependencies: { redis: 'up', catalogue: 'up' } });
  });

  it('answers 503 naming the dependency that is down', async () => {
    const deadRedis = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    deadRedis.on('error', () => {});
    const other = await startGateway({ redis: deadRedis, prefix: redis.prefix, upstreamUrl });
    try {
      const res = await fetch(`${other.url}/health`);
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ status: 'degraded', dependencies: { redis: 'down', catalogue: 'up' } });
    } finally {
      await other.close();
      deadRedis.disconnect();
    }
  });

  it('proxies to the catalogue, passing the request id and dropping the credential', async () => {
    const res = await fetch(`${gateway.url}/v1/fragrances?query=rose`, { headers: { 'x-request-id': 'abc-123', ...bearer(apiKey) } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ url: '/v1/fragrances?query=rose', method: 'GET', requestId: 'abc-123', auth: null });
    expect(res.headers.get('x-request-id')).toBe('abc-123');
    expect(res.headers.get('ratelimit-limit')).toBe('1000');
  });

  it('refuses unknown query parameters on /v1/me like every data route (found by the fuzzer)', async () => {
    for (const name of ['page', '__proto__', 'toString']) {
      const res = await fetch(`${gateway.url}/v1/me?${name}=1`, { headers: bearer(apiKey) });
      expect(res.status).toBe(400);
      expect((await res.json()) as object).toMatchObject({ code: 'invalid_parameter', invalid_params: [{ name }] });
    }
  });

  it('serves the OpenAPI document without a key', async () => {
    const res = await fetch(`${gateway.url}/v1/openapi.json`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ url: '/v1/openapi.json' });
  });

  it('turns a stalled upstream into 504 problem+json', async () => {
    const res = await fetch(`${gateway.url}/v1/fragrances/slow`, { headers: bearer(apiKey) });
    expect(res.status).toBe(504);
    expect(res.headers.get('content-type')).toMatch(/problem\+json/);
    expect((await res.json()) as object).toMatchObject({ code: 'upstream_timeout', status: 504 });
  });

  it('turns an unreachable upstream into 503 problem+json, and does not charge for it', async () => {
    const other = await startGateway({ redis: redis.redis, prefix: redis.prefix, upstreamUrl: 'http://127.0.0.1:1' });
    try {
      const { apiKey: fresh } = await createKeyStore({ redis: redis.redis, prefix: redis.prefix }).create({ owner: 'refund', quota: 10 });
      const res = await fetch(`${other.url}/v1/fragrances`, { headers: bearer(fresh) });
      expect(res.status).toBe(503);
      // The request is given back, so the answer does not count it either.
      expect(res.headers.get('ratelimit-remaining')).toBe('10');
      expect((await res.json()) as object).toMatchObject({ code: 'service_unavailable' });
      // The refund follows the response: wait for it rather than for a guessed moment.
      const usedToday = async () =>
        ((await (await fetch(`${other.url}/v1/me`, { headers: bearer(fresh) })).json()) as { used_today: number }).used_today;
      await waitFor(async () => (await usedToday()) === 0, { timeoutMs: 2_000, description: 'used_today back to 0' });
    } finally {
      await other.close();
    }
  });

  it('turns a broken upstream response into 502 problem+json', async () => {
    const { createServer } = await import('node:net');
    const garbage = createServer((socket) => socket.end('this is not HTTP\r\n\r\n'));
    await new Promise<void>((resolve) => garbage.listen(0, '127.0.0.1', resolve));
    const port = (garbage.address() as { port: number }).port;
    const other = await startGateway({ redis: redis.redis, prefix: redis.prefix, upstreamUrl: `http://127.0.0.1:${port}` });
    try {
      const res = await fetch(`${other.url}/v1/fragrances`, { headers: bearer(apiKey) });
      expect(res.status).toBe(502);
      const body = (await res.json()) as Record<string, unknown>;
      expect(body).toMatchObject({ code: 'upstream_error', status: 502 });
      expect(JSON.stringify(body)).not.toMatch(/at .*\.(ts|js):\d+/);
    } finally {
      await other.close();
      garbage.close();
    }
  });

  it('refuses writes on the read-only API with 405, after authenticating', async () => {
    const anonymous = await fetch(`${gateway.url}/v1/fragrances`, { method: 'POST', body: '{}' });
    expect(anonymous.status).toBe(401);
    const res = await fetch(`${gateway.url}/v1/fragrances`, { method: 'DELETE', headers: bearer(apiKey) });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    expect((await res.json()) as object).toMatchObject({ code: 'method_not_allowed' });
  });

  it.each(['/v1/suggest?q=ter', '/v1/brands', '/v1/brands/hermes', '/v1/notes', '/v1/accords', '/v1/perfumers'])(
    'forwards the discovery route %s with a key, counted against the quota like any data request',
    async (path) => {
      expect((await fetch(`${gateway.url}${path}`)).status).toBe(401);
      const first = await fetch(`${gateway.url}${path}`, { headers: bearer(apiKey) });
      expect(first.status).toBe(200);
      expect(await first.json()).toMatchObject({ url: path, auth: null });
      const second = await fetch(`${gateway.url}${path}`, { headers: bearer(apiKey) });
      expect(Number(second.headers.get('ratelimit-remaining'))).toBe(Number(first.headers.get('ratelimit-remaining')) - 1);
      await second.body?.cancel();
    },
  );

  it('answers unknown paths with 404 problem+json (and asks for a key under /v1)', async () => {
    const res = await fetch(`${gateway.url}/nope`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/problem\+json/);
    expect((await fetch(`${gateway.url}/v1/nope`)).status).toBe(401);
    expect((await fetch(`${gateway.url}/v1/nope`, { headers: bearer(apiKey) })).status).toBe(404);
  });
});
