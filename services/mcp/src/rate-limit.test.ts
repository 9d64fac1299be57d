import { describe, expect } from 'vitest';
import { createRateLimiter } from './rate-limit.ts';
import { mcpTest as it } from './testing/app.ts';

describe('per-user MCP rate limit (token bucket in Redis)', () => {
  it('admits the burst, refuses the next with a wait, and refills at the sustained rate', async ({ redis: t }) => {
    let clock = 1_800_000_000_000;
    const limiter = createRateLimiter({ redis: t.redis, prefix: t.prefix, perMinute: 60, burst: 2, now: () => clock });
    expect(await limiter.admit('u1', 'c1')).toEqual({ allowed: true });
    expect(await limiter.admit('u1', 'c1')).toEqual({ allowed: true });
    expect(await limiter.admit('u1', 'c1')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    clock += 1_000; // one request per second sustained
    expect(await limiter.admit('u1', 'c1')).toEqual({ allowed: true });
    expect((await limiter.admit('u1', 'c1')).allowed).toBe(false);
    clock += 60_000; // refills to the burst, not beyond
    expect((await limiter.admit('u1', 'c2')).allowed).toBe(true);
    expect((await limiter.admit('u1', 'c2')).allowed).toBe(true);
    expect((await limiter.admit('u1', 'c2')).allowed).toBe(false);
    const day = new Date(clock).toISOString().slice(0, 10);
    expect(await limiter.usage(day)).toEqual({ 'u1 c1': 3, 'u1 c2': 2 });
  });

  it('does not refill for time running backwards (MCP servers whose clocks disagree)', async ({ redis: t }) => {
    let clock = 1_800_000_000_000;
    const limiter = createRateLimiter({ redis: t.redis, prefix: t.prefix, perMinute: 60, burst: 2, now: () => clock });
    expect((await limiter.admit('skew', 'c')).allowed).toBe(true);
    expect((await limiter.admit('skew', 'c')).allowed).toBe(true);
    clock -= 5_000; // a server 5 s behind: the bucket is still empty
    expect(await limiter.admit('skew', 'c')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    clock += 6_000; // 1 s after the last token was taken: one token, not six seconds' worth
    expect((await limiter.admit('skew', 'c')).allowed).toBe(true);
    expect((await limiter.admit('skew', 'c')).allowed).toBe(false);
  });

  it('keeps users apart and lets its keys expire', async ({ redis: t }) => {
    const limiter = createRateLimiter({ redis: t.redis, prefix: t.prefix, perMinute: 60, burst: 1 });
    expect((await limiter.admit('u2', 'c')).allowed).toBe(true);
    expect((await limiter.admit('u2', 'c')).allowed).toBe(false);
    expect((await limiter.admit('u3', 'c')).allowed).toBe(true);
    const ttl = await t.redis.pttl(`${t.prefix}mcp:bucket:u2`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(2_000);
  });
});
