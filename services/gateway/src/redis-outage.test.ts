import { createServer as createTcpServer, type Socket } from 'node:net';
import { describe, expect } from 'vitest';
import { generateApiKey } from '@fragrance/api-keys';
import { createLogger } from '@fragrance/http';
import { Problem } from '@fragrance/contracts';
import { createRedisClient } from '@fragrance/redis';
import { bearer } from './testing/app.ts';
import { ownRedisTest } from './testing/own-redis.ts';

/**
 * Each request carries a deadline of its own, far above the bounds under test (the gateway's
 * 300 ms Redis command timeout here, its 1 s health check timeout): a gateway that waited on a
 * stuck or absent Redis instead of giving up by its bound never answers, and the request fails
 * the test as an abort. How fast the answers come is the gateway bench's to measure, not a test's.
 */
const CALLER_DEADLINE_MS = 10_000;

async function answered(url: string, headers: Record<string, string> = {}): Promise<Response> {
  const res = await fetch(url, { headers, signal: AbortSignal.timeout(CALLER_DEADLINE_MS) });
  await res.clone().arrayBuffer();
  return res;
}

/**
 * The file's gateway as main.ts runs it, failing fast: keys seen recently are admitted while Redis
 * is away (degraded-admission.test.ts covers that); a key it has seen.
 */
const it = ownRedisTest
  .extend('gatewayOptions', { scope: 'file' }, { degraded: true, env: { REDIS_COMMAND_TIMEOUT_MS: '300' } })
  .extend('apiKey', { scope: 'file' }, async ({ keys }) => (await keys.create({ owner: 'outage', quota: 100 })).apiKey);

describe('when Redis goes away (own redis-server, never the shared one)', () => {
  it('fails closed with a 503 for a key it has not seen, admits one it has, says so on /health, and recovers by itself', async ({
    redis,
    keys,
    gateway,
    apiKey,
  }) => {
    expect((await fetch(`${gateway.url}/v1/fragrances`, { headers: bearer(apiKey) })).status).toBe(200);
    const { apiKey: unseen } = await keys.create({ owner: 'unseen', quota: 100 });

    await redis.stop();
    expect((await answered(`${gateway.url}/v1/fragrances`, bearer(apiKey))).status).toBe(200);
    for (const path of ['/v1/fragrances?query=rose', '/v1/me']) {
      const res = await answered(`${gateway.url}${path}`, bearer(unseen));
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(res.headers.get('content-type')).toMatch(/problem\+json/);
      expect(Problem.parse(await res.json())).toMatchObject({ code: 'service_unavailable' });
    }
    // The health check gives Redis its own bound too: a degraded answer, not a hang.
    const health = await answered(`${gateway.url}/health`);
    expect(health.status).toBe(503);
    expect(await health.json()).toEqual({ status: 'degraded', dependencies: { redis: 'down', catalogue: 'up' } });
    // Still ready: Redis decided on a key within the bound, so the cache admits (a load balancer keeps this instance).
    expect((await fetch(`${gateway.url}/health/ready`)).status).toBe(200);

    await redis.start();
    // Back to Redis's own decisions: exact headers again, the unseen key admitted too.
    await expect
      .poll(async () => (await fetch(`${gateway.url}/v1/fragrances`, { headers: bearer(unseen) })).status, { timeout: 5_000 })
      .toBe(200);
    expect((await fetch(`${gateway.url}/v1/fragrances`, { headers: bearer(apiKey) })).headers.get('ratelimit')).not.toMatch(/approximate/);
    expect((await fetch(`${gateway.url}/health`)).status).toBe(200);
  });

  it('answers by its command bound when a connected Redis stops replying: 503 for an unseen key, 200 for a seen one', async ({
    redis,
    keys,
    gateway,
    apiKey,
  }) => {
    expect((await fetch(`${gateway.url}/v1/fragrances`, { headers: bearer(apiKey) })).status).toBe(200);
    const { apiKey: unseen } = await keys.create({ owner: 'unseen-2', quota: 100 });
    // Freeze the redis-server this file started (SIGSTOP), as if it were stuck.
    const pid = await redis.pid();
    process.kill(pid, 'SIGSTOP');
    try {
      expect((await answered(`${gateway.url}/v1/fragrances`, bearer(unseen))).status).toBe(503);
      const seen = await answered(`${gateway.url}/v1/fragrances`, bearer(apiKey));
      expect(seen.status).toBe(200);
      expect(seen.headers.get('ratelimit')).toMatch(/;approximate$/);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    await expect
      .poll(async () => (await fetch(`${gateway.url}/v1/fragrances`, { headers: bearer(unseen) })).status, { timeout: 5_000 })
      .toBe(200);
  });
});

describe('when Redis hangs', () => {
  it('still answers 503 instead of waiting for it', async ({ startGateway }) => {
    // Accepts connections and never answers, like a Redis that is stuck.
    const sockets: Socket[] = [];
    const blackHole = createTcpServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
    const { port } = blackHole.address() as { port: number };
    const redis = createRedisClient(
      { REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_COMMAND_TIMEOUT_MS: 300 },
      createLogger('gateway-test', 'silent'),
      'request-path',
    );
    try {
      const gateway = await startGateway({ redis, degraded: false });
      expect((await answered(`${gateway.url}/v1/fragrances`, bearer(generateApiKey()))).status).toBe(503);
    } finally {
      redis.disconnect();
      for (const socket of sockets) socket.destroy();
      blackHole.close();
    }
  });
});
