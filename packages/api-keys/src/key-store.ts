import type { Redis } from 'ioredis';
import { z } from 'zod';
import { dayWindow, localDate, systemClock, type Clock } from './day-window.ts';
import { generateApiKey, hashApiKey, isKeyId, keyHint, keyIdOfHash, type KeyKind } from './key-format.ts';
import { redisKeys } from './keys.ts';
import { KEY_SCOPES, OriginPattern, type KeyScope } from './restrictions.ts';

/** A key as operators see it. The plaintext is never part of it. */
export interface ApiKeyRecord {
  id: string;
  kind: KeyKind;
  /** The key's prefix and first random characters (`fcs_pk_Ab3d…`), to recognise it by. */
  hint: string;
  owner: string;
  /** rate_limit_per_day */
  quota: number;
  /** Per-key bucket overrides; absent means the gateway's defaults apply (secret keys). */
  burst?: number;
  refillPerSecond?: number;
  /** Secret keys: what the key may reach (every scope when created without any). */
  scopes: KeyScope[];
  /** Publishable keys: the page origins it is accepted from (exact, or one `*` label). */
  origins: string[];
  /** Publishable keys: per-visitor bucket overrides and the largest `limit` (the gateway's defaults otherwise). */
  visitorBurst?: number;
  visitorRefillPerSecond?: number;
  maxLimit?: number;
  createdAt: string;
  expiresAt?: string;
  lastUsedAt?: string;
  /** The client address of the last use (recorded with lastUsedAt, at most once a minute). */
  lastUsedFrom?: string;
  revokedAt?: string;
  /** Set on a rolled key: its successor, and when this key stops working. */
  successor?: { id: string; hint: string };
  retiresAt?: string;
  /** Set on a successor: the key it replaced. */
  rolledFrom?: string;
}

/** What a key is created with (the successor of a roll copies all of it). */
export interface NewKey {
  owner: string;
  quota: number;
  kind?: KeyKind;
  burst?: number;
  refillPerSecond?: number;
  scopes?: readonly KeyScope[];
  origins?: readonly string[];
  visitorBurst?: number;
  visitorRefillPerSecond?: number;
  maxLimit?: number;
  /** When the key stops working (ms since the epoch); never when absent. */
  expiresAt?: number;
}

export const MAX_QUOTA = 1_000_000_000;
export const Owner = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');
export const Quota = z.coerce.number().int('must be an integer').min(0, 'must be ≥ 0').max(MAX_QUOTA, `must be ≤ ${MAX_QUOTA}`);
export const Burst = z.coerce.number().int('must be an integer').min(1, 'must be ≥ 1').max(1_000_000);
export const Refill = z.coerce.number().positive('must be > 0').max(1_000_000);
/** The largest `limit` a publishable key may ask for (the contract's own maximum is 100). */
export const MaxLimit = z.coerce.number().int('must be an integer').min(1, 'must be ≥ 1').max(100, 'must be ≤ 100');
/** Longest grace of a roll: the old key works at most this long beside its successor. */
export const MAX_GRACE_MS = 90 * 86_400_000;

/** Thrown for a request the store refuses (bad restrictions, rolling a revoked key, …): the CLI prints it as a usage error. */
export class KeyRequestError extends Error {
  readonly code = 'bad_key_request';
}

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

const words = (value: string | undefined) => (value ? value.split(' ').filter(Boolean) : []);

