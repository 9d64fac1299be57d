import { rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyStore } from '@fragrance/api-keys';
import { createLogger } from '@fragrance/http';
import { createRedisClient } from '@fragrance/redis';
import { freePort, REPO_ROOT, startLocalRedis, stopLocalRedis, uniquePrefix } from '@fragrance/testkit';
import { bearer, close, fakeUpstream, listen, startGateway, type GatewayUnderTest } from './test-support.ts';

const localDir = process.env.FRAGRANCE_LOCAL_DIR ?? `${REPO_ROOT}.local`;
const COMMAND_TIMEOUT_MS = 300;

// CLIENT PAUSE … ALL holds every command, then runs them: the admissions the gateway gave up on
// (answered 503 after its command timeout) reach Redis later, and must count nothing.
describe('never bill a refusal: Redis paused (own redis-server, never the shared one)', () => {
  let port: number;
  let name: string;
  let redis: Redis;
  let control: Redis;
  let upstream: Server;
  let gateway: GatewayUnderTest;
  let apiKey: string;
  const prefix = uniquePrefix('deadline').replace(/-$/, ':');
  const logger = createLogger('gateway-test', 'silent');

  beforeAll(async () => {
    port = await freePort();
    name = `gateway-deadline-${port}`;
    const url = await startLocalRedis({ name, port });
    redis = createRedisClient({ REDIS_URL: url, REDIS_COMMAND_TIMEOUT_MS: COMMAND_TIMEOUT_MS }, logger, 'request-path');
    if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
    control = new Redis(url);
    upstream = fakeUpstream();
    gateway = await startGateway({
      redis,
      prefix,
      upstreamUrl: await listen(upstream),
      env: { REDIS_COMMAND_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS) },
    });
    ({ apiKey } = await createKeyStore({ redis, prefix }).create({ owner: 'paused', quota: 10_000, burst: 1_000, refillPerSecond: 1_000 }));
  });
  afterAll(async () => {
    await gateway.close();
    await close(upstream);
    redis.disconnect();
    control.disconnect();
    await stopLocalRedis({ name, port });
    rmSync(`${localDir}/redis/${name}`, { recursive: true, force: true });
    rmSync(`${localDir}/redis/.${name}.lock`, { force: true });
  });

  it('counts exactly the requests answered 200, none answered with an error, once the paused commands ran', async () => {
    const statuses: number[] = [];
    const send = async () => {
      const res = await fetch(`${gateway.url}/v1/fragrances?query=rose`, { headers: bearer(apiKey) });
      await res.arrayBuffer();
      statuses.push(res.status);
    };
    for (let i = 0; i < 5; i++) await send();
    await control.call('CLIENT', 'PAUSE', '2000', 'ALL');
    // Queued in Redis: the gateway gives up on each after its command timeout and answers 503.
    await Promise.all(Array.from({ length: 20 }, send));
    for (let i = 0; i < 2; i++) await send();
    // Answered once the pause is over (queued behind it like everything else).
    await control.ping();
    for (let i = 0; i < 5; i++) await send();

    const refused = statuses.filter((s) => s === 503).length;
    const answered = statuses.filter((s) => s === 200).length;
    expect(refused).toBeGreaterThanOrEqual(20);
    expect(refused + answered).toBe(statuses.length);
    // Read through the gateway's own connection, so after every admission it queued.
    const me = (await (await fetch(`${gateway.url}/v1/me`, { headers: bearer(apiKey) })).json()) as { used_today: number };
    expect(me.used_today).toBe(answered);
  });
});
