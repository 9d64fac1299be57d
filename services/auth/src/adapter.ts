import type { Redis } from 'ioredis';
import { errors, type Adapter, type AdapterPayload } from 'oidc-provider';
import type { Logger } from '@fragrance/http';
import type { GrantStore, RevocationStore } from '@fragrance/identity';
import { isRedisUnavailableError } from '@fragrance/redis';
import { RefreshTokens } from './refresh-tokens.ts';

/** Models whose tokens belong to a grant, so revoking the grant can find and delete them. */
const GRANTABLE = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest']);
/** Models that are consumed once; stored as a hash so `consumed` can be set atomically. */
const CONSUMABLE = new Set(['AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest']);
/**
 * A used authorization code is kept this long past its expiry so a replay is still recognised
 * (and revokes what the code issued) instead of looking like an unknown code.
 */
const CODE_REPLAY_WINDOW_SECONDS = 600;

/** What a client is told while Redis cannot answer, and after how many seconds to try again. */
export const STORAGE_UNAVAILABLE = {
  detail: 'Sign-in and tokens are unavailable for a moment; try again shortly.',
  retryAfterSeconds: 2,
} as const;

/**
 * Storage that cannot answer now (Redis away, a command timed out mid-failover): 503
 * `temporarily_unavailable` (RFC 6749 §4.1.2.1's code) instead of oidc-provider's 500
 * `server_error`, so clients retry rather than give up. Retry-After is set where the provider is
 * built (provider.ts).
 */
export class StorageUnavailableError extends errors.OIDCProviderError {
  constructor(cause: unknown) {
    super(503, 'temporarily_unavailable', { cause });
    this.expose = true;
    Object.assign(this, { error_description: STORAGE_UNAVAILABLE.detail });
  }
}

/** Every adapter method, with Redis being unavailable reported as StorageUnavailableError. */
function reportingUnavailable<T extends new (name: string) => Adapter>(AdapterClass: T): T {
  const prototype = AdapterClass.prototype as Record<string, (...args: unknown[]) => Promise<unknown>>;
  for (const method of ['upsert', 'find', 'findByUid', 'findByUserCode', 'destroy', 'revokeByGrantId', 'consume'] as const) {
    const original = prototype[method]!;
    prototype[method] = async function (this: Adapter, ...args: unknown[]) {
      try {
        return await original.apply(this, args);
      } catch (error) {
        throw isRedisUnavailableError(error) ? new StorageUnavailableError(error) : error;
      }
    };
  }
  return AdapterClass;
}

export interface AdapterOptions {
  redis: Redis;
  /** e.g. `fcs:` → keys `fcs:oidc:<Model>:<id>`. */
  prefix: string;
  revocations: RevocationStore;
  /** How long a grant's revocation record must live: the longest access-token lifetime. */
  revocationTtlSeconds: number;
  /** Indexes each saved grant under its person, for the account page and `ops users grants`. */
  grants: GrantStore;
  /** When the person last signed out everywhere (ms): a sign-in session from before no longer counts. */
  sessionsValidSince: (accountId: string) => Promise<number>;
  /** Refresh tokens end this long after their last use (a rotation), or at `maxSeconds` after the first. */
  refreshToken: { idleSeconds: number; maxSeconds: number };
  /** The time (ms); tests move it. */
  clock: () => number;
  logger: Logger;
}

/** What every adapter instance shares: the connection, the key layout and the stores it writes to. */
interface Storage {
  redis: Redis;
  base: string;
  revocations: RevocationStore;
  revocationTtlSeconds: number;
  grants: GrantStore;
  sessionsValidSince: (accountId: string) => Promise<number>;
  refreshTokens: RefreshTokens;
  nowSeconds: () => number;
}

const grantKeyFor = (storage: Storage, id: string) => `${storage.base}grant-tokens:${id}`;
const userCodeKeyFor = (storage: Storage, userCode: string) => `${storage.base}user-code:${userCode}`;
const uidKeyFor = (storage: Storage, uid: string) => `${storage.base}uid:${uid}`;

/**
 * A client assertion's `jti` (oidc-provider's ReplayDetection) is remembered with SET NX: of
 * two requests with one assertion, even at the same moment, only the first authenticates.
 */
async function saveOnce(redis: Redis, key: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
  const saved = await redis.set(key, JSON.stringify(payload), 'EX', Math.max(1, expiresIn), 'NX');
  if (saved !== 'OK') throw new errors.InvalidClientAuth('client assertion tokens must only be used once');
}

/** One oidc-provider model (`name`) in Redis: `<base><Model>:<id>`. */
class RedisAdapter implements Adapter {
  readonly name: string;
  readonly #storage: Storage;

  constructor(name: string, storage: Storage) {
    this.name = name;
    this.#storage = storage;
  }