function toRecord(fields: Record<string, string>): ApiKeyRecord {
  const kind: KeyKind = fields.kind === 'publishable' ? 'publishable' : 'secret';
  return {
    id: fields.id ?? '',
    kind,
    hint: fields.hint ?? '',
    owner: fields.owner ?? '',
    quota: Number(fields.quota ?? 0),
    ...(fields.burst ? { burst: Number(fields.burst) } : {}),
    ...(fields.refill ? { refillPerSecond: Number(fields.refill) } : {}),
    // Publishable keys reach the read endpoints only (the `search` scope).
    scopes: kind === 'publishable' ? ['search'] : fields.scopes ? (words(fields.scopes) as KeyScope[]) : [...KEY_SCOPES],
    origins: words(fields.origins),
    ...(fields.visitor_burst ? { visitorBurst: Number(fields.visitor_burst) } : {}),
    ...(fields.visitor_refill ? { visitorRefillPerSecond: Number(fields.visitor_refill) } : {}),
    ...(fields.max_limit ? { maxLimit: Number(fields.max_limit) } : {}),
    createdAt: iso(fields.created_at) ?? '',
    ...(fields.expires_at ? { expiresAt: iso(fields.expires_at) } : {}),
    ...(fields.last_used_at ? { lastUsedAt: iso(fields.last_used_at) } : {}),
    ...(fields.last_used_ip ? { lastUsedFrom: fields.last_used_ip } : {}),
    ...(fields.revoked_at ? { revokedAt: iso(fields.revoked_at) } : {}),
    ...(fields.successor ? { successor: { id: fields.successor, hint: fields.successor_hint ?? '' } } : {}),
    ...(fields.retires_at ? { retiresAt: iso(fields.retires_at) } : {}),
    ...(fields.rolled_from ? { rolledFrom: fields.rolled_from } : {}),
  };
}

/** The stored fields of a new key, validated: restrictions that do not fit its kind are refused. */
function fieldsOf(input: NewKey, id: string, hint: string, now: number): Record<string, string> {
  const kind = input.kind ?? 'secret';
  const fields: Record<string, string> = {
    id,
    hint,
    owner: Owner.parse(input.owner),
    quota: String(Quota.parse(input.quota)),
    created_at: String(now),
  };
  const origins = (input.origins ?? []).map((origin) => OriginPattern.parse(origin));
  if (kind === 'publishable') {
    if (origins.length === 0) throw new KeyRequestError('a publishable key needs at least one allowed origin');
    if (input.scopes !== undefined)
      throw new KeyRequestError('scopes are for secret keys (a publishable key reaches the read endpoints only)');
    if (input.burst !== undefined || input.refillPerSecond !== undefined)
      throw new KeyRequestError('a publishable key is limited per visitor: use its visitor burst and refill');
    fields.kind = 'publishable';
    fields.origins = [...new Set(origins)].join(' ');
    if (input.visitorBurst !== undefined) fields.visitor_burst = String(Burst.parse(input.visitorBurst));
    if (input.visitorRefillPerSecond !== undefined) fields.visitor_refill = String(Refill.parse(input.visitorRefillPerSecond));
    if (input.maxLimit !== undefined) fields.max_limit = String(MaxLimit.parse(input.maxLimit));
  } else {
    if (
      origins.length > 0 ||
      input.visitorBurst !== undefined ||
      input.visitorRefillPerSecond !== undefined ||
      input.maxLimit !== undefined
    )
      throw new KeyRequestError('origins, visitor limits and a maximum limit are for publishable keys');
    if (input.burst !== undefined) fields.burst = String(Burst.parse(input.burst));
    if (input.refillPerSecond !== undefined) fields.refill = String(Refill.parse(input.refillPerSecond));
    const scopes = input.scopes === undefined ? undefined : [...new Set(input.scopes)];
    if (scopes?.length === 0) throw new KeyRequestError('a secret key needs at least one scope');
    // No field means every scope, so a key made before scopes existed keeps reaching everything.
    if (scopes !== undefined && scopes.length < KEY_SCOPES.length) fields.scopes = KEY_SCOPES.filter((s) => scopes.includes(s)).join(' ');
  }
  if (input.expiresAt !== undefined) {
    if (!Number.isSafeInteger(input.expiresAt) || input.expiresAt <= now) throw new KeyRequestError('the expiry must be in the future');
    fields.expires_at = String(input.expiresAt);
  }
  return fields;
}

