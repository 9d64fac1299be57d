import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { Problem } from '@fragrance/contracts';
import { bearer, captureLogs, type GatewayUnderTest } from './testing/app.ts';
import { ownRedisTest } from './testing/own-redis.ts';

const COMMAND_TIMEOUT_MS = 300;
/** The revocation bound of these tests (DEGRADED_ADMISSION_MAX_AGE_MS), short so the test is. */
const MAX_AGE_MS = 4_000;
const today = () => new Date().toISOString().slice(0, 10);
/** Everything in a gateway's journal files. */
const journalText = (gateway: GatewayUnderTest) =>
  readdirSync(gateway.config.ADMISSION_JOURNAL_DIR)
    .filter((file) => file.endsWith('.jsonl'))
    .map((file) => readFileSync(join(gateway.config.ADMISSION_JOURNAL_DIR, file), 'utf8'))
    .join('');
const get = async (gw: GatewayUnderTest, apiKey: string) => {
  const res = await fetch(`${gw.url}/v1/fragrances?query=rose`, { headers: bearer(apiKey) });
  await res.arrayBuffer();
  return res;
};

/** Gateways admitting without Redis (each its own journal), and the usage Redis counted for a key today. */
const it = ownRedisTest
  .extend(
    'gatewayOptions',
    { scope: 'file' },
    {
      degraded: true,
      env: {
        REDIS_COMMAND_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS),
        DEGRADED_ADMISSION_MAX_AGE_MS: String(MAX_AGE_MS),
        ADMISSION_JOURNAL_FSYNC_MS: '0',
      },
    },
  )
  .extend(
    'used',
    { scope: 'file' },
    ({ redis }) =>
      async (keyId: string) =>
        Number((await redis.redis.get(`${redis.prefix}usage:${keyId}:${today()}`)) ?? 0),
  );

