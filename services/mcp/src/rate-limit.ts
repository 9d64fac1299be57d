import type { RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import { createTokenBucket } from '@fragrance/api-keys';
import { RateLimitedError, ServiceUnavailableError } from '@fragrance/http';
import { Counter } from '@fragrance/metrics';
import type { AuthLocals } from './auth/bearer.ts';

const localAdmissions = new Counter({
  name: 'mcp_rate_limit_local_decisions_total',
  help: 'Per-user rate-limit decisions made by the in-process bucket because Redis was unreachable.',
});

/** A usage day is kept 35 days after its last count (docs/mcp.md). */
const USAGE_TTL_SECONDS = 35 * 86_400;

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

/** Users with a local bucket at most (while Redis is unreachable); the least recently seen is forgotten. */
const LOCAL_BUCKETS = 10_000;

/**
 * The same bucket held in this process, for while Redis cannot answer: per user, `burst` tokens
 * refilled at `perMinute`, so one user gets at most the burst plus the refill from each instance
 * during an outage, and nothing is counted in the usage hash (not billed: statistics only).
 */
function localBuckets(options: RateLimitOptions) {
  const buckets = new LRUCache<string, { tokens: number; at: number }>({ max: LOCAL_BUCKETS });
  const perMs = options.perMinute / 60_000;
  return (sub: string, at: number): { allowed: true } | { allowed: false; retryAfterSeconds: number } => {
    const held = buckets.get(sub) ?? { tokens: options.burst, at };
    const tokens = Math.min(options.burst, held.tokens + Math.max(0, at - held.at) * perMs);
    if (tokens < 1) {
      buckets.set(sub, { tokens, at });
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - tokens) / perMs / 1000)) };
    }
    buckets.set(sub, { tokens: tokens - 1, at });
    return { allowed: true };
  };
}

/**
 * Per-user token bucket plus a daily usage counter, in one atomic script per request (one round
 * trip): the api-keys token bucket (the gateway's rules, including its clock-skew guard), counting
 * each admitted request in the day's usage hash. While Redis cannot answer, a bucket of the same
 * size held in this process decides (localBuckets).
 */
export function createRateLimiter(options: RateLimitOptions): McpRateLimiter {
  const now = options.now ?? Date.now;
  const bucket = createTokenBucket({
    redis: options.redis,
    prefix: `${options.prefix}mcp:bucket:`,
    capacity: options.burst,
    refillPerSecond: options.perMinute / 60,
  });
  const usageKey = (day: string) => `${options.prefix}mcp:usage:${day}`;
  const local = localBuckets(options);
  return {
    async admit(sub, clientId) {
      const at = now();
      const day = new Date(at).toISOString().slice(0, 10);
      let decision;
      try {
        decision = await bucket.take(sub, {
          now: at,
          count: { key: usageKey(day), field: `${sub} ${clientId}`, ttlSeconds: USAGE_TTL_SECONDS },
        });
      } catch {
        localAdmissions.inc();
        return local(sub, at);
      }
      return decision.taken
        ? { allowed: true }
        : { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(decision.retryAfterMs / 1000)) };
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
