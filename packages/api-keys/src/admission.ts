import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { dayWindow, secondsUntil, systemClock, type Clock, type DayWindow } from './day-window.ts';
import { hashApiKey, keyIdOfHash, keyKindOf, type KeyKind } from './key-format.ts';
import { ADMISSION_ID, ADMISSION_ID_TTL_SECONDS, redisKeys, USAGE_RETENTION_DAYS } from './keys.ts';
import type { LocalAdmission, LocalDecision, Sighting } from './local-admission.ts';
import type { RecentAdmissions } from './recent-admissions.ts';
import type { RouteAccess } from './restrictions.ts';
import { loadLuaScript, scriptCommand, type ScriptArg } from '@fragrance/redis';

// admit-7.lua includes the bucket function, and the whole decision stays one atomic script.
const ADMIT = loadLuaScript(new URL('./admit-7.lua', import.meta.url));
const COMMAND = 'fcsAdmit';

export interface BucketSettings {
  /** Most requests a key may send at once. */
  capacity: number;
  /** Tokens added back per second. */
  refillPerSecond: number;
}

/** What the daily-quota headers and GET /v1/me need, for an authenticated key. */
export interface QuotaState {
  keyId: string;
  kind: KeyKind;
  /** The quota day (YYYY-MM-DD in the quota zone) the request was counted on. */
  day: string;
  owner: string;
  limit: number;
  used: number;
  remaining: number;
  /** When the daily quota resets (ms), and whole seconds until then. */
  resetsAt: number;
  resetInSeconds: number;
  /** The edge request id this request was admitted under, if any, and this attempt's token (its refund is gated by both). */
  admission?: { id: string; attempt: string };
  /**
   * Decided without Redis (it was unreachable): `used` and `remaining` are this instance's
   * estimate, and an admitted request is in the local journal under `journalId` until replayed.
   */
  local?: { journalId?: string };
}

/** What one admission decided. */
type Decision =
  /** `repeat`: admitted before under the same admission id (an edge retry), not counted again. */
  | { outcome: 'admitted'; quota: QuotaState; repeat?: true }
  /** Authenticated without counting (GET /v1/me and other free routes). */
  | { outcome: 'authenticated'; quota: QuotaState }
  | { outcome: 'daily_quota_exceeded'; quota: QuotaState; retryAfterSeconds: number }
  | { outcome: 'burst_limit_exceeded'; quota: QuotaState; retryAfterSeconds: number }
  /** A publishable key's per-visitor bucket is empty (this visitor only). */
  | { outcome: 'visitor_limit_exceeded'; quota: QuotaState; retryAfterSeconds: number }
  /** Missing, malformed, unknown and revoked keys look the same to the caller. */
  | { outcome: 'invalid_key'; reason: 'malformed' | 'unknown' | 'revoked' }
  /** Past its expiry (ms). */
  | { outcome: 'key_expired'; expiredAt: number }
  /** A rolled key after its grace: `successorHint` names the key that replaced it. */
  | { outcome: 'key_rolled'; successorHint: string; retiredAt: number }
  /**
   * A live key refused before anything was counted: `scope`, it may not reach this route (a
   * publishable key off the read endpoints, a secret key without the scope); `origin`, a
   * publishable key from a page origin it does not allow (or none); `limit`, a publishable key
   * asking for more than `maxLimit` results.
   */
  | { outcome: 'not_allowed'; kind: KeyKind; reason: 'scope' | 'origin' | 'limit'; maxLimit?: number };

export type Admission = Decision & {
  /**
   * The value of AdmitterOptions.readAlong's key, read in the same round trip ('' when it holds
   * none); absent without that option, or when a malformed key never reached Redis.
   */
  readAlong?: string;
};

export interface AdmitterOptions {
  redis: Redis;
  prefix: string;
  /** IANA zone whose midnight resets the daily quota. */
  timeZone: string;
  bucketDefaults: BucketSettings;
  /**
   * Tests only: decide days and refills on this clock instead of Redis's. Without it the
   * script reads Redis's TIME, so every gateway instance shares one clock (a skewed host can
   * neither refill a bucket early nor count on the wrong day).
   */
  clock?: Clock;
  /**
   * This host's clock, used only to guess the day (and its neighbours) whose counters the script
   * may touch; Redis's clock decides among them, so a host up to 23 hours off still counts on
   * Redis's day. Tests pass a skewed one; default Date.now.
   */
  hostClock?: Clock;
  /**
   * A Redis key (full name, no prefix added) whose value every admission reads in the same
   * script, so a caller that needs it per request pays no second command (the gateway's edge
   * cache: the catalogue generation counter).
   */
  readAlong?: string;
  /** Publishable keys: per-visitor bucket defaults (capacity, refill per second) and largest `limit`. */
  visitorDefaults?: BucketSettings & { maxLimit: number };
  /**
   * Admission without Redis: told every decision Redis makes, asked when the script fails
   * (a command error or timeout, a late run). Without it Redis errors propagate.
   */
  local?: LocalAdmission;
  /** Told every request Redis counted under an admission id, so a new primary can be given the ones it lost. */
  recent?: RecentAdmissions;
}