// Admission without Redis (docs/operations.md#degraded-admission), against this file's own
// redis-server: paused (CLIENT PAUSE … ALL: commands queue, then run) and stopped.
describe('degraded admission: Redis paused and stopped (own redis-server, never the shared one)', () => {
  it('paused: a known key keeps getting 200 (marked approximate), an unseen key 503 with Retry-After, and Redis counts exactly the 200s (not a 504)', async ({
    redis,
    keys,
    startGateway,
    used,
  }) => {
    const { logger: log, lines } = captureLogs();
    const gw = await startGateway({ logger: log });
    const known = await keys.create({ owner: 'known', quota: 10_000, burst: 40, refillPerSecond: 1_000 });
    const unseen = await keys.create({ owner: 'unseen', quota: 10_000 });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await get(gw, known.apiKey)).status);

    await redis.redis.call('CLIENT', 'PAUSE', '4000', 'ALL');
    const during = await Promise.all(Array.from({ length: 25 }, () => get(gw, known.apiKey)));
    for (const res of during) {
      statuses.push(res.status);
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit')).toMatch(/^"daily";r=\d+;t=\d+;approximate$/);
    }
    const refused = await get(gw, unseen.apiKey);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    // Admitted locally, then the catalogue does not answer: a 504 is taken back out of the journal.
    const failed = await fetch(`${gw.url}/v1/fragrances/slow`, { headers: bearer(known.apiKey) });
    expect(failed.status).toBe(504);
    expect(failed.headers.get('ratelimit')).toMatch(/;approximate$/);
    // The queued admissions run once the pause is over, past their deadline: they count nothing.
    await redis.redis.ping();
    await expect
      .poll(
        async () => {
          const res = await get(gw, known.apiKey);
          statuses.push(res.status);
          return res.headers.get('ratelimit');
        },
        { timeout: 5_000 },
      )
      .not.toMatch(/approximate/);
    expect(statuses.every((status) => status === 200)).toBe(true);
    // Every 200 counted once (the journalled ones replayed), nothing else.
    await expect.poll(() => used(known.record.id), { timeout: 5_000 }).toBe(statuses.length);
    expect(await used(unseen.record.id)).toBe(0);
    // One line for the degraded period: 25 + 1 admitted locally (the 504 too), 1 refused, all replayed.
    const ended = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.msg === 'degraded admission ended: Redis answers again');
    expect(ended).toHaveLength(1);
    expect(ended[0]).toMatchObject({ admitted_locally: 26, refused: 1, replayed: 25, backlog: 0 });
    expect(ended[0]!.degraded_ms).toBeGreaterThan(0);
  });

  it('stopped: known keys keep getting 200, a revoked key is refused within the bound, over-admission stays within the allowance, and the count is exact once Redis is back', async ({
    redis,
    keys,
    startGateway,
    used,
  }) => {
    const [one, two] = [await startGateway(), await startGateway()];
    const known = await keys.create({ owner: 'known', quota: 10_000, burst: 60, refillPerSecond: 1_000 });
    // Near its quota: one instance saw 8 of 10 used, the other 9. Its local allowance (burst) is 3.
    const near = await keys.create({ owner: 'near', quota: 10, burst: 3, refillPerSecond: 1_000 });
    const revoked = await keys.create({ owner: 'revoked', quota: 10_000 });
    const full = await keys.create({ owner: 'full', quota: 2 });
    const ok = { known: 0, near: 0, revoked: 0, full: 0 };
    for (let i = 0; i < 8; i++) ok.near += Number((await get(one, near.apiKey)).status === 200);
    ok.near += Number((await get(two, near.apiKey)).status === 200);
    for (let i = 0; i < 2; i++) ok.full += Number((await get(one, full.apiKey)).status === 200);
    ok.known += Number((await get(one, known.apiKey)).status === 200);
    ok.known += Number((await get(two, known.apiKey)).status === 200);
    ok.revoked += Number((await get(one, revoked.apiKey)).status === 200);
    expect(ok).toEqual({ known: 2, near: 9, revoked: 1, full: 2 });
    // Revoked while Redis is up, but this instance has not seen it since.
    await keys.revoke(revoked.record.id);

    await redis.stop();
    const results = await Promise.all([
      ...Array.from({ length: 20 }, (_, i) => get(i % 2 ? one : two, known.apiKey).then((res) => ['known', res.status] as const)),
      ...Array.from({ length: 5 }, () => get(one, near.apiKey).then((res) => ['near', res.status] as const)),
      ...Array.from({ length: 5 }, () => get(two, near.apiKey).then((res) => ['near', res.status] as const)),
      get(one, full.apiKey).then((res) => ['full', res.status] as const),
    ]);
    for (const [key, status] of results) {
      if (status === 200) ok[key] += 1;
      else expect([key, status]).toEqual([key, 429]);
    }
    expect(results.filter(([key, status]) => key === 'known' && status === 200)).toHaveLength(20);
    // Over-admission for a key at (or near) its quota ≤ the allowance per instance: 2 + 1 here.
    expect(ok.near).toBe(12);
    expect(ok.full).toBe(2);
    // Admitted locally, then the catalogue does not answer: the 504 is taken back out of the
    // journal (a refund in Redis would be lost: it is down).
    const failed = await fetch(`${one.url}/v1/fragrances/slow`, { headers: bearer(known.apiKey) });
    expect(failed.status).toBe(504);
    expect(failed.headers.get('ratelimit')).toMatch(/;approximate$/);
    // The revoked key: admitted from the cache at most until the bound, then refused (503).
    await expect
      .poll(
        async () => {
          const res = await get(one, revoked.apiKey);
          if (res.status === 200) ok.revoked += 1;
          return res.status;
        },
        { timeout: MAX_AGE_MS + 2_000, interval: 100 },
      )
      .toBe(503);

    await redis.start();
    await expect.poll(() => used(known.record.id), { timeout: 10_000 }).toBe(ok.known);
    await expect.poll(() => used(near.record.id), { timeout: 10_000 }).toBe(ok.near);
    await expect.poll(() => used(revoked.record.id), { timeout: 10_000 }).toBe(ok.revoked);
    expect(await used(full.record.id)).toBe(2);
    expect(ok.near - 10).toBeLessThanOrEqual(3 * 2);
    // Back to Redis's own decisions: the revoked key is 401 again, the journals are empty.
    expect((await get(one, revoked.apiKey)).status).toBe(401);
    for (const gw of [one, two]) await expect.poll(() => journalText(gw), { timeout: 5_000 }).toBe('');
  });

  it('a refusal during the outage is problem+json', async ({ redis, keys, startGateway }) => {
    const gw = await startGateway();
    const unseen = await keys.create({ owner: 'unseen-2', quota: 10 });
    await redis.stop();
    try {
      const res = await fetch(`${gw.url}/v1/fragrances`, { headers: bearer(unseen.apiKey) });
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toMatch(/problem\+json/);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(Problem.parse(await res.json())).toMatchObject({ code: 'service_unavailable' });
    } finally {
      await redis.start();
    }
  });
});
