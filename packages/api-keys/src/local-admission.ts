import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { AdmissionJournal } from './admission-journal.ts';
import { dayWindow, secondsUntil, type Clock } from './day-window.ts';
import type { KeyKind } from './key-format.ts';
import { redisKeys } from './keys.ts';
import { accessAllowed, originAllowed } from './restrictions.ts';
import type { RequestFacts } from './admission.ts';

/** What a local decision needs of a key's record (read from Redis while it answers). */
interface CachedRecord {
  scopes: string | undefined;
  origins: string | undefined;
  maxLimit: number | undefined;
  burst: number | undefined;
  visitorBurst: number | undefined;
  expiresAt: number | undefined;
  retiresAt: number | undefined;
  successorHint: string;
}

/** A key Redis last found live, as it was then. */
interface CachedKey {
  keyId: string;
  kind: KeyKind;
  owner: string;
  /** When Redis last decided on this key and found it live (not unknown, revoked, expired or rolled). */
  validatedAt: number;
  limit: number;
  /** Requests counted on `day` at that decision. */
  used: number;
  day: string;
  record?: CachedRecord;
  recordAt: number;
  /** Requests admitted here since Redis last decided on this key (on `localDay`): the allowance spent. */
  local: number;
  localDay: string;
}

/** What a decision of the admission script told about a key (see admission.ts). */
export type Sighting =
  { live: false } | { live: true; keyId: string; kind: KeyKind; owner: string; limit: number; used: number; day: string };

/** The outcome of a local decision, in the admitter's vocabulary (built there). */
export type LocalDecision =
  | { outcome: 'unavailable' }
  | { outcome: 'key_expired'; expiredAt: number }
  | { outcome: 'key_rolled'; successorHint: string; retiredAt: number }
  | { outcome: 'not_allowed'; reason: 'scope' | 'origin' | 'limit'; maxLimit?: number }
  | { outcome: 'daily_quota_exceeded' | 'burst_limit_exceeded'; entry: LocalQuota }
  | { outcome: 'admitted' | 'authenticated'; entry: LocalQuota; admissionId?: string };

export interface LocalQuota {
  keyId: string;
  kind: KeyKind;
  owner: string;
  day: string;
  limit: number;
  used: number;
  resetsAt: number;
  resetInSeconds: number;
}

/** One degraded period, reported when Redis answers again. */
export interface DegradedPeriod {
  startedAt: number;
  durationMs: number;
  admittedLocally: number;
  refused: number;
}

export interface LocalAdmissionOptions {
  redis: Redis;
  prefix: string;
  timeZone: string;
  journal: AdmissionJournal;
  /** A key is admitted locally only if Redis found it live at most this long ago (revocation bound). */
  maxAgeMs: number;
  /** Keys remembered (least recently seen dropped first). */
  maxKeys?: number;
  bucketDefaults: { capacity: number };
  visitorDefaults: { capacity: number; maxLimit: number };
  clock?: Clock;
  /** Called when Redis answers after a degraded period. */
  onRecovered?: (period: DegradedPeriod) => void;
}

export interface LocalAdmission {
  /**
   * After every decision Redis made: remember a live key, forget any other. A key's record is
   * read the first time (the promise: the caller waits for that one read) and re-read in the
   * background at most every maxAgeMs / 3.
   */
  saw(hash: string, sighting: Sighting): Promise<void> | undefined;
  /** Redis failed: decide from what was seen (mode, units, facts as for the admitter). */
  decide(hash: string, mode: 'admit' | 'peek', units: number, facts: RequestFacts, edgeId: string | undefined): LocalDecision;
  degradedSince(): number | undefined;
  /** Redis answered (a PING while no request came): ends the degraded period, if any. */
  recovered(): void;
  /** When Redis last decided on a key (ms), if ever: until maxAgeMs after it, the cache can still admit. */
  lastSightingAt(): number | undefined;
}

