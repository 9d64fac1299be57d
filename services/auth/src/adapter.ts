import type { Redis } from 'ioredis';
import Provider, { errors, type Adapter, type AdapterPayload } from 'oidc-provider';
import type { Logger } from '@fragrance/http';
import type { GrantStore, RevocationStore } from '@fragrance/identity';
import { isRedisUnavailableError, loadLuaScript, scriptCommand } from '@fragrance/redis';

/** Models whose tokens belong to a grant, so revoking the grant can find and delete them. */
const GRANTABLE = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest']);
/** Models that are consumed once; stored as a hash so `consumed` can be set atomically. */
const CONSUMABLE = new Set(['AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest']);
/**
 * A used authorization code is kept this long past its expiry so a replay is still recognised
 * (and revokes what the code issued) instead of looking like an unknown code.
 */
const CODE_REPLAY_WINDOW_SECONDS = 600;

const ROTATE_REFRESH_TOKEN = loadLuaScript(new URL('./rotate-refresh-token-4.lua', import.meta.url));

/** A refresh token the current request found usable (unused, or rotated with no successor used yet). */
interface FoundRefreshToken {
  id: string;
  /** The token it was rotated from ('' for the first of a grant). */
  predecessor: string;
  /** End of the grant's absolute lifetime (epoch seconds), inherited along the chain. */
  absolute: number;
  /** Rotated before: presented again before any successor was used. */
  rotated: boolean;
}

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

/**
 * oidc-provider storage in Redis, so several auth instances can serve one issuer. Destroying a
 * Grant (refresh-token reuse, code replay, /oauth/revoke) also writes the revocation record the
 * MCP server checks, inside the same awaited call, so the JWTs of that grant stop working before
 * the client sees the response. A refresh-token rotation is one atomic write; a rotated token
 * stays usable until one of its successors is used, and its idle and absolute expiry are
 * checked here against `clock` (docs/oauth.md "Refresh tokens").
 */
