import type { Redis } from 'ioredis';
import { z } from 'zod';
import { dayWindow, localDate, systemClock, type Clock } from './day-window.ts';
import { generateApiKey, hashApiKey, isKeyId, keyIdOfHash } from './key-format.ts';
import { redisKeys } from './keys.ts';

/** A key as operators see it. The plaintext is never part of it. */
export interface ApiKeyRecord {
  id: string;
  owner: string;
  /** rate_limit_per_day */
  quota: number;
  /** Per-key bucket overrides; absent means the gateway's defaults apply. */
  burst?: number;
  refillPerSecond?: number;
  createdAt: string;
  lastUsedAt?: string;
  revokedAt?: string;
}

export const MAX_QUOTA = 1_000_000_000;
export const Owner = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');
export const Quota = z.coerce.number().int('must be an integer').min(0, 'must be ≥ 0').max(MAX_QUOTA, `must be ≤ ${MAX_QUOTA}`);
export const Burst = z.coerce.number().int('must be an integer').min(1, 'must be ≥ 1').max(1_000_000);
export const Refill = z.coerce.number().positive('must be > 0').max(1_000_000);

/** Thrown for an id that names no key: the CLI prints it as a plain error. */
export class UnknownKeyError extends Error {
  readonly code = 'unknown_key';
  constructor(id: string) {
    super(`no API key with id ${id}`);
  }
}

export interface KeyStoreOptions {
  redis: Redis;
  prefix: string;
  clock?: Clock;
}

const iso = (ms: string | undefined) => (ms ? new Date(Number(ms)).toISOString() : undefined);

function toRecord(fields: Record<string, string>): ApiKeyRecord {
  return {
    id: fields.id ?? '',
    owner: fields.owner ?? '',
    quota: Number(fields.quota ?? 0),
    ...(fields.burst ? { burst: Number(fields.burst) } : {}),
    ...(fields.refill ? { refillPerSecond: Number(fields.refill) } : {}),
    createdAt: iso(fields.created_at) ?? '',
    ...(fields.last_used_at ? { lastUsedAt: iso(fields.last_used_at) } : {}),
    ...(fields.revoked_at ? { revokedAt: iso(fields.revoked_at) } : {}),
  };
}

/** Operator-side access to API keys (the gateway only ever runs the admission script). */
export function createKeyStore({ redis, prefix, clock = systemClock }: KeyStoreOptions) {
  const keys = redisKeys(prefix);

  async function hashOf(id: string): Promise<string> {
    const hash = isKeyId(id) ? await redis.hget(keys.index(), id) : null;
    if (!hash) throw new UnknownKeyError(id);
    return hash;
  }

  async function get(id: string): Promise<ApiKeyRecord> {
    const fields = await redis.hgetall(keys.record(await hashOf(id)));
    if (!fields.id) throw new UnknownKeyError(id);
    return toRecord(fields);
  }

  return {
    /** Creates a key and returns its plaintext: the only moment it exists outside the caller. */
    async create(input: {
      owner: string;
      quota: number;
      burst?: number;
      refillPerSecond?: number;
    }): Promise<{ apiKey: string; record: ApiKeyRecord }> {
      const owner = Owner.parse(input.owner);
      const quota = Quota.parse(input.quota);
      const apiKey = generateApiKey();
      const hash = hashApiKey(apiKey);
      const id = keyIdOfHash(hash);
      const fields: Record<string, string> = { id, owner, quota: String(quota), created_at: String(clock()) };
      if (input.burst !== undefined) fields.burst = String(Burst.parse(input.burst));
      if (input.refillPerSecond !== undefined) fields.refill = String(Refill.parse(input.refillPerSecond));
      // One MULTI: the record and its index entry appear together. HSETNX refuses the (2^-64)
      // case of an id collision instead of repointing an existing id.
      const replies = (await redis.multi().hsetnx(keys.index(), id, hash).hset(keys.record(hash), fields).exec()) ?? [];
      for (const [error] of replies) if (error) throw error;
      if (replies[0]?.[1] !== 1) {
        await redis.unlink(keys.record(hash));
        throw new Error('key id collision; run the command again');
      }
      return { apiKey, record: toRecord(fields) };
    },

    get,

    /** Every key, newest first. */
    async list(): Promise<ApiKeyRecord[]> {
      const hashes = Object.values(await redis.hgetall(keys.index()));
      const pipeline = redis.pipeline();
      for (const hash of hashes) pipeline.hgetall(keys.record(hash));
      const replies = (await pipeline.exec()) ?? [];
      const records = replies
        .map(([error, fields]) => {
          if (error) throw error;
          return fields as Record<string, string>;
        })
        .filter((fields) => fields.id)
        .map(toRecord);
      return records.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id));
    },

    /** Takes effect on the very next request: the gateway reads the record on every request. */
    async revoke(id: string): Promise<ApiKeyRecord> {
      const hash = await hashOf(id);
      await redis.hsetnx(keys.record(hash), 'revoked_at', String(clock()));
      return get(id);
    },

    async setQuota(id: string, quota: number): Promise<ApiKeyRecord> {
      const value = Quota.parse(quota);
      await redis.hset(keys.record(await hashOf(id)), 'quota', String(value));
      return get(id);
    },

    async setBurst(id: string, burst: number, refillPerSecond: number): Promise<ApiKeyRecord> {
      const hash = await hashOf(id);
      await redis.hset(keys.record(hash), 'burst', String(Burst.parse(burst)), 'refill', String(Refill.parse(refillPerSecond)));
      return get(id);
    },

    /** Admitted requests per quota day, oldest first, ending today (days without traffic are 0). */
    async usage(id: string, days: number, timeZone: string): Promise<{ day: string; requests: number }[]> {
      await hashOf(id);
      const dayList: string[] = [];
      let cursor = clock();
      for (let i = 0; i < days; i += 1) {
        const window = dayWindow(cursor, timeZone);
        dayList.unshift(window.day);
        cursor = window.startsAt - 1;
      }
      const counts = dayList.length > 0 ? await redis.mget(dayList.map((day) => keys.usage(id, day))) : [];
      return dayList.map((day, i) => ({ day, requests: Number(counts[i] ?? 0) }));
    },

    /** Today's count in the quota timezone (what GET /v1/me shows as used_today). */
    async usedToday(id: string, timeZone: string): Promise<number> {
      await hashOf(id);
      return Number((await redis.get(keys.usage(id, localDate(clock(), timeZone)))) ?? 0);
    },
  };
}

export type KeyStore = ReturnType<typeof createKeyStore>;