const RECORD_FIELDS = ['scopes', 'origins', 'max_limit', 'burst', 'visitor_burst', 'expires_at', 'retires_at', 'successor_hint'] as const;
const num = (value: string | null | undefined): number | undefined => (value ? Number(value) : undefined);

function restrictionRefusal(
  entry: CachedKey,
  record: CachedRecord,
  facts: RequestFacts,
  now: number,
  fallbackMaxLimit: number,
): LocalDecision | undefined {
  if (record.expiresAt !== undefined && now >= record.expiresAt) return { outcome: 'key_expired', expiredAt: record.expiresAt };
  if (record.retiresAt !== undefined && now >= record.retiresAt)
    return { outcome: 'key_rolled', successorHint: record.successorHint, retiredAt: record.retiresAt };
  const publishable = entry.kind === 'publishable';
  if (!accessAllowed(publishable, record.scopes, facts.access ?? 'any')) return { outcome: 'not_allowed', reason: 'scope' };
  if (!publishable) return undefined;
  if (!originAllowed(record.origins, facts.origin ?? '')) return { outcome: 'not_allowed', reason: 'origin' };
  const maxLimit = record.maxLimit ?? fallbackMaxLimit;
  if ((facts.limit ?? 0) > maxLimit) return { outcome: 'not_allowed', reason: 'limit', maxLimit };
  return undefined;
}

/** Reads a key's record into its cache entry in the background, one read per key at a time (errors: the next sighting tries again). */
function recordReader(redis: Redis, recordKey: (hash: string) => string, clock: Clock) {
  const reading = new Set<string>();
  return (hash: string, entry: CachedKey): Promise<void> | undefined => {
    if (reading.has(hash)) return undefined;
    reading.add(hash);
    return redis
      .hmget(recordKey(hash), ...RECORD_FIELDS)
      .then(([scopes, origins, maxLimit, burst, visitorBurst, expiresAt, retiresAt, successorHint]) => {
        entry.record = {
          scopes: scopes ?? undefined,
          origins: origins ?? undefined,
          maxLimit: num(maxLimit),
          burst: num(burst),
          visitorBurst: num(visitorBurst),
          expiresAt: num(expiresAt),
          retiresAt: num(retiresAt),
          successorHint: successorHint ?? '',
        };
        entry.recordAt = clock();
      })
      .catch(() => undefined)
      .finally(() => reading.delete(hash));
  };
}

const newEntry = (keyId: string, kind: KeyKind): CachedKey => ({
  keyId,
  kind,
  owner: '',
  validatedAt: 0,
  limit: 0,
  used: 0,
  day: '',
  recordAt: 0,
  local: 0,
  localDay: '',
});

/** The quota as this instance estimates it, for the headers and /v1/me. */
function localQuota(entry: CachedKey, window: { day: string; resetsAt: number }, used: number, now: number): LocalQuota {
  return {
    keyId: entry.keyId,
    kind: entry.kind,
    owner: entry.owner,
    day: window.day,
    limit: entry.limit,
    used,
    resetsAt: window.resetsAt,
    resetInSeconds: secondsUntil(window.resetsAt, now),
  };
}

/** Remembers a key Redis found live as the most recently seen; the least recently seen goes past maxKeys. */
function remember(
  cache: Map<string, CachedKey>,
  hash: string,
  sighting: Sighting & { live: true },
  now: number,
  maxKeys: number,
): CachedKey {
  const entry = cache.get(hash) ?? newEntry(sighting.keyId, sighting.kind);
  cache.delete(hash); // re-inserted last: the Map's order is the recency order
  // Redis's count now includes what it was told; the allowance starts again from this sighting.
  Object.assign(entry, {
    owner: sighting.owner,
    validatedAt: now,
    limit: sighting.limit,
    used: sighting.used,
    day: sighting.day,
    local: 0,
  });
  cache.set(hash, entry);
  if (cache.size > maxKeys) cache.delete(cache.keys().next().value!);
  return entry;
}