/** What a successor copies from the key it replaces. */
function restrictionsOf(record: ApiKeyRecord): NewKey {
  return {
    owner: record.owner,
    quota: record.quota,
    kind: record.kind,
    ...(record.burst !== undefined ? { burst: record.burst } : {}),
    ...(record.refillPerSecond !== undefined ? { refillPerSecond: record.refillPerSecond } : {}),
    ...(record.kind === 'secret' ? { scopes: record.scopes } : { origins: record.origins }),
    ...(record.visitorBurst !== undefined ? { visitorBurst: record.visitorBurst } : {}),
    ...(record.visitorRefillPerSecond !== undefined ? { visitorRefillPerSecond: record.visitorRefillPerSecond } : {}),
    ...(record.maxLimit !== undefined ? { maxLimit: record.maxLimit } : {}),
  };
}

/** What every operation of the store works on. */
interface Store {
  redis: Redis;
  keys: ReturnType<typeof redisKeys>;
  clock: Clock;
}

async function hashOf({ redis, keys }: Store, id: string): Promise<string> {
  const hash = isKeyId(id) ? await redis.hget(keys.index(), id) : null;
  if (!hash) throw new UnknownKeyError(id);
  return hash;
}

async function getKey(store: Store, id: string): Promise<ApiKeyRecord> {
  const fields = await store.redis.hgetall(store.keys.record(await hashOf(store, id)));
  if (!fields.id) throw new UnknownKeyError(id);
  return toRecord(fields);
}

/**
 * Writes a new key (and, for a roll, marks the key it replaces) in one MULTI: the record and its
 * index entry appear together. HSETNX refuses the (2^-64) case of an id collision instead of
 * repointing an existing id.
 */
async function insertKey(
  store: Store,
  input: NewKey,
  rolled?: { hash: string; retiresAt: number },
): Promise<{ apiKey: string; record: ApiKeyRecord }> {
  const { redis, keys } = store;
  const apiKey = generateApiKey(input.kind ?? 'secret');
  const hash = hashApiKey(apiKey);
  const id = keyIdOfHash(hash);
  const fields = fieldsOf(input, id, keyHint(apiKey), store.clock());
  const multi = redis.multi().hsetnx(keys.index(), id, hash).hset(keys.record(hash), fields);
  if (rolled) {
    multi.hset(keys.record(hash), 'rolled_from', keyIdOfHash(rolled.hash));
    multi.hset(keys.record(rolled.hash), 'successor', id, 'successor_hint', fields.hint ?? '', 'retires_at', String(rolled.retiresAt));
  }
  const replies = (await multi.exec()) ?? [];
  for (const [error] of replies) if (error) throw error;
  if (replies[0]?.[1] !== 1) {
    await redis.unlink(keys.record(hash));
    throw new Error('key id collision; run the command again');
  }
  return { apiKey, record: rolled ? await getKey(store, id) : toRecord(fields) };
}

async function rollKey(
  store: Store,
  id: string,
  options: { graceMs: number; expiresAt?: number },
): Promise<{ apiKey: string; record: ApiKeyRecord; old: ApiKeyRecord }> {
  if (!Number.isSafeInteger(options.graceMs) || options.graceMs < 0 || options.graceMs > MAX_GRACE_MS)
    throw new KeyRequestError(`the grace must be from 0 to ${MAX_GRACE_MS / 86_400_000} days`);
  const hash = await hashOf(store, id);
  const old = await getKey(store, id);
  if (old.revokedAt) throw new KeyRequestError(`${id} is revoked; create a new key instead`);
  if (old.successor) throw new KeyRequestError(`${id} was already rolled to ${old.successor.id}; roll that one`);
  const now = store.clock();
  const keptExpiry = old.expiresAt ? Date.parse(old.expiresAt) : undefined;
  const expiresAt = options.expiresAt ?? (keptExpiry !== undefined && keptExpiry > now ? keptExpiry : undefined);
  const created = await insertKey(
    store,
    { ...restrictionsOf(old), ...(expiresAt !== undefined ? { expiresAt } : {}) },
    { hash, retiresAt: now + options.graceMs },
  );
  return { ...created, old: await getKey(store, id) };
}

