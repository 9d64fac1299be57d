import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRedis, type TestRedis } from '@fragrance/testkit';
import { createTokenBucket } from './token-bucket.ts';

describe('token bucket (token-bucket.lua, the one admit.lua runs too)', () => {
  let t: TestRedis;
  beforeAll(async () => {
    t = await testRedis('token-bucket');
  });
  afterAll(() => t.cleanup());

  const T0 = 1_800_000_000_000;

  it('admits the capacity at once, says when the next token comes, and refills up to the capacity only', async () => {
    let clock = T0;
    const bucket = createTokenBucket({ redis: t.redis, prefix: `${t.prefix}b:`, capacity: 3, refillPerSecond: 2, clock: () => clock });
    for (let i = 0; i < 3; i += 1) expect(await bucket.take('a')).toEqual({ taken: true });
    expect(await bucket.take('a')).toEqual({ taken: false, retryAfterMs: 500 });
    clock += 250;
    expect(await bucket.take('a')).toEqual({ taken: false, retryAfterMs: 250 });
    clock += 250;
    expect(await bucket.take('a')).toEqual({ taken: true });
    clock += 60_000;
    for (let i = 0; i < 3; i += 1) expect((await bucket.take('a')).taken).toBe(true);
    expect((await bucket.take('a')).taken).toBe(false);
    // Another id has a bucket of its own.
    expect((await bucket.take('other')).taken).toBe(true);
  });

  it('never refills for time running backwards (callers whose clocks disagree)', async () => {
    const bucket = createTokenBucket({ redis: t.redis, prefix: `${t.prefix}b:`, capacity: 2, refillPerSecond: 1 });
    expect((await bucket.take('skew', { now: T0 })).taken).toBe(true);
    expect((await bucket.take('skew', { now: T0 })).taken).toBe(true);
    expect(await bucket.take('skew', { now: T0 - 5_000 })).toEqual({ taken: false, retryAfterMs: 1_000 });
    expect((await bucket.take('skew', { now: T0 + 1_000 })).taken).toBe(true);
    expect((await bucket.take('skew', { now: T0 + 1_000 })).taken).toBe(false);
  });

  it('counts only the requests that got a token, in the same step, and lets its keys expire', async () => {
    const bucket = createTokenBucket({ redis: t.redis, prefix: `${t.prefix}b:`, capacity: 2, refillPerSecond: 0.5, clock: () => T0 });
    const count = { key: `${t.prefix}counted`, field: 'user client', ttlSeconds: 600 };
    for (let i = 0; i < 3; i += 1) await bucket.take('c', { count });
    expect(await t.redis.hget(count.key, count.field)).toBe('2');
    const counterTtl = await t.redis.ttl(count.key);
    expect(counterTtl).toBeGreaterThan(590);
    expect(counterTtl).toBeLessThanOrEqual(600);
    // Empty → full takes capacity / refill = 4 s; the bucket then expires.
    const bucketTtl = await t.redis.pttl(`${t.prefix}b:c`);
    expect(bucketTtl).toBeGreaterThan(4_000);
    expect(bucketTtl).toBeLessThanOrEqual(5_000);
  });

  it('refuses settings that would never admit or never refill', () => {
    expect(() => createTokenBucket({ redis: t.redis, prefix: t.prefix, capacity: 0, refillPerSecond: 1 })).toThrow(RangeError);
    expect(() => createTokenBucket({ redis: t.redis, prefix: t.prefix, capacity: 1, refillPerSecond: 0 })).toThrow(RangeError);
  });
});
