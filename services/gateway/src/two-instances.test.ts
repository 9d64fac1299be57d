// Stateless instances, proven: two gateway processes on one Redis enforce one daily quota and
// one token bucket together (the admission script runs on Redis's clock, not each gateway's).
import type { Server } from 'node:http';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyStore, type KeyStore } from '@fragrance/api-keys';
import { freePort, startService, testRedis, type RunningService, type TestRedis } from '@fragrance/testkit';
import { bearer, close, fakeUpstream, listen } from './test-support.ts';

describe('two gateway instances on one Redis (real processes)', () => {
  let redis: TestRedis;
  let store: KeyStore;
  let upstream: Server;
  let gateways: RunningService[] = [];
  const agent = new Agent({ connections: 32 });

  beforeAll(async () => {
    redis = await testRedis('gateway-pair');
    store = createKeyStore({ redis: redis.redis, prefix: redis.prefix });
    upstream = fakeUpstream();
    const upstreamUrl = await listen(upstream);
    const env = {
      REDIS_URL: redis.url,
      REDIS_PREFIX: redis.prefix,
      CATALOGUE_SERVICE_URL: upstreamUrl,
      // Keys without their own burst settings get a bucket that never limits these tests.
      BURST_CAPACITY: '100000',
      BURST_REFILL_PER_SECOND: '100000',
      // What is tested is agreement, not the fail-fast bound: on a loaded 2-core CI machine a
      // reply can take longer than the default 500 ms, and a timed-out admission answers 503.
      REDIS_COMMAND_TIMEOUT_MS: '10000',
    };
    gateways = await Promise.all([startService('gateway', await freePort(), env), startService('gateway', await freePort(), env)]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(gateways.map((g) => g.stop()));
    await agent.close();
    await close(upstream);
    await redis.cleanup();
  });

  /** Sends `total` requests alternating between the instances, 32 at a time; counts the statuses. */
  async function race(apiKey: string, total: number): Promise<Record<number, number>> {
    const statuses: Record<number, number> = {};
    let next = 0;
    const lane = async () => {
      while (next < total) {
        const i = next++;
        const res = await request(`${gateways[i % 2]!.url}/v1/fragrances`, { headers: bearer(apiKey), dispatcher: agent });
        await res.body.dump();
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
      }
    };
    await Promise.all(Array.from({ length: 32 }, lane));
    return statuses;
  }

  it('1,000 requests racing on a quota of 250 through both: exactly 250 admitted, used_today 250', async () => {
    const { apiKey, record } = await store.create({ owner: 'pair-quota', quota: 250 });
    expect(await race(apiKey, 1_000)).toEqual({ 200: 250, 429: 750 });
    expect(await store.usedToday(record.id, 'UTC')).toBe(250);
    for (const gateway of gateways) {
      const me = await request(`${gateway.url}/v1/me`, { headers: bearer(apiKey), dispatcher: agent });
      expect(((await me.body.json()) as { used_today: number }).used_today).toBe(250);
    }
  }, 30_000);

  it('one token bucket for both: a key with capacity 40 and no refill to speak of gets 40 through the pair', async () => {
    const { apiKey } = await store.create({ owner: 'pair-burst', quota: 10_000, burst: 40, refillPerSecond: 0.001 });
    expect(await race(apiKey, 200)).toEqual({ 200: 40, 429: 160 });
  }, 30_000);

  it('each instance answers /health/live and /health/ready (200: up, Redis reachable, not draining)', async () => {
    for (const instance of gateways) {
      for (const path of ['/health/live', '/health/ready']) {
        const res = await fetch(`${instance.url}${path}`);
        expect(res.status, path).toBe(200);
        expect(res.headers.get('cache-control')).toBe('no-store');
      }
      expect(await (await fetch(`${instance.url}/health/ready`)).json()).toEqual({ status: 'ok', dependencies: { redis: 'up' } });
    }
  });
});
