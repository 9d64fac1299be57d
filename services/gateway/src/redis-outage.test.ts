import { readFileSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
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
  const prefix = uniquePrefix('outage').replace(/-$/, ':');
  const logger = createLogger('gateway-test', 'silent');

  beforeAll(async () => {
    port = await freePort();
    name = `gateway-outage-${port}`;
    redisUrl = await startLocalRedis({ name, port });
    redis = createRedisClient({ REDIS_URL: redisUrl, REDIS_COMMAND_TIMEOUT_MS: 300 }, logger, 'request-path');
    if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
    upstream = fakeUpstream();
    gateway = await startGateway({ redis, prefix, upstreamUrl: await listen(upstream) });
    ({ apiKey } = await createKeyStore({ redis, prefix }).create({ owner: 'outage', quota: 100 }));
  });
  afterAll(async () => {
    await gateway.close();
    await close(upstream);
    redis.disconnect();
    await stopLocalRedis({ name, port });
    rmSync(`${localDir}/redis/${name}`, { recursive: true, force: true });
    rmSync(`${localDir}/redis/.${name}.lock`, { force: true });
  });

  it('fails closed with a fast 503, says so on /health, and recovers by itself', async () => {
    expect((await fetch(`${gateway.url}/v1/fragrances`, { headers: bearer(apiKey) })).status).toBe(200);

    await stopLocalRedis({ name, port });
    for (const path of ['/v1/fragrances?query=rose', '/v1/me']) {
      const { res, ms } = await timed(`${gateway.url}${path}`, bearer(apiKey));
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toMatch(/problem\+json/);
      expect(Problem.parse(await res.json())).toMatchObject({ code: 'service_unavailable' });
      expect(ms).toBeLessThan(1_000);
    }
    const health = await timed(`${gateway.url}/health`);
    expect(health.res.status).toBe(503);
    expect(await health.res.json()).toEqual({ status: 'degraded', dependencies: { redis: 'down', catalogue: 'up' } });
    expect(health.ms).toBeLessThan(1_500);

    await startLocalRedis({ name, port });
    const deadline = Date.now() + 5_000;
    let status = 0;
    while (Date.now() < deadline) {
      status = (await fetch(`${gateway.url}/v1/fragrances`, { headers: bearer(apiKey) })).status;
      if (status === 200) break;
      await sleep(100);
    }
    expect(status).toBe(200);
    expect((await fetch(`${gateway.url}/health`)).status).toBe(200);
  });

  it('answers 503 in under a second when a connected Redis stops replying', async () => {
    expect((await fetch(`${gateway.url}/v1/fragrances`, { headers: bearer(apiKey) })).status).toBe(200);
    // Freeze the redis-server this file started (SIGSTOP), as if it were stuck.
    const pid = Number(readFileSync(`${localDir}/redis/${name}/redis.pid`, 'utf8').trim());
    process.kill(pid, 'SIGSTOP');
    try {
      const { res, ms } = await timed(`${gateway.url}/v1/fragrances`, bearer(apiKey));
      expect(res.status).toBe(503);
      expect(ms).toBeLessThan(1_000);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    const deadline = Date.now() + 5_000;
    let status = 0;
    while (Date.now() < deadline && status !== 200) {
      status = (await fetch(`${gateway.url}/v1/fragrances`, { headers: bearer(apiKey) })).status;
      if (status !== 200) await sleep(100);
    }
    expect(status).toBe(200);
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