/** What the route and the request say, beyond the key (all optional: 'any' access, no origin, no limit). */
export interface RequestFacts {
  /** What the route requires of the key (RouteAccess). */
  access?: RouteAccess;
  /** The page origin (`Origin`, else the `Referer`'s origin); publishable keys need an allowed one. */
  origin?: string;
  /** The `limit` the request asks for (publishable keys have a maximum). */
  limit?: number;
  /** The client's address: the key's last use records it, and a publishable key's visitor bucket is keyed by it. */
  clientAddress?: string;
}

/** Visitor bucket defaults when the caller names none (the gateway passes its configuration). */
const VISITOR_DEFAULTS = { capacity: 30, refillPerSecond: 5, maxLimit: 50 };

/**
 * `units`: counted requests this request costs (default 1; an export is billed per 1,000
 * records). In 'admit' mode all of them fit in the day's quota or the request is refused whole.
 * `admissionId`: the load balancer's id of this client request, the same on each retry it makes
 * of it. An admitted id is remembered per key (ADMISSION_ID_TTL_SECONDS): a repeat gets the same
 * decision without being counted again. Only for ids a client cannot choose (the caller's job).
 */
export type Admitter = (
  apiKey: string,
  mode: 'admit' | 'peek',
  units?: number,
  admissionId?: string,
  facts?: RequestFacts,
) => Promise<Admission>;

type AdmitReply = [
  status: string,
  owner: string,
  quota: number,
  used: number,
  /** ms until the next token (burst, visitor), the largest limit (limit), or when the key expired or retired. */
  detail: number,
  now: number,
  day: 1 | 2 | 3,
  readAlong: string,
];
type AdmitCommand = (...keysThenArgv: ScriptArg[]) => Promise<AdmitReply>;

/** The admission script, registered on the connection once. */
function admitCommandOf(redis: Redis): AdmitCommand {
  return scriptCommand<AdmitReply>(redis, COMMAND, ADMIT);
}

/**
 * Thrown when the admission script ran past its deadline and counted nothing: the caller had
 * given up on it (or was about to), so it answers as for any Redis failure.
 */
export class AdmissionLateError extends Error {
  readonly code = 'admission_late';
  constructor(lateByMs: number) {
    super(`the admission ran ${lateByMs} ms after its deadline; nothing was counted`);
  }
}

/** Part of the command timeout kept for the reply's way back and a busy event loop: at most 100 ms, a quarter of short timeouts. */
const deadlineMarginMs = (commandTimeoutMs: number): number => Math.min(100, Math.floor(commandTimeoutMs / 4));

/**
 * Deadlines on Redis's clock for a client whose commands time out: an admission must run within
 * the command timeout less deadlineMarginMs of being sent, or the script counts nothing (the
 * gateway answered, or is about to answer, an error: a paused Redis runs queued commands later).
 * Redis's clock is estimated from the `now` each reply carries: `now − received` is never above
 * the true offset (the reply took time to arrive), so the largest recent sample is used, allowed
 * to drift down by 1 ms a second. Until the first reply there is no deadline.
 */
function admissionDeadlines(
  commandTimeoutMs: number | undefined,
  hostClock: Clock,
): { next: () => number | ''; learn: (redisNow: number) => void } {
  if (commandTimeoutMs === undefined) return { next: () => '', learn: () => undefined };
  const budget = commandTimeoutMs - deadlineMarginMs(commandTimeoutMs);
  let offset = 0;
  let sampledAt: number | undefined;
  return {
    // No deadline before a reply told Redis's clock: a skewed host could refuse every request.
    next: () => (sampledAt === undefined ? '' : Math.floor(hostClock() + offset + budget)),
    learn: (redisNow) => {
      const received = hostClock();
      const sample = redisNow - received;
      offset = sampledAt === undefined ? sample : Math.max(sample, offset - (received - sampledAt) / 1_000);
      sampledAt = received;
    },
  };
}