export function redisAdapterFactory(options: AdapterOptions): new (name: string) => Adapter {
  const { redis, revocations, revocationTtlSeconds, grants, sessionsValidSince, logger, clock } = options;
  const { idleSeconds, maxSeconds } = options.refreshToken;
  const nowSeconds = () => Math.floor(clock() / 1000);
  const base = `${options.prefix}oidc:`;
  const grantKeyFor = (id: string) => `${base}grant-tokens:${id}`;
  const userCodeKeyFor = (userCode: string) => `${base}user-code:${userCode}`;
  const uidKeyFor = (uid: string) => `${base}uid:${uid}`;
  const refreshKeyFor = (id: string) => `${base}RefreshToken:${id}`;

  const rotateScript = scriptCommand<number>(redis, 'fcsRotateRefreshToken', ROTATE_REFRESH_TOKEN);

  /*
   * Rotation in oidc-provider is consume(old) then upsert(successor), two calls. Both run inside
   * the token request's context (Provider.ctx), so consume only notes the old token and the
   * successor's upsert does both writes in one script. Keyed by request, never shared.
   */
  const foundInRequest = new WeakMap<object, FoundRefreshToken>();
  const consumeInRequest = new WeakMap<object, FoundRefreshToken>();

  /** Idle (since its rotation from the previous token) or past the grant's absolute lifetime. */
  function refreshTokenExpired(data: Record<string, string>): boolean {
    const now = nowSeconds();
    const created = Number(data.created);
    const absolute = Number(data.absolute);
    return (created > 0 && now >= created + idleSeconds) || (absolute > 0 && now >= absolute);
  }

  async function rotate(found: FoundRefreshToken, id: string, payload: AdapterPayload, ttl: number): Promise<void> {
    const rotated = await rotateScript(
      refreshKeyFor(found.id),
      refreshKeyFor(id),
      grantKeyFor(payload.grantId ?? ''),
      refreshKeyFor(found.predecessor || found.id),
      found.id,
      JSON.stringify(payload),
      ttl || 0,
      nowSeconds(),
      found.absolute,
    );
    if (rotated !== 1) throw new errors.InvalidGrant('grant already used');
    // A token rotated before, presented again: another successor, the earlier ones kept.
    if (found.rotated) logger.info({ grantId: payload.grantId }, 'rotated refresh token presented again before any successor was used');
  }

  /**
   * A client assertion's `jti` (oidc-provider's ReplayDetection) is remembered with SET NX: of
   * two requests with one assertion, even at the same moment, only the first authenticates.
   */
  async function saveOnce(key: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
    const saved = await redis.set(key, JSON.stringify(payload), 'EX', Math.max(1, expiresIn), 'NX');
    if (saved !== 'OK') throw new errors.InvalidClientAuth('client assertion tokens must only be used once');
  }

  /** A stored refresh token as oidc-provider may see it (undefined: expired by our clock). */
  function findRefreshToken(id: string, data: Record<string, string>, payload: AdapterPayload): AdapterPayload | undefined {
    if (refreshTokenExpired(data)) return undefined;
    const ctx = Provider.ctx;
    // Usable while none of its successors was used: shown unused, so oidc-provider rotates it.
    if (ctx && !data.successor_used) {
      const absolute = Number(data.absolute) || nowSeconds() + maxSeconds;
      foundInRequest.set(ctx, { id, predecessor: data.predecessor ?? '', absolute, rotated: Boolean(data.consumed) });
      return payload;
    }
    return data.consumed ? { ...payload, consumed: Number(data.consumed) } : payload;
  }

  return reportingUnavailable(
    class RedisAdapter implements Adapter {
      readonly name: string;
      constructor(name: string) {
        this.name = name;
      }

      key(id: string): string {
        return `${base}${this.name}:${id}`;
      }

      async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
        const ctx = Provider.ctx;
        const rotation = this.name === 'RefreshToken' && ctx ? consumeInRequest.get(ctx) : undefined;
        if (ctx && rotation) {
          consumeInRequest.delete(ctx);
          return rotate(rotation, id, payload, expiresIn);
        }
        const key = this.key(id);
        if (this.name === 'ReplayDetection') return saveOnce(key, payload, expiresIn);
        const ttl = this.name === 'AuthorizationCode' ? expiresIn + CODE_REPLAY_WINDOW_SECONDS : expiresIn;
        const multi = redis.multi();
        if (this.name === 'RefreshToken') {
          // The first token of a chain: the grant's absolute lifetime starts now.
          const now = nowSeconds();
          multi.hset(key, { payload: JSON.stringify(payload), created: now, absolute: now + maxSeconds });
        } else if (CONSUMABLE.has(this.name)) {
          multi.hset(key, { payload: JSON.stringify(payload) });
        } else {
          multi.set(key, JSON.stringify(payload));
        }
        if (ttl) multi.expire(key, ttl);
        if (GRANTABLE.has(this.name) && payload.grantId) {
          const grantKey = grantKeyFor(payload.grantId);
          multi.rpush(grantKey, key);
          // The list lives as long as its longest-lived token; GT only ever extends it.
          if (ttl) multi.expire(grantKey, ttl, 'GT').expire(grantKey, ttl, 'NX');
        }
        if (this.name === 'Grant' && payload.accountId) grants.indexGrant(multi, id, payload.accountId, ttl);
        if (payload.userCode) {
          multi.set(userCodeKeyFor(payload.userCode), id);
          if (ttl) multi.expire(userCodeKeyFor(payload.userCode), ttl);
        }
        if (payload.uid) {
          multi.set(uidKeyFor(payload.uid), id);
          if (ttl) multi.expire(uidKeyFor(payload.uid), ttl);
        }
        await multi.exec();
      }

      async find(id: string): Promise<AdapterPayload | undefined> {
        if (CONSUMABLE.has(this.name)) {
          const data = await redis.hgetall(this.key(id));
          if (!data.payload) return undefined;
          const payload = JSON.parse(data.payload) as AdapterPayload;
          if (this.name === 'RefreshToken') return findRefreshToken(id, data, payload);
          return data.consumed ? { ...payload, consumed: Number(data.consumed) } : payload;
        }
        const data = await redis.get(this.key(id));
        const payload = data ? (JSON.parse(data) as AdapterPayload) : undefined;
        // A sign-in from before "sign out everywhere" (or a password change) is no session.
        if (
          this.name === 'Session' &&
          payload?.accountId &&
          (payload.loginTs ?? 0) * 1000 < (await sessionsValidSince(payload.accountId))
        ) {
          return undefined;
        }
        return payload;
      }

      async findByUid(uid: string): Promise<AdapterPayload | undefined> {
        const id = await redis.get(uidKeyFor(uid));
        return id ? this.find(id) : undefined;
      }

      async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
        const id = await redis.get(userCodeKeyFor(userCode));
        return id ? this.find(id) : undefined;
      }

      async destroy(id: string): Promise<void> {
        if (this.name === 'Grant') await revocations.revokeGrant(id, revocationTtlSeconds);
        await redis.del(this.key(id));
      }

      async revokeByGrantId(grantId: string): Promise<void> {
        const grantKey = grantKeyFor(grantId);
        const keys = await redis.lrange(grantKey, 0, -1);
        await redis.del(grantKey, ...keys);
      }

      /**
       * HSETNX makes consumption atomic: of two requests racing with one code or refresh token,
       * exactly one wins; the other is refused like any used grant. A refresh token this request
       * found is consumed later, by the rotation script, together with saving its successor.
       */
      async consume(id: string): Promise<void> {
        const ctx = Provider.ctx;
        const found = this.name === 'RefreshToken' && ctx ? foundInRequest.get(ctx) : undefined;
        if (ctx && found?.id === id) {
          foundInRequest.delete(ctx);
          consumeInRequest.set(ctx, found);
          return;
        }
        const won = await redis.hsetnx(this.key(id), 'consumed', String(nowSeconds()));
        if (won !== 1) throw new errors.InvalidGrant('grant already used');
      }
    },
  );
}
