import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRedis, type TestRedis } from '@fragrance/testkit';
import { createAdmitter, createRefunder, type Admission, type Admitter } from './admission.ts';
import { generateApiKey } from './key-format.ts';
import { createKeyStore, type KeyStore } from './key-store.ts';

/** A clock tests move by hand. */
function fakeClock(iso: string) {
  let now = Date.parse(iso);
  return { now: () => now, set: (next: string) => void (now = Date.parse(next)), advance: (ms: number) => void (now += ms) };
}

const outcomes = (results: Admission[]) =>
  results.reduce<Record<string, number>>((acc, r) => ({ ...acc, [r.outcome]: (acc[r.outcome] ?? 0) + 1 }), {});

describe('admission script against real Redis', () => {
  let redis: TestRedis;
  let store: KeyStore;
  const roomyBucket = { capacity: 100_000, refillPerSecond: 100_000 };

  beforeAll(async () => {
    redis = await testRedis('admission');
    store = createKeyStore({ redis: redis.redis, prefix: redis.prefix });
  });
  afterAll(() => redis.cleanup());

  it('admits exactly the quota when 1,000 requests race on one key', async () => {
    const { apiKey, record } = await store.create({ owner: 'racer', quota: 250 });
    // Several connections, so the requests really arrive interleaved at Redis.
    const admitters = Array.from({ length: 8 }, () =>
      createAdmitter({ redis: redis.connect(), prefix: redis.prefix, timeZone: 'UTC', bucketDefaults: roomyBucket }),
    );
    const results = await Promise.all(Array.from({ length: 1_000 }, (_, i) => admitters[i % 8]!(apiKey, 'admit')));
    expect(outcomes(results)).toEqual({ admitted: 250, daily_quota_exceeded: 750 });
    expect(await store.usedToday(record.id, 'UTC')).toBe(250);
    const admittedCounts = results.flatMap((r) => (r.outcome === 'admitted' ? [r.quota.used] : [])).sort((a, b) => a - b);
    expect(admittedCounts).toEqual(Array.from({ length: 250 }, (_, i) => i + 1));
  });

  it('reads the readAlong key in the same script, whatever the decision', async () => {
    const along = `${redis.prefix}read-along-test`;
    const admit = createAdmitter({
      redis: redis.redis,
      prefix: redis.prefix,
      timeZone: 'UTC',
      bucketDefaults: roomyBucket,
      readAlong: along,
    });
    const { apiKey } = await store.create({ owner: 'reader', quota: 1 });
    expect(await admit(apiKey, 'admit')).toMatchObject({ outcome: 'admitted', readAlong: '' }); // nothing stored yet
    await redis.redis.set(along, '41');
    expect(await admit(apiKey, 'admit')).toMatchObject({ outcome: 'daily_quota_exceeded', readAlong: '41' });
    expect(await admit(apiKey, 'peek')).toMatchObject({ outcome: 'authenticated', readAlong: '41' });
    expect(await admit(generateApiKey(), 'admit')).toMatchObject({ outcome: 'invalid_key', reason: 'unknown', readAlong: '41' });
    // One command per admission: the script, nothing beside it.
    const monitor = await redis.connect().monitor();
    const commands: string[] = [];
    // A command sent after the admission: once MONITOR shows it, it has shown the admission's too.
    const marker = `${redis.prefix}monitor-marker`;
    let markerSeen = false;
    // (MONITOR also lists the commands a script runs, with "lua" as their source: those are not
    // round trips. It also sees every other test process on this Redis: only this test's keys count.)
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      if (args.includes(marker)) markerSeen = true;
      else if (source !== 'lua' && args.some((arg) => arg.startsWith(redis.prefix))) commands.push(String(args[0]).toLowerCase());
    });
    await admit(apiKey, 'peek');
    await redis.redis.exists(marker);
    await expect.poll(() => markerSeen).toBe(true);
    monitor.disconnect();
    expect(commands.filter((c) => c === 'evalsha' || c === 'eval' || c === 'get')).toEqual(['evalsha']);
    // Without the option nothing is read along and the answer says nothing about it.
    const plain = createAdmitter({ redis: redis.redis, prefix: redis.prefix, timeZone: 'UTC', bucketDefaults: roomyBucket });
    expect(await plain(apiKey, 'peek')).not.toHaveProperty('readAlong');
  });

  it('counts on the day of the Redis clock, not the gateway clock: a host 23 hours off still counts on the right day', async () => {
    const [seconds] = await redis.redis.time();
    const redisNow = Number(seconds) * 1_000;
    const redisDay = new Date(redisNow).toISOString().slice(0, 10);
    const { apiKey, record } = await store.create({ owner: 'skewed', quota: 10 });
    // The host's guess and its two neighbours hold Redis's day for any skew under a day (23 h
    // covers a 23-hour DST day too); 25 h failed in the hour either side of midnight.
    for (const skewMs of [-3_600_000 * 23, 0, 3_600_000 * 23]) {
      const admit = createAdmitter({
        redis: redis.redis,
        prefix: redis.prefix,
        timeZone: 'UTC',
        bucketDefaults: roomyBucket,
        hostClock: () => Date.now() + skewMs,
      });
      const admitted = await admit(apiKey, 'admit');
      expect(admitted).toMatchObject({ outcome: 'admitted', quota: { day: redisDay } });
      // The reset is measured from Redis's time too (within the second TIME was read in).
      const expectedReset = Date.parse(`${redisDay}T00:00:00Z`) + 86_400_000;
      if (admitted.outcome === 'admitted')
        expect(Math.abs(admitted.quota.resetInSeconds - (expectedReset - redisNow) / 1_000)).toBeLessThan(5);
    }
    expect(await store.usedToday(record.id, 'UTC')).toBe(3);
  });

  it('charges a multi-unit request whole or not at all, and refunds it whole', async () => {
    const { apiKey, record } = await store.create({ owner: 'exporter', quota: 10 });
    const admit = createAdmitter({ redis: redis.redis, prefix: redis.prefix, timeZone: 'UTC', bucketDefaults: roomyBucket });
    const refund = createRefunder({ redis: redis.redis, prefix: redis.prefix });
    const first = await admit(apiKey, 'admit', 7);
    expect(first).toMatchObject({ outcome: 'admitted', quota: { used: 7, remaining: 3 } });
    // 4 units do not fit in the 3 left: nothing is counted.
    expect(await admit(apiKey, 'admit', 4)).toMatchObject({ outcome: 'daily_quota_exceeded', quota: { used: 7, remaining: 3 } });
    expect(await admit(apiKey, 'admit', 3)).toMatchObject({ outcome: 'admitted', quota: { used: 10, remaining: 0 } });
    if (first.outcome !== 'admitted') throw new Error('unreachable');
    await refund(first.quota, 7);
    expect(await store.usedToday(record.id, 'UTC')).toBe(3);
    await refund(first.quota, 7);
    expect(await store.usedToday(record.id, 'UTC')).toBe(0);
    await expect(admit(apiKey, 'admit', 0)).rejects.toThrow(RangeError);
  });

  it('resets the daily quota at midnight of the configured zone', async () => {
    const clock = fakeClock('2026-05-04T23:59:59.000Z');
    const { apiKey, record } = await store.create({ owner: 'night-owl', quota: 2 });
    const admit = createAdmitter({
      redis: redis.redis,
      prefix: redis.prefix,
      timeZone: 'UTC',
      bucketDefaults: roomyBucket,
      clock: clock.now,
    });
    expect((await admit(apiKey, 'admit')).outcome).toBe('admitted');
    expect((await admit(apiKey, 'admit')).outcome).toBe('admitted');
    const over = await admit(apiKey, 'admit');
    expect(over).toMatchObject({
      outcome: 'daily_quota_exceeded',
      retryAfterSeconds: 1,
      quota: { used: 2, remaining: 0, resetInSeconds: 1 },
    });
    clock.set('2026-05-05T00:00:00.000Z');
    const fresh = await admit(apiKey, 'admit');
    expect(fresh).toMatchObject({ outcome: 'admitted', quota: { used: 1, remaining: 1, resetInSeconds: 86_400 } });
    const fakeStore = createKeyStore({ redis: redis.redis, prefix: redis.prefix, clock: clock.now });
    expect(await fakeStore.usage(record.id, 3, 'UTC')).toEqual([
      { day: '2026-05-03', requests: 0 },
      { day: '2026-05-04', requests: 2 },
      { day: '2026-05-05', requests: 1 },
    ]);
  });

  it('resets at local midnight in another zone and reports the true wait', async () => {
    const clock = fakeClock('2026-05-04T13:00:00.000Z'); // 23:00 in Sydney (+10)
    const { apiKey } = await store.create({ owner: 'sydney', quota: 1 });
    const admit = createAdmitter({
      redis: redis.redis,
      prefix: redis.prefix,
      timeZone: 'Australia/Sydney',
      bucketDefaults: roomyBucket,
      clock: clock.now,
    });
    expect((await admit(apiKey, 'admit')).outcome).toBe('admitted');
    expect(await admit(apiKey, 'admit')).toMatchObject({ outcome: 'daily_quota_exceeded', retryAfterSeconds: 3_600 });
    clock.set('2026-05-04T14:00:00.000Z');
    expect((await admit(apiKey, 'admit')).outcome).toBe('admitted');
  });

  it('refills the token bucket at its rate and says when the next token comes', async () => {
    const clock = fakeClock('2026-05-04T12:00:00.000Z');
    const { apiKey, record } = await store.create({ owner: 'bursty', quota: 1_000, burst: 3, refillPerSecond: 0.5 });
    const admit = createAdmitter({
      redis: redis.redis,
      prefix: redis.prefix,
      timeZone: 'UTC',
      bucketDefaults: roomyBucket,
      clock: clock.now,
    });
    for (let i = 0; i < 3; i += 1) expect((await admit(apiKey, 'admit')).outcome).toBe('admitted');
    expect(await admit(apiKey, 'admit')).toMatchObject({ outcome: 'burst_limit_exceeded', retryAfterSeconds: 2 });
    clock.advance(1_500); // three quarters of a token
    expect(await admit(apiKey, 'admit')).toMatchObject({ outcome: 'burst_limit_exceeded', retryAfterSeconds: 1 });
    clock.advance(500);
    expect((await admit(apiKey, 'admit')).outcome).toBe('admitted');
    expect((await admit(apiKey, 'admit')).outcome).toBe('burst_limit_exceeded');
    clock.advance(60_000); // refills to capacity, not beyond
    for (let i = 0; i < 3; i += 1) expect((await admit(apiKey, 'admit')).outcome).toBe('admitted');
    expect((await admit(apiKey, 'admit')).outcome).toBe('burst_limit_exceeded');
    // Rejected requests were not counted.
    const usedToday = await createKeyStore({ redis: redis.redis, prefix: redis.prefix, clock: clock.now }).usedToday(record.id, 'UTC');
    expect(usedToday).toBe(7);
  });

  it('uses the gateway defaults for a key without its own bucket settings', async () => {
    const clock = fakeClock('2026-05-04T12:00:00.000Z');
    const { apiKey } = await store.create({ owner: 'default-bucket', quota: 1_000 });
    const admit = createAdmitter({
      redis: redis.redis,
      prefix: redis.prefix,
      timeZone: 'UTC',
      bucketDefaults: { capacity: 2, refillPerSecond: 4 },
      clock: clock.now,
    });
    expect((await admit(apiKey, 'admit')).outcome).toBe('admitted');
    expect((await admit(apiKey, 'admit')).outcome).toBe('admitted');
    expect(await admit(apiKey, 'admit')).toMatchObject({ outcome: 'burst_limit_exceeded', retryAfterSeconds: 1 });
    clock.advance(250);
    expect((await admit(apiKey, 'admit')).outcome).toBe('admitted');
  });

  it('applies revocation and quota changes on the very next request', async () => {
    const { apiKey, record } = await store.create({ owner: 'changing', quota: 5 });
    const admit = createAdmitter({ redis: redis.redis, prefix: redis.prefix, timeZone: 'UTC', bucketDefaults: roomyBucket });
    for (let i = 0; i < 5; i += 1) expect((await admit(apiKey, 'admit')).outcome).toBe('admitted');
    expect((await admit(apiKey, 'admit')).outcome).toBe('daily_quota_exceeded');
    await store.setQuota(record.id, 7);
    expect(await admit(apiKey, 'admit')).toMatchObject({ outcome: 'admitted', quota: { limit: 7, used: 6, remaining: 1 } });
    await store.setQuota(record.id, 3);
    expect(await admit(apiKey, 'admit')).toMatchObject({ outcome: 'daily_quota_exceeded', quota: { limit: 3, remaining: 0 } });
    await store.revoke(record.id);
    expect(await admit(apiKey, 'admit')).toEqual({ outcome: 'invalid_key', reason: 'revoked' });
    expect(await admit(apiKey, 'peek')).toEqual({ outcome: 'invalid_key', reason: 'revoked' });
  });

  it('peeks without counting, and rejects unknown and malformed keys', async () => {
    const { apiKey, record } = await store.create({ owner: 'peeker', quota: 1 });
    expect(record.lastUsedAt).toBeUndefined();
    const admit = createAdmitter({
      redis: redis.redis,
      prefix: redis.prefix,
      timeZone: 'UTC',
      bucketDefaults: { capacity: 1, refillPerSecond: 0.001 },
    });
    for (let i = 0; i < 5; i += 1)
      expect(await admit(apiKey, 'peek')).toMatchObject({ outcome: 'authenticated', quota: { owner: 'peeker', used: 0 } });
    expect((await admit(apiKey, 'admit')).outcome).toBe('admitted');
    expect(await admit(apiKey, 'peek')).toMatchObject({ outcome: 'authenticated', quota: { used: 1, remaining: 0 } });
    expect(Date.parse((await store.get(record.id)).lastUsedAt ?? '')).toBeGreaterThan(Date.now() - 60_000);
    expect(await admit(generateApiKey(), 'admit')).toEqual({ outcome: 'invalid_key', reason: 'unknown' });
    expect(await admit('not-a-key', 'admit')).toEqual({ outcome: 'invalid_key', reason: 'malformed' });
  });

  it('gives back a refunded request, never below zero', async () => {
    const { apiKey, record } = await store.create({ owner: 'refunded', quota: 1 });
    const admit = createAdmitter({ redis: redis.redis, prefix: redis.prefix, timeZone: 'UTC', bucketDefaults: roomyBucket });
    const refund = createRefunder({ redis: redis.redis, prefix: redis.prefix });
    const first = await admit(apiKey, 'admit');
    if (first.outcome !== 'admitted') throw new Error(first.outcome);
    expect((await admit(apiKey, 'admit')).outcome).toBe('daily_quota_exceeded');
    await refund(first.quota);
    expect(await store.usedToday(record.id, 'UTC')).toBe(0);
    await refund(first.quota);
    expect(await store.usedToday(record.id, 'UTC')).toBe(0);
    expect((await admit(apiKey, 'admit')).outcome).toBe('admitted');
  });

  it('admits a request repeated under one admission id once, from any connection, and keeps ids apart per key', async () => {
    const { apiKey, record } = await store.create({ owner: 'repeated', quota: 2, burst: 1, refillPerSecond: 0.001 });
    const other = await store.create({ owner: 'repeated-other', quota: 5 });
    // Two gateway instances: each its own connection (and script registration).
    const [first, second] = [redis.connect(), redis.connect()].map((connection) =>
      createAdmitter({ redis: connection, prefix: redis.prefix, timeZone: 'UTC', bucketDefaults: roomyBucket }),
    ) as [Admitter, Admitter];
    expect(await first(apiKey, 'admit', 1, 'edge-a')).toMatchObject({ outcome: 'admitted', quota: { used: 1 } });
    // The repeat is the same decision: not counted again, and no second token (the bucket holds one).
    expect(await second(apiKey, 'admit', 1, 'edge-a')).toMatchObject({
      outcome: 'admitted',
      repeat: true,
      quota: { used: 1, remaining: 1 },
    });
    expect(await first(apiKey, 'admit', 1, 'edge-a')).toMatchObject({ outcome: 'admitted', quota: { used: 1 } });
    expect(await store.usedToday(record.id, 'UTC')).toBe(1);
    // A new id is a new request: here refused by the (empty) bucket, and a refusal counts nothing.
    expect((await second(apiKey, 'admit', 1, 'edge-b')).outcome).toBe('burst_limit_exceeded');
    expect(await first(other.apiKey, 'admit', 1, 'edge-a')).toMatchObject({ outcome: 'admitted', quota: { used: 1 } });
    expect(await store.usedToday(record.id, 'UTC')).toBe(1);
    // Peeks never record an id, so an id first seen by a peek still counts when admitted.
    expect(await first(other.apiKey, 'peek', 1, 'edge-c')).toMatchObject({ outcome: 'authenticated', quota: { used: 1 } });
    expect(await first(other.apiKey, 'admit', 1, 'edge-c')).toMatchObject({ outcome: 'admitted', quota: { used: 2 } });
  });

  it('refunds a request admitted under an id at most once, and counts a retry of it again after the refund', async () => {
    const { apiKey, record } = await store.create({ owner: 'refunded-id', quota: 10 });
    const admit = createAdmitter({ redis: redis.redis, prefix: redis.prefix, timeZone: 'UTC', bucketDefaults: roomyBucket });
    const refund = createRefunder({ redis: redis.redis, prefix: redis.prefix });
    // Another request of the key's, answered: a second refund would wrongly give it back too.
    expect((await admit(apiKey, 'admit')).outcome).toBe('admitted');
    const first = await admit(apiKey, 'admit', 3, 'edge-r');
    if (first.outcome !== 'admitted') throw new Error(first.outcome);
    // A repeat on another instance that fails too must not give the request back a second time.
    const repeat = await admit(apiKey, 'admit', 3, 'edge-r');
    if (repeat.outcome !== 'admitted') throw new Error(repeat.outcome);
    // The first instance's refund comes after the repeat took the request over (HAProxy retries
    // a 503 as soon as it has it; the refund follows the response): the repeat answers for the
    // charge now, so nothing is given back until it fails too.
    await refund(first.quota, 3);
    expect(await store.usedToday(record.id, 'UTC')).toBe(4);
    await refund(repeat.quota, 3);
    await refund(repeat.quota, 3);
    expect(await store.usedToday(record.id, 'UTC')).toBe(1);
    // The client's request failed, so the edge may retry it: answered this time, it is charged.
    expect(await admit(apiKey, 'admit', 3, 'edge-r')).toMatchObject({ outcome: 'admitted', quota: { used: 4 } });
    expect(await store.usedToday(record.id, 'UTC')).toBe(4);
  });

  it('costs the same round trip for unknown, revoked and live keys (no existence oracle)', async () => {
    const admit = createAdmitter({ redis: redis.redis, prefix: redis.prefix, timeZone: 'UTC', bucketDefaults: roomyBucket });
    const live = (await store.create({ owner: 'timing-live', quota: 1_000_000 })).apiKey;
    const revoked = await store.create({ owner: 'timing-revoked', quota: 10 });
    await store.revoke(revoked.record.id);
    const candidates = { unknown: generateApiKey(), revoked: revoked.apiKey, live };
    const timings: Record<keyof typeof candidates, number[]> = { unknown: [], revoked: [], live: [] };
    for (let i = 0; i < 1_500; i += 1) {
      const label = (['unknown', 'revoked', 'live'] as const)[i % 3]!;
      const t0 = performance.now();
      await admit(candidates[label], 'peek');
      timings[label].push(performance.now() - t0);
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const medians = Object.values(timings).map((xs) => median(xs.slice(100)));
    // A shortcut that skipped Redis for unknown keys would be an order of magnitude faster.
    expect(Math.max(...medians) / Math.min(...medians)).toBeLessThan(2);
  });
});