async function listKeys({ redis, keys }: Store): Promise<ApiKeyRecord[]> {
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
}

async function revokeKey(store: Store, id: string): Promise<ApiKeyRecord> {
  const hash = await hashOf(store, id);
  await store.redis.hsetnx(store.keys.record(hash), 'revoked_at', String(store.clock()));
  return getKey(store, id);
}

async function setQuota(store: Store, id: string, quota: number): Promise<ApiKeyRecord> {
  const value = Quota.parse(quota);
  await store.redis.hset(store.keys.record(await hashOf(store, id)), 'quota', String(value));
  return getKey(store, id);
}

async function setBurst(store: Store, id: string, burst: number, refillPerSecond: number): Promise<ApiKeyRecord> {
  const hash = await hashOf(store, id);
  const [size, refill] = (await getKey(store, id)).kind === 'publishable' ? ['visitor_burst', 'visitor_refill'] : ['burst', 'refill'];
  await store.redis.hset(store.keys.record(hash), size, String(Burst.parse(burst)), refill, String(Refill.parse(refillPerSecond)));
  return getKey(store, id);
}

async function usageByDay(store: Store, id: string, days: number, timeZone: string): Promise<{ day: string; requests: number }[]> {
  await hashOf(store, id);
  const dayList: string[] = [];
  let cursor = store.clock();
  for (let i = 0; i < days; i += 1) {
    const window = dayWindow(cursor, timeZone);
    dayList.unshift(window.day);
    cursor = window.startsAt - 1;
  }
  const counts = dayList.length > 0 ? await store.redis.mget(dayList.map((day) => store.keys.usage(id, day))) : [];
  return dayList.map((day, i) => ({ day, requests: Number(counts[i] ?? 0) }));
}

async function usedToday(store: Store, id: string, timeZone: string): Promise<number> {
  await hashOf(store, id);
  return Number((await store.redis.get(store.keys.usage(id, localDate(store.clock(), timeZone)))) ?? 0);
}

/** Operator-side access to API keys (the gateway only ever runs the admission script). */
export function createKeyStore({ redis, prefix, clock = systemClock }: KeyStoreOptions) {
  const store: Store = { redis, keys: redisKeys(prefix), clock };
  return {
    /** Creates a key and returns its plaintext: the only moment it exists outside the caller. */
    create: (input: NewKey) => insertKey(store, input),

    /**
     * Rolls a key: a successor with the same owner, quota and restrictions (its plaintext returned
     * once), while the old key keeps working for `graceMs` and then refuses naming the successor.
     * `expiresAt` replaces the old key's expiry on the successor (kept when absent).
     */
    roll: (id: string, options: { graceMs: number; expiresAt?: number }) => rollKey(store, id, options),

    get: (id: string) => getKey(store, id),

    /** Every key, newest first. */
    list: () => listKeys(store),

    /** Takes effect on the very next request: the gateway reads the record on every request. */
    revoke: (id: string) => revokeKey(store, id),

    setQuota: (id: string, quota: number) => setQuota(store, id, quota),

    /** A secret key's bucket, or a publishable key's per-visitor bucket. */
    setBurst: (id: string, burst: number, refillPerSecond: number) => setBurst(store, id, burst, refillPerSecond),

    /** Admitted requests per quota day, oldest first, ending today (days without traffic are 0). */
    usage: (id: string, days: number, timeZone: string) => usageByDay(store, id, days, timeZone),

    /** Today's count in the quota timezone (what GET /v1/me shows as used_today). */
    usedToday: (id: string, timeZone: string) => usedToday(store, id, timeZone),
  };
}

export type KeyStore = ReturnType<typeof createKeyStore>;
