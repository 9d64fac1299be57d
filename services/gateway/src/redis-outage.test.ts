import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyStore } from '@fragrance/api-keys';
import { createLogger } from '@fragrance/http';
import { Problem } from '@fragrance/contracts';
import { createRedisClient } from '@fragrance/redis';
import { freePort, REPO_ROOT, startLocalRedis, stopLocalRedis, uniquePrefix } from '@fragrance/testkit';
import { bearer, close, fakeUpstream, listen, startGateway, type GatewayUnderTest } from './test-support.ts';

const localDir = process.env.FRAGRANCE_LOCAL_DIR ?? `${REPO_ROOT}.local`;

async function timed(path: string, headers: Record<string, string> = {}): Promise<{ res: Response; ms: number }> {
  const t0 = performance.now();
  const res = await fetch(path, { headers });
  await res.clone().arrayBuffer();
  return { res, ms: performance.now() - t0 };
}

describe('when Redis goes away (own redis-server, never the shared one)', () => {
  let port: number;
  let name: string;
  let redisUrl: string;
  let redis: Redis;
  let upstream: Server;
  let gateway: GatewayUnderTest;
  let apiKey: string;
  const journalDir = mkdtempSync(join(tmpdir(), 'fcs-journal-'));
  const prefix = uniquePrefix('outage').replace(/-$/, ':');
  const logger = createLogger('gateway-test', 'silent');

  beforeAll(async () => {
    port = await freePort();
    name = `gateway-outage-${port}`;
    redisUrl = await startLocalRedis({ name, port });
    redis = createRedisClient({ REDIS_URL: redisUrl, REDIS_COMMAND_TIMEOUT_MS: 300 }, logger, 'request-path');
    if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
    upstream = fakeUpstream();
    // As main.ts runs it: keys seen recently are admitted while Redis is away (degraded-admission.test.ts covers that).
    gateway = await startGateway({
      redis,
      prefix,
      upstreamUrl: await listen(upstream),
      degraded: true,
      env: { ADMISSION_JOURNAL_DIR: journalDir },
    });
    ({ apiKey } = await createKeyStore({ redis, prefix }).create({ owner: 'outage', quota: 100 }));
  });
  afterAll(async () => {
    await gateway.close();
    await close(upstream);
    redis.disconnect();
    await stopLocalRedis({ name, port });
    rmSync(`${localDir}/redis/${name}`, { recursive: true, force: true });
    rmSync(`${localDir}/redis/.${name}.lock`, { force: true });
    rmSync(journalDir, { recursive: true, force: true });
  });

  it('fails closed with a fast 503 for a key it has not seen, admits one it has, says so on /health, and recovers by itself', async () => {
    expect((await fetch(`${gateway.url}/v1/fragrances`, { headers: bearer(apiKey) })).status).toBe(200);
    const { apiKey: unseen } = await createKeyStore({ redis, prefix }).create({ owner: 'unseen', quota: 100 });

    await stopLocalRedis({ name, port });
    expect((await timed(`${gateway.url}/v1/fragrances`, bearer(apiKey))).res.status).toBe(200);
    for (const path of ['/v1/fragrances?query=rose', '/v1/me']) {
      const { res, ms } = await timed(`${gateway.url}${path}`, bearer(unseen));
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(res.headers.get('content-type')).toMatch(/problem\+json/);
      expect(Problem.parse(await res.json())).toMatchObject({ code: 'service_unavailable' });
      expect(ms).toBeLessThan(1_000);
    }
    const health = await timed(`${gateway.url}/health`);
    expect(health.res.status).toBe(503);
    expect(await health.res.json()).toEqual({ status: 'degraded', dependencies: { redis: 'down', catalogue: 'up' } });
    expect(health.ms).toBeLessThan(1_500);
    // Still ready: Redis decided on a key within the bound, so the cache admits (a load balancer keeps this instance).
    expect((await fetch(`${gateway.url}/health/ready`)).status).toBe(200);

    await startLocalRedis({ name, port });
    // Back to Redis's own decisions: exact headers again, the unseen key admitted too.
    await expect
      .poll(async () => (await fetch(`${gateway.url}/v1/fragrances`, { headers: bearer(unseen) })).status, { timeout: 5_000 })
      .toBe(200);
    expect((await fetch(`${gateway.url}/v1/fragrances`, { headers: bearer(apiKey) })).headers.get('ratelimit')).not.toMatch(/approximate/);
    expect((await fetch(`${gateway.url}/health`)).status).toBe(200);
  });

  it('answers in under a second when a connected Redis stops replying: 503 for an unseen key, 200 for a seen one', async () => {
    expect((await fetch(`${gateway.url}/v1/fragrances`, { headers: bearer(apiKey) })).status).toBe(200);
    const { apiKey: unseen } = await createKeyStore({ redis, prefix }).create({ owner: 'unseen-2', quota: 100 });
    // Freeze the redis-server this file started (SIGSTOP), as if it were stuck.
    const pid = Number(readFileSync(`${localDir}/redis/${name}/redis.pid`, 'utf8').trim());
    process.kill(pid, 'SIGSTOP');
    try {
      const { res, ms } = await timed(`${gateway.url}/v1/fragrances`, bearer(unseen));
      expect(res.status).toBe(503);
      expect(ms).toBeLessThan(1_000);
      const seen = await timed(`${gateway.url}/v1/fragrances`, bearer(apiKey));
      expect(seen.res.status).toBe(200);
      expect(seen.res.headers.get('ratelimit')).toMatch(/;approximate$/);
      expect(seen.ms).toBeLessThan(1_000);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    await expect
      .poll(async () => (await fetch(`${gateway.url}/v1/fragrances`, { headers: bearer(unseen) })).status, { timeout: 5_000 })
      .toBe(200);
  });
});

describe('when Redis hangs', () => {
  let blackHole: TcpServer;
  const sockets: Socket[] = [];
  let upstream: Server;
  let gateway: GatewayUnderTest;
  let redis: Redis;

  beforeAll(async () => {
    // Accepts connections and never answers, like a Redis that is stuck.
    blackHole = createTcpServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
    const { port } = blackHole.address() as { port: number };
    redis = createRedisClient(
      { REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_COMMAND_TIMEOUT_MS: 300 },
      createLogger('gateway-test', 'silent'),
      'request-path',
    );
    upstream = fakeUpstream();
    gateway = await startGateway({ redis, prefix: 'hang:', upstreamUrl: await listen(upstream) });
  });
  afterAll(async () => {
    await gateway.close();
    await close(upstream);
    redis.disconnect();
    for (const socket of sockets) socket.destroy();
    blackHole.close();
  });

  it('still answers 503 in under a second', async () => {
    const { generateApiKey } = await import('@fragrance/api-keys');
    const { res, ms } = await timed(`${gateway.url}/v1/fragrances`, bearer(generateApiKey()));
    expect(res.status).toBe(503);
    expect(ms).toBeLessThan(1_000);
  });
});