/** What a reply of the admission script says about the key, for the local admission's cache. */
function sightingOf(status: string, keyId: string, kind: KeyKind, owner: string, limit: number, used: number, day: string): Sighting {
  if (status === 'unknown' || status === 'revoked' || status === 'expired' || status === 'rolled') return { live: false };
  return { live: true, keyId, kind, owner, limit, used, day };
}

/** A local decision (Redis unreachable) as an Admission; its quota is marked `local` (approximate). */
function fromLocal(decision: Exclude<LocalDecision, { outcome: 'unavailable' }>, kind: KeyKind): Admission {
  switch (decision.outcome) {
    case 'key_expired':
    case 'key_rolled':
      return decision;
    case 'not_allowed':
      return { ...decision, kind };
    default: {
      const { entry } = decision;
      const quota: QuotaState = {
        ...entry,
        remaining: Math.max(0, entry.limit - entry.used),
        local: decision.outcome === 'admitted' && decision.admissionId !== undefined ? { journalId: decision.admissionId } : {},
      };
      if (decision.outcome === 'daily_quota_exceeded') return { outcome: decision.outcome, quota, retryAfterSeconds: entry.resetInSeconds };
      // The local allowance is spent until Redis answers again: try again in a second.
      if (decision.outcome === 'burst_limit_exceeded') return { outcome: decision.outcome, quota, retryAfterSeconds: 1 };
      return { outcome: decision.outcome, quota };
    }
  }
}

/** What every admission sends besides the request's own values. */
interface ScriptSettings {
  keys: ReturnType<typeof redisKeys>;
  readAlongKey: string;
  bucketDefaults: BucketSettings;
  visitorDefaults: BucketSettings & { maxLimit: number };
}

/** One admitter's connection to Redis, its deadlines and its fallback. */
interface AdmitterState {
  command: AdmitCommand;
  settings: ScriptSettings;
  deadlines: ReturnType<typeof admissionDeadlines>;
  local: LocalAdmission | undefined;
}

/** One admission's inputs, checked, with the key hashed and the candidate quota days worked out. */
interface AdmitRequest {
  mode: 'admit' | 'peek';
  units: number;
  admissionId: string | undefined;
  facts: RequestFacts;
  kind: KeyKind;
  hash: string;
  keyId: string;
  /** The tests' clock reading; undefined when Redis's clock decides. */
  fakeNow: number | undefined;
  /** This host's estimate of the quota day; `days` holds the day before it, it and the day after (the script picks one by Redis's clock). */
  today: DayWindow;
  days: readonly [DayWindow, DayWindow, DayWindow];
  /** Set when the request is remembered under its admission id (admit mode with an id). */
  admission: { id: string; attempt: string } | undefined;
}

const USAGE_TTL_SECONDS = USAGE_RETENTION_DAYS * 86_400;

function checkArguments(units: number, admissionId: string | undefined): void {
  if (!Number.isSafeInteger(units) || units < 1) throw new RangeError(`units must be a positive integer, got ${units}`);
  if (admissionId !== undefined && !ADMISSION_ID.test(admissionId)) throw new RangeError('admission id must match ' + String(ADMISSION_ID));
}

function admitRequestOf(
  call: { apiKey: string; kind: KeyKind; mode: 'admit' | 'peek'; units: number; admissionId: string | undefined; facts: RequestFacts },
  fakeNow: number | undefined,
  hostClock: Clock,
  timeZone: string,
): AdmitRequest {
  const { apiKey, admissionId, ...rest } = call;
  const hash = hashApiKey(apiKey);
  // This host's estimate of the day; the script picks it or a neighbour by Redis's clock.
  const today = dayWindow(fakeNow ?? hostClock(), timeZone);
  const days = [dayWindow(today.startsAt - 1, timeZone), today, dayWindow(today.resetsAt, timeZone)] as const;
  // Which attempt answers for the charge (a repeat takes it over): its refund alone gives it back.
  const admission =
    admissionId !== undefined && call.mode === 'admit' ? { id: admissionId, attempt: randomBytes(9).toString('base64url') } : undefined;
  return { ...rest, admissionId, hash, keyId: keyIdOfHash(hash), fakeNow, today, days, admission };
}

