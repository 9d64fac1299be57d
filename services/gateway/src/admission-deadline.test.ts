import { describe, expect } from 'vitest';
import { bearer } from './testing/app.ts';
import { ownRedisTest } from './testing/own-redis.ts';

const COMMAND_TIMEOUT_MS = 300;

/** The file's gateway failing fast after COMMAND_TIMEOUT_MS on its own redis-server, and a key on it. */
const it = ownRedisTest
  .extend('gatewayOptions', { scope: 'file' }, { env: { REDIS_COMMAND_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS) } })
  .extend('apiKey', { scope: 'file' }, async ({ keys }) => {
    const { apiKey } = await keys.create({ owner: 'paused', quota: 10_000, burst: 1_000, refillPerSecond: 1_000 });
    return apiKey;
  });

// CLIENT PAUSE … ALL holds every command, then runs them: the admissions the gateway gave up on
// (answered 503 after its command timeout) reach Redis later, and must count nothing.
describe('never bill a refusal: Redis paused (own redis-server, never the shared one)', () => {
  it('counts exactly the requests answered 200, none answered with an error, once the paused commands ran', async ({
    redis,
    gateway,
    apiKey,
  }) => {
    const statuses: number[] = [];
    const send = async () => {
      const res = await fetch(`${gateway.url}/v1/fragrances?query=rose`, { headers: bearer(apiKey) });
      await res.arrayBuffer();
      statuses.push(res.status);
    };
    for (let i = 0; i < 5; i++) await send();
    await redis.redis.call('CLIENT', 'PAUSE', '2000', 'ALL');
    // Queued in Redis: the gateway gives up on each after its command timeout and answers 503.
    await Promise.all(Array.from({ length: 20 }, send));
    for (let i = 0; i < 2; i++) await send();
    // Answered once the pause is over (queued behind it like everything else).
    await redis.redis.ping();
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
