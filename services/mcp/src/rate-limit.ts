import type { RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import { RateLimitedError, ServiceUnavailableError } from '@fragrance/http';
import type { AuthLocals } from './auth/bearer.ts';

/**
 * Per-user token bucket plus a daily usage counter, in one atomic script (one round trip):
 * KEYS[1] bucket hash {tokens, at}, KEYS[2] daily usage hash; ARGV capacity, refill per ms,
 * now ms, usage field. Returns {allowed 0|1, ms until one token is available}.
 */
const SCRIPT = `
local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local bucket = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(bucket[1]) or capacity
local at = tonumber(bucket[2]) or now
tokens = math.min(capacity, tokens + math.max(0, now - at) * rate)
local allowed = 0
local wait = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
  redis.call('HINCRBY', KEYS[2], ARGV[4], 1)
  redis.call('EXPIRE', KEYS[2], 3024000)
else
  wait = math.ceil((1 - tokens) / rate)
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(capacity / rate) + 1000)
return {allowed, wait}
`;

export interface RateLimitOptions {
  redis: Redis;
  /** Key prefix (`fcs:` in production); keys live under `<prefix>mcp:`. */
  prefix: string;
  perMinute: number;
  burst: number;
  now?: () => number;
}

export interface McpRateLimiter {
  /** Admits one request of `sub` made through `clientId`, or says how long to wait. */
  admit(sub: string, clientId: string): Promise<{ allowed: true } | { allowed: false; retryAfterSeconds: number }>;
  /** Admitted MCP requests of a day (UTC), by `sub client_id`. */
  usage(day: string): Promise<Record<string, number>>;
}

export function createRateLimiter(options: RateLimitOptions): McpRateLimiter {
  const now = options.now ?? Date.now;
  const ratePerMs = options.perMinute / 60_000;
  const usageKey = (day: string) => `${options.prefix}mcp:usage:${day}`;
  return {
    async admit(sub, clientId) {
      const at = now();
      const day = new Date(at).toISOString().slice(0, 10);
      const [allowed, waitMs] = (await options.redis.eval(
        SCRIPT,
        2,
        `${options.prefix}mcp:bucket:${sub}`,
        usageKey(day),
        options.burst,
        ratePerMs,
        at,
        `${sub} ${clientId}`,
      )) as [number, number];
      return allowed === 1 ? { allowed: true } : { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
    },
    async usage(day) {
      const raw = await options.redis.hgetall(usageKey(day));
      return Object.fromEntries(Object.entries(raw).map(([field, count]) => [field, Number(count)]));
    },
  };
}

/** Runs after the bearer check: one assistant (one user) cannot flood the catalogue. */
export function rateLimitPerUser(limiter: McpRateLimiter): RequestHandler {
  return async (_req, res, next) => {
    const { caller } = res.locals as AuthLocals;
    let decision;
    try {
      decision = await limiter.admit(caller.sub, caller.clientId);
    } catch (error) {
      throw new ServiceUnavailableError('Usage accounting is unavailable; retry shortly.', error);
    }
    if (!decision.allowed) {
      throw new RateLimitedError(decision.retryAfterSeconds, 'Too many MCP requests for this user; slow down.', 'mcp_rate_limited');
    }
    next();
  };
}
