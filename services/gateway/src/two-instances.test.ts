// Stateless instances, proven: two gateway processes on one Redis enforce one daily quota and
// one token bucket together (the admission script runs on Redis's clock, not each gateway's).
import { Agent, request } from 'undici';
import { describe, expect } from 'vitest';
import { freePort, startService, type RunningService } from '@fragrance/testkit';
import { bearer, gatewayTest } from './testing/app.ts';

/** Two gateway processes (main.ts) on the file's Redis and stand-in upstream, and a pool of connections to them. */
const it = gatewayTest
  .extend('gateways', { scope: 'file' }, async ({ redis, upstream }, { onCleanup }) => {
    const env = {
      REDIS_URL: redis.url,
      REDIS_PREFIX: redis.prefix,
      CATALOGUE_SERVICE_URL: upstream.url,
      // Keys without their own burst settings get a bucket that never limits these tests.
      BURST_CAPACITY: '100000',
      BURST_REFILL_PER_SECOND: '100000',
      // What is tested is agreement, not the fail-fast bound: on a loaded 2-core CI machine a
      // reply can take longer than the default 500 ms, and a timed-out admission answers 503.
      REDIS_COMMAND_TIMEOUT_MS: '10000',
    };
    const gateways: RunningService[] = await Promise.all([
      startService('gateway', await freePort(), env),
      startService('gateway', await freePort(), env),
    ]);
    onCleanup(async () => {
      await Promise.all(gateways.map((g) => g.stop()));
    });
    return gateways;
  })
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from this pattern
  .extend('agent', { scope: 'file' }, ({}, { onCleanup }) => {
    const agent = new Agent({ connections: 32 });
    onCleanup(() => agent.close());
    return agent;
  })
  /** Sends `total` requests alternating between the instances, 32 at a time; counts the statuses. */
  .extend('race', { scope: 'file' }, ({ gateways, agent }) => async (apiKey: string, total: number) => {
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
  });

// The first test waits for the two processes too.
describe('two gateway instances on one Redis (real processes)', { timeout: 90_000 }, () => {
  it('1,000 requests racing on a quota of 250 through both: exactly 250 admitted, used_today 250', async ({
    keys,
    gateways,
    agent,
    race,
  }) => {
    const { apiKey, record } = await keys.create({ owner: 'pair-quota', quota: 250 });
    expect(await race(apiKey, 1_000)).toEqual({ 200: 250, 429: 750 });
    expect(await keys.usedToday(record.id, 'UTC')).toBe(250);
    for (const gateway of gateways) {
      const me = await request(`${gateway.url}/v1/me`, { headers: bearer(apiKey), dispatcher: agent });
      expect(((await me.body.json()) as { used_today: number }).used_today).toBe(250);
    }
  });

  it('one token bucket for both: a key with capacity 40 and no refill to speak of gets 40 through the pair', async ({ keys, race }) => {
    const { apiKey } = await keys.create({ owner: 'pair-burst', quota: 10_000, burst: 40, refillPerSecond: 0.001 });
    expect(await race(apiKey, 200)).toEqual({ 200: 40, 429: 160 });
  });

  it('each instance answers /health/live and /health/ready (200: up, Redis reachable, not draining)', async ({ gateways }) => {
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