type DecisionRules = Pick<LocalAdmissionOptions, 'journal' | 'maxAgeMs' | 'timeZone' | 'bucketDefaults' | 'visitorDefaults'>;

/** One request decided from a key's cache entry; an admission is journalled and spends the key's allowance. */
function decideFromCache(
  rules: DecisionRules,
  entry: CachedKey | undefined,
  request: { mode: 'admit' | 'peek'; units: number; facts: RequestFacts; edgeId: string | undefined },
  now: number,
): LocalDecision {
  if (!entry?.record || now - entry.validatedAt > rules.maxAgeMs) return { outcome: 'unavailable' };
  const { mode, units } = request;
  const refusal = restrictionRefusal(entry, entry.record, request.facts, now, rules.visitorDefaults.maxLimit);
  if (refusal) return refusal;
  const window = dayWindow(now, rules.timeZone);
  if (entry.localDay !== window.day) Object.assign(entry, { local: 0, localDay: window.day });
  const seen = entry.day === window.day ? entry.used : 0;
  const quota = (used: number) => localQuota(entry, window, used, now);
  if (mode === 'peek') return { outcome: 'authenticated', entry: quota(seen + entry.local) };
  const allowance =
    entry.kind === 'publishable'
      ? (entry.record.visitorBurst ?? rules.visitorDefaults.capacity)
      : (entry.record.burst ?? rules.bucketDefaults.capacity);
  if (seen + entry.local + units > entry.limit) return { outcome: 'daily_quota_exceeded', entry: quota(seen + entry.local) };
  if (entry.local + units > allowance) return { outcome: 'burst_limit_exceeded', entry: quota(seen + entry.local) };
  const admissionId = request.edgeId ?? `local.${randomUUID()}`;
  rules.journal.append({ id: admissionId, key: entry.keyId, day: window.day, units, at: now });
  entry.local += units;
  return { outcome: 'admitted', entry: quota(seen + entry.local), admissionId };
}

/**
 * Admission while Redis cannot answer (docs/operations.md#degraded-admission): a key Redis found
 * live within `maxAgeMs` is admitted here against a per-key allowance of its burst capacity
 * until Redis decides on the key again (a publishable key: its visitor burst), never past its daily quota as last
 * seen plus what was admitted here; each admission goes to the journal for replay. Unknown and
 * stale keys are 'unavailable' (the caller answers 503).
 */
export function createLocalAdmission(options: LocalAdmissionOptions): LocalAdmission {
  const { redis, maxAgeMs, clock = Date.now, maxKeys = 100_000 } = options;
  const keys = redisKeys(options.prefix);
  const cache = new Map<string, CachedKey>();
  const recordRefreshMs = Math.max(1, Math.floor(maxAgeMs / 3));
  let period: DegradedPeriod | undefined;
  let lastSightingAt: number | undefined;

  const readRecord = recordReader(redis, keys.record, clock);

  const recovered = () => {
    if (!period) return;
    const ended = { ...period, durationMs: clock() - period.startedAt };
    period = undefined;
    options.onRecovered?.(ended);
  };

  return {
    saw(hash, sighting) {
      recovered();
      if (!sighting.live) {
        cache.delete(hash);
        return undefined;
      }
      const now = clock();
      lastSightingAt = now;
      const entry = remember(cache, hash, sighting, now, maxKeys);
      if (now - entry.recordAt < recordRefreshMs) return undefined;
      const read = readRecord(hash, entry);
      return entry.record ? undefined : read;
    },
    decide(hash, mode, units, facts, edgeId) {
      const now = clock();
      period ??= { startedAt: now, durationMs: 0, admittedLocally: 0, refused: 0 };
      const decision = decideFromCache(options, cache.get(hash), { mode, units, facts, edgeId }, now);
      if (decision.outcome === 'admitted') period.admittedLocally += 1;
      else if (decision.outcome !== 'authenticated') period.refused += 1;
      return decision;
    },
    degradedSince: () => period?.startedAt,
    recovered,
    lastSightingAt: () => lastSightingAt,
  };
}
