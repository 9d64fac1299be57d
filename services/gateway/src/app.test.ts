import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@fragrance/http';
import { testRedis, type TestRedis } from '@fragrance/testkit';
import { buildApp } from './app.ts';
import { GatewayConfig } from './config.ts';
import { createUpstreamAgent } from './proxy.ts';

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A stand-in upstream that echoes what the gateway forwarded, or stalls when asked. */
function fakeUpstream(): Server {
  return createServer((req, res) => {
    if (req.url === '/health') return void res.end('ok');
    if (req.url?.startsWith('/v1/fragrances/slow')) return; // never answers
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ url: req.url, requestId: req.headers['x-request-id'], auth: req.headers.authorization ?? null }));
  });
}

describe('gateway app', () => {
  let redisFixture: TestRedis;
  let upstream: Server;
  let gateway: Server;
  let base: string;
  let upstreamUrl: string;
  const logger = createLogger('gateway-test', 'silent');

  async function start(overrides: Record<string, string>, redis: Redis): Promise<{ server: Server; url: string }> {
    const config = GatewayConfig.parse({ CATALOGUE_SERVICE_URL: upstreamUrl, UPSTREAM_TIMEOUT_MS: '300', ...overrides });
    const server = createServer(buildApp({ config, logger, redis, agents: { catalogue: createUpstreamAgent() } }));
    return { server, url: await listen(server) };
  }

  beforeAll(async () => {
    redisFixture = await testRedis('gateway');
    upstream = fakeUpstream();
    upstreamUrl = await listen(upstream);
    ({ server: gateway, url: base } = await start({}, redisFixture.redis));
  });
  afterAll(async () => {
    gateway.closeAllConnections();
    gateway.close();
    upstream.closeAllConnections();
    upstream.close();
    await redisFixture.cleanup();
  });

  it('is healthy when Redis and the catalogue answer', async () => {
    const res = await fetch(`${base}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok', dependencies: { redis: 'up', catalogue: 'up' } });
  });

  it('answers 503 naming the dependency that is down', async () => {
    const deadRedis = new Redis('redis://127.0.0.1:1', { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
    const { server, url } = await start({}, deadRedis);
    try {
      const res = await fetch(`${url}/health`);
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ status: 'degraded', dependencies: { redis: 'down', catalogue: 'up' } });
    } finally {
      server.close();
      deadRedis.disconnect();
    }
  });

  it('proxies to the catalogue, passing the request id and dropping the credential', async () => {
    const res = await fetch(`${base}/v1/fragrances?query=rose`, {
      headers: { 'x-request-id': 'abc-123', authorization: 'Bearer secret' },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ url: '/v1/fragrances?query=rose', requestId: 'abc-123', auth: null });
    expect(res.headers.get('x-request-id')).toBe('abc-123');
  });

  it('turns a stalled upstream into 504 problem+json', async () => {
    const res = await fetch(`${base}/v1/fragrances/slow`);
    expect(res.status).toBe(504);
    expect(res.headers.get('content-type')).toMatch(/problem\+json/);
    expect((await res.json()) as object).toMatchObject({ code: 'upstream_timeout', status: 504 });
  });

  it('turns an unreachable upstream into 503 problem+json', async () => {
    const { server, url } = await start({ CATALOGUE_SERVICE_URL: 'http://127.0.0.1:1' }, redisFixture.redis);
    try {
      const res = await fetch(`${url}/v1/fragrances`);
      expect(res.status).toBe(503);
      expect((await res.json()) as object).toMatchObject({ code: 'service_unavailable' });
    } finally {
      server.close();
    }
  });

  it('answers unknown paths with 404 problem+json', async () => {
    const res = await fetch(`${base}/nope`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/problem\+json/);
  });
});