/** The script's keys, then its arguments (admit-7.lua reads them in this order). */
function scriptArguments(
  { keys, readAlongKey, bucketDefaults, visitorDefaults }: ScriptSettings,
  request: AdmitRequest,
  deadline: number | '',
): ScriptArg[] {
  const { keyId, facts } = request;
  const clientAddress = facts.clientAddress ?? '';
  return [
    keys.record(request.hash),
    ...request.days.map((d) => keys.usage(keyId, d.day)),
    // A publishable key is limited per visitor (key + client address), a secret key as a whole.
    request.kind === 'publishable' ? keys.visitorBucket(keyId, clientAddress) : keys.bucket(keyId),
    // Always seven keys (one script shape); without an id this one is never touched…
    keys.admitted(keyId, request.admissionId ?? ''),
    // …and this one is only read.
    readAlongKey,
    request.mode,
    request.fakeNow ?? '',
    USAGE_TTL_SECONDS,
    bucketDefaults.capacity,
    bucketDefaults.refillPerSecond,
    request.today.startsAt,
    request.today.resetsAt,
    request.units,
    request.admission ? '1' : '',
    ADMISSION_ID_TTL_SECONDS,
    request.admission?.attempt ?? '',
    facts.access ?? 'any',
    facts.origin ?? '',
    facts.limit ?? '',
    clientAddress,
    visitorDefaults.capacity,
    visitorDefaults.refillPerSecond,
    visitorDefaults.maxLimit,
    deadline,
  ];
}

/** Runs the script once; a run past its deadline counted nothing and is an AdmissionLateError. */
async function runScript({ command, settings, deadlines }: AdmitterState, request: AdmitRequest): Promise<AdmitReply> {
  // The caller's clock is faked in tests (its instants are not Redis's): no deadline then.
  const deadline = request.fakeNow === undefined ? deadlines.next() : '';
  const reply = await command(...scriptArguments(settings, request, deadline));
  if (reply[0] === 'late') {
    if (request.fakeNow === undefined) deadlines.learn(reply[5]);
    throw new AdmissionLateError(reply[5] - reply[4]);
  }
  return reply;
}

/** Redis failed (or ran late): the local admission decides if it can, else the error propagates. */
function decideWithoutRedis(local: LocalAdmission | undefined, request: AdmitRequest, error: unknown): Admission {
  if (!local) throw error;
  const decision = local.decide(request.hash, request.mode, request.units, request.facts, request.admissionId);
  if (decision.outcome === 'unavailable') throw error;
  return fromLocal(decision, request.kind);
}

/** The quota day the script counted on (1, 2 or 3: the day before, this host's day, the day after). */
const windowOf = (request: AdmitRequest, day: AdmitReply[6]): DayWindow => request.days[day - 1] ?? request.today;

/** Tells the local admission what Redis decided (a key's first sighting waits for its record) and learns Redis's clock. */
async function learnFrom({ local, deadlines }: AdmitterState, request: AdmitRequest, reply: AdmitReply): Promise<void> {
  const [status, owner, limit, used, , now, day] = reply;
  // A key's first sighting waits for its record (one more round trip per key and process), so a
  // key seen once can be admitted locally right after.
  const sighting = sightingOf(status, request.keyId, request.kind, owner, limit, used, windowOf(request, day).day);
  const firstRead = local?.saw(request.hash, sighting);
  if (firstRead) await firstRead;
  // An unknown or revoked key's reply carries no time (0).
  if (request.fakeNow === undefined && now > 0) deadlines.learn(now);
}

/** A key refused before its quota was looked at, if the script's status says so. */
function keyRefusalOf([status, owner, , , detail]: AdmitReply, kind: KeyKind): Decision | undefined {
  switch (status) {
    case 'unknown':
    case 'revoked':
      return { outcome: 'invalid_key', reason: status };
    case 'expired':
      return { outcome: 'key_expired', expiredAt: detail };
    case 'rolled':
      return { outcome: 'key_rolled', successorHint: owner, retiredAt: detail };
    case 'scope':
    case 'origin':
      return { outcome: 'not_allowed', kind, reason: status };
    case 'limit':
      return { outcome: 'not_allowed', kind, reason: status, maxLimit: detail };
    default:
      return undefined;
  }
}

