import type { Redis } from 'ioredis';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import { errors } from 'oidc-provider';
import type { GrantStore, RevocationStore } from '@fragrance/identity';

/** Models whose tokens belong to a grant, so revoking the grant can find and delete them. */
const GRANTABLE = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest']);
/** Models that are consumed once; stored as a hash so `consumed` can be set atomically. */
const CONSUMABLE = new Set(['AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest']);
/**
 * A used authorization code is kept this long past its expiry so a replay is still recognised
 * (and revokes what the code issued) instead of looking like an unknown code.
 */
const CODE_REPLAY_WINDOW_SECONDS = 600;

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
}

/**
 * oidc-provider storage in Redis, so several auth instances can serve one issuer. Destroying a
 * Grant (refresh-token reuse, code replay, /oauth/revoke) also writes the revocation record the
 * MCP server checks, inside the same awaited call, so the JWTs of that grant stop working before
 * the client sees the response.
 */
export function redisAdapterFactory(options: AdapterOptions): new (name: string) => Adapter {
  const { redis, revocations, revocationTtlSeconds, grants, sessionsValidSince } = options;
  const base = `${options.prefix}oidc:`;
  const grantKeyFor = (id: string) => `${base}grant-tokens:${id}`;
  const userCodeKeyFor = (userCode: string) => `${base}user-code:${userCode}`;
  const uidKeyFor = (uid: string) => `${base}uid:${uid}`;

  return class RedisAdapter implements Adapter {
    readonly name: string;
    constructor(name: string) {
      this.name = name;
    }

    key(id: string): string {
      return `${base}${this.name}:${id}`;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      const key = this.key(id);
      const ttl = this.name === 'AuthorizationCode' ? expiresIn + CODE_REPLAY_WINDOW_SECONDS : expiresIn;
      const multi = redis.multi();
      if (CONSUMABLE.has(this.name)) {
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
     * exactly one wins; the other is refused like any used grant.
     */
    async consume(id: string): Promise<void> {
      const won = await redis.hsetnx(this.key(id), 'consumed', String(Math.floor(Date.now() / 1000)));
      if (won !== 1) throw new errors.InvalidGrant('grant already used');
    }
  };
}