  key(id: string): string {
    return `${this.#storage.base}${this.name}:${id}`;
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
    const storage = this.#storage;
    const key = this.key(id);
    if (this.name === 'RefreshToken') {
      if (await storage.refreshTokens.saveSuccessor(id, payload, expiresIn, grantKeyFor(storage, payload.grantId ?? ''))) return;
    }
    if (this.name === 'ReplayDetection') return saveOnce(storage.redis, key, payload, expiresIn);
    const ttl = this.name === 'AuthorizationCode' ? expiresIn + CODE_REPLAY_WINDOW_SECONDS : expiresIn;
    const multi = storage.redis.multi();
    if (this.name === 'RefreshToken') multi.hset(key, storage.refreshTokens.firstFields(payload));
    else if (CONSUMABLE.has(this.name)) multi.hset(key, { payload: JSON.stringify(payload) });
    else multi.set(key, JSON.stringify(payload));
    if (ttl) multi.expire(key, ttl);
    if (GRANTABLE.has(this.name) && payload.grantId) {
      const grantKey = grantKeyFor(storage, payload.grantId);
      multi.rpush(grantKey, key);
      // The list lives as long as its longest-lived token; GT only ever extends it.
      if (ttl) multi.expire(grantKey, ttl, 'GT').expire(grantKey, ttl, 'NX');
    }
    if (this.name === 'Grant' && payload.accountId) storage.grants.indexGrant(multi, id, payload.accountId, ttl);
    for (const [lookup, value] of [
      [userCodeKeyFor(storage, payload.userCode ?? ''), payload.userCode],
      [uidKeyFor(storage, payload.uid ?? ''), payload.uid],
    ] as const) {
      if (!value) continue;
      multi.set(lookup, id);
      if (ttl) multi.expire(lookup, ttl);
    }
    await multi.exec();
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    const { redis, refreshTokens, sessionsValidSince } = this.#storage;
    if (CONSUMABLE.has(this.name)) {
      const data = await redis.hgetall(this.key(id));
      if (!data.payload) return undefined;
      const payload = JSON.parse(data.payload) as AdapterPayload;
      if (this.name === 'RefreshToken') return refreshTokens.find(id, data, payload);
      return data.consumed ? { ...payload, consumed: Number(data.consumed) } : payload;
    }
    const data = await redis.get(this.key(id));
    const payload = data ? (JSON.parse(data) as AdapterPayload) : undefined;
    // A sign-in from before "sign out everywhere" (or a password change) is no session.
    if (this.name === 'Session' && payload?.accountId && (payload.loginTs ?? 0) * 1000 < (await sessionsValidSince(payload.accountId))) {
      return undefined;
    }
    return payload;
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    const id = await this.#storage.redis.get(uidKeyFor(this.#storage, uid));
    return id ? this.find(id) : undefined;
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    const id = await this.#storage.redis.get(userCodeKeyFor(this.#storage, userCode));
    return id ? this.find(id) : undefined;
  }

  async destroy(id: string): Promise<void> {
    const { redis, revocations, revocationTtlSeconds } = this.#storage;
    if (this.name === 'Grant') await revocations.revokeGrant(id, revocationTtlSeconds);
    await redis.del(this.key(id));
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    const grantKey = grantKeyFor(this.#storage, grantId);
    const keys = await this.#storage.redis.lrange(grantKey, 0, -1);
    await this.#storage.redis.del(grantKey, ...keys);
  }

  /**
   * HSETNX makes consumption atomic: of two requests racing with one code or refresh token,
   * exactly one wins; the other is refused like any used grant. A refresh token this request
   * found is consumed later, by the rotation script, together with saving its successor.
   */
  async consume(id: string): Promise<void> {
    if (this.name === 'RefreshToken' && this.#storage.refreshTokens.deferConsume(id)) return;
    const won = await this.#storage.redis.hsetnx(this.key(id), 'consumed', String(this.#storage.nowSeconds()));
    if (won !== 1) throw new errors.InvalidGrant('grant already used');
  }
}

/**
 * oidc-provider storage in Redis, so several auth instances can serve one issuer. Destroying a
 * Grant (refresh-token reuse, code replay, /oauth/revoke) also writes the revocation record the
 * MCP server checks, inside the same awaited call, so the JWTs of that grant stop working before
 * the client sees the response. Refresh tokens follow RefreshTokens (refresh-tokens.ts).
 */
export function redisAdapterFactory(options: AdapterOptions): new (name: string) => Adapter {
  const { redis, clock } = options;
  const base = `${options.prefix}oidc:`;
  const storage: Storage = {
    redis,
    base,
    revocations: options.revocations,
    revocationTtlSeconds: options.revocationTtlSeconds,
    grants: options.grants,
    sessionsValidSince: options.sessionsValidSince,
    refreshTokens: new RefreshTokens({ redis, base, ...options.refreshToken, clock, logger: options.logger }),
    nowSeconds: () => Math.floor(clock() / 1000),
  };
  return reportingUnavailable(
    class extends RedisAdapter {
      constructor(name: string) {
        super(name, storage);
      }
    },
  );
}
