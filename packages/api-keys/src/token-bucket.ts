import type { Redis } from 'ioredis';
import { systemClock, type Clock } from './day-window.ts';
import { loadLuaScript, scriptCommand, type ScriptArg } from '@fragrance/redis';

// The same bucket function admit.lua runs for API keys, wrapped as a script of its own.
const TAKE_TOKEN = loadLuaScript(new URL('./take-token.lua', import.meta.url));
const COMMAND = 'fcsTakeToken';

export interface TokenBucketOptions {
  redis: Redis;
  /** Bucket `id` is the Redis hash `${prefix}${id}`. */
  prefix: string;
  /** Most requests at once (the bucket size). */
  capacity: number;
  /** Tokens added back per second: the sustained rate. */
  refillPerSecond: number;
  clock?: Clock;
}

/** A hash field to count requests that got a token, in the same atomic step (usage accounting). */
export interface TakenCounter {
  key: string;
  field: string;
  /** The counter hash's expiry, renewed on every count. */
  ttlSeconds: number;
}

export type TokenDecision = { taken: true } | { taken: false; retryAfterMs: number };

export interface TokenBucket {
  /**
   * Takes one token from bucket `id` (one atomic script, one round trip): refused while the bucket
   * is empty, never refilled for time running backwards (callers' clocks may disagree).
   * `now` defaults to the clock; `count` is incremented only when a token is taken.
   */
  take(id: string, options?: { now?: number; count?: TakenCounter }): Promise<TokenDecision>;
}

/** A Redis token bucket per id, with the rules of the gateway's per-key burst limit (includes/token-bucket.lua). */
export function createTokenBucket({ redis, prefix, capacity, refillPerSecond, clock = systemClock }: TokenBucketOptions): TokenBucket {
  if (!(capacity >= 1)) throw new RangeError('capacity must be at least 1');
  if (!(refillPerSecond > 0)) throw new RangeError('refillPerSecond must be positive');
  const takeToken = scriptCommand<[taken: number, retryMs: number]>(redis, COMMAND, TAKE_TOKEN);
  return {
    async take(id, { now = clock(), count } = {}) {
      const bucketArgs: ScriptArg[] = [capacity, refillPerSecond, now];
      const [taken, retryMs] = count
        ? await takeToken(2, `${prefix}${id}`, count.key, ...bucketArgs, count.field, count.ttlSeconds)
        : await takeToken(1, `${prefix}${id}`, ...bucketArgs);
      return taken === 1 ? { taken: true } : { taken: false, retryAfterMs: retryMs };
    },
  };
}