/** What a reply of the script decided. */
function decisionOf(reply: AdmitReply, request: AdmitRequest): Decision {
  const refusal = keyRefusalOf(reply, request.kind);
  if (refusal) return refusal;
  const [status, owner, limit, used, detail, now, day] = reply;
  const window = windowOf(request, day);
  const resetInSeconds = secondsUntil(window.resetsAt, now);
  const quota: QuotaState = {
    keyId: request.keyId,
    kind: request.kind,
    day: window.day,
    owner,
    limit,
    used,
    remaining: Math.max(0, limit - used),
    resetsAt: window.resetsAt,
    resetInSeconds,
    ...(request.admission ? { admission: request.admission } : {}),
  };
  switch (status) {
    case 'ok':
      return { outcome: request.mode === 'admit' ? 'admitted' : 'authenticated', quota };
    case 'again':
      return { outcome: 'admitted', quota, repeat: true };
    case 'daily':
      return { outcome: 'daily_quota_exceeded', quota, retryAfterSeconds: resetInSeconds };
    case 'burst':
      return { outcome: 'burst_limit_exceeded', quota, retryAfterSeconds: Math.max(1, Math.ceil(detail / 1000)) };
    case 'visitor':
      return { outcome: 'visitor_limit_exceeded', quota, retryAfterSeconds: Math.max(1, Math.ceil(detail / 1000)) };
    default:
      throw new Error(`unexpected admission status ${status}`);
  }
}

/**
 * Builds the per-request admission check: hash the presented key, then one atomic script decides
 * (authenticate, daily quota, token bucket, count). Redis errors propagate: the caller fails closed.
 * With a client whose commands time out (`commandTimeout`, the request-path role), the script
 * carries a deadline and one that runs too late counts nothing (AdmissionLateError): a request
 * the caller answered with an error is never billed, even when Redis runs its command later.
 */
export function createAdmitter({
  redis,
  prefix,
  timeZone,
  bucketDefaults,
  clock,
  hostClock = systemClock,
  readAlong,
  visitorDefaults = VISITOR_DEFAULTS,
  local,
  recent,
}: AdmitterOptions): Admitter {
  const keys = redisKeys(prefix);
  const admitter: AdmitterState = {
    command: admitCommandOf(redis),
    settings: { keys, readAlongKey: readAlong ?? keys.nothingToRead(), bucketDefaults, visitorDefaults },
    deadlines: admissionDeadlines(redis.options.commandTimeout, hostClock),
    local,
  };
  return async (apiKey, mode, units = 1, admissionId, facts = {}): Promise<Admission> => {
    checkArguments(units, admissionId);
    // The shape check does not depend on whether a key exists, so skipping Redis here leaks nothing.
    const kind = keyKindOf(apiKey);
    if (kind === undefined) return { outcome: 'invalid_key', reason: 'malformed' };
    const request = admitRequestOf({ apiKey, kind, mode, units, admissionId, facts }, clock?.(), hostClock, timeZone);
    let reply: AdmitReply;
    try {
      reply = await runScript(admitter, request);
    } catch (error) {
      return decideWithoutRedis(admitter.local, request, error);
    }
    await learnFrom(admitter, request, reply);
    const decision = decisionOf(reply, request);
    if (recent && request.admission && decision.outcome === 'admitted' && decision.repeat === undefined) {
      const { keyId, day } = decision.quota;
      recent.admitted({ id: request.admission.id, key: keyId, day, units, at: hostClock() });
    }
    return readAlong === undefined ? decision : { ...decision, readAlong: reply[7] };
  };
}

const REFUND = loadLuaScript(new URL('./refund.lua', import.meta.url));

/**
 * Gives back an admitted request that then failed on our side (upstream 5xx), so customers are
 * neither billed nor throttled for it. The token spent in the bucket is not returned. A request
 * admitted under an admission id is given back at most once, only by the attempt now answering
 * for it (a repeat takes over), and its id forgotten, so a later retry of it is counted again.
 */
export function createRefunder({
  redis,
  prefix,
  recent,
}: {
  redis: Redis;
  prefix: string;
  /** Told each refund of a request admitted under an id, to run it again on a new primary. */
  recent?: RecentAdmissions;
}): (quota: QuotaState, units?: number) => Promise<void> {
  const keys = redisKeys(prefix);
  // No fixed key count: the admission-id record is a second key only when there is one.
  const refund = scriptCommand<number>(redis, 'fcsRefund', REFUND);
  return async (quota, units = 1) => {
    const usage = keys.usage(quota.keyId, quota.day);
    const { admission } = quota;
    if (admission === undefined) return void (await refund(1, usage, units));
    const run = () => refund(2, usage, keys.admitted(quota.keyId, admission.id), units, admission.attempt);
    recent?.refunded(admission.id, run);
    await run();
  };
}
