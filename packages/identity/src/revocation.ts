import type { Redis } from 'ioredis';
import { RedisStore } from './store.ts';

export interface RevocationStoreOptions {
  /** Key prefix; tests pass their own so they never see each other's records. */
  prefix?: string;
}

/** The JWT claims a revocation check needs (a subset of the access token's payload). */
export interface RevocableClaims {
  gid?: string;
  sub?: string;
  iat?: number;
}

/** The records that could revoke a token: its grant's and its subject's (values as stored, null when none). */
export interface RevocationRecords {
  grant?: string | null;
  user?: string | null;
}

/**
 * Whether `records` revoke a token with `claims`: its grant is revoked, or its subject was revoked
 * at or after `iat`. The one rule, for Redis's records and for a local copy of them alike.
 */
export function revokedBy(claims: RevocableClaims, records: RevocationRecords): boolean {
  if (claims.gid && records.grant != null) return true;
  const revokedAt = claims.sub ? records.user : null;
  if (revokedAt == null) return false;
  // iat has second precision: a token from the same second as the revocation counts as revoked
  // (err on the safe side). A token without iat cannot be shown to be newer.
  if (typeof claims.iat !== 'number') return true;
  return claims.iat * 1000 <= Number(revokedAt);
}

/** Every revocation record at one moment: grant id → value, subject → revocation time (ms). */
export interface RevocationSnapshot {
  grants: Map<string, string>;
  users: Map<string, string>;
}

/**
 * Revocation records for JWT access tokens. The authorization server cannot recall a JWT it
 * has issued, so it writes a record here when a grant is revoked (refresh-token reuse,
 * /oauth/revoke, code replay) or a user is disabled, and the MCP server consults it on every
 * request.
 *
 * Keys: `<prefix>revoked:grant:<gid>` (expires with the longest-lived token of the grant) and
 * `<prefix>revoked:user:<sub>` = the revocation time in milliseconds (tokens of that subject
 * issued at or before it are revoked).
 */
export class RevocationStore extends RedisStore {
  constructor(redis: Redis, options: RevocationStoreOptions = {}) {
    super(redis, options.prefix);
  }

  grantKey(grantId: string): string {
    return `${this.prefix}revoked:grant:${grantId}`;
  }

  userKey(sub: string): string {
    return `${this.prefix}revoked:user:${sub}`;
  }

  async revokeGrant(grantId: string, ttlSeconds: number): Promise<void> {
    if (!grantId) throw new TypeError('grantId is required');
    const ttl = Math.max(1, Math.ceil(ttlSeconds));
    await this.redis.set(this.grantKey(grantId), String(Date.now()), 'EX', ttl);
  }

  /**
   * Revokes every token of `sub` issued before now. No expiry: the record is one small key per
   * disabled user, and refresh tokens can outlive any access-token lifetime we might pick.
   */
  async revokeUser(sub: string): Promise<void> {
    if (!sub) throw new TypeError('sub is required');
    await this.redis.set(this.userKey(sub), String(Date.now()));
  }

  /** One MGET: revoked when the grant is revoked, or the subject was revoked at or after `iat`. */
  async isRevoked(claims: RevocableClaims): Promise<boolean> {
    const keys: string[] = [];
    if (claims.gid) keys.push(this.grantKey(claims.gid));
    if (claims.sub) keys.push(this.userKey(claims.sub));
    if (keys.length === 0) return false;
    const values = await this.redis.mget(...keys);
    return revokedBy(claims, { grant: claims.gid ? values[0] : null, user: claims.sub ? values[claims.gid ? 1 : 0] : null });
  }

  /**
   * Every record now (SCAN + MGET in batches): what a reader keeps locally to decide while Redis
   * is unreachable. A record that expires or is written during the scan may be missed or seen.
   */
  async snapshot(): Promise<RevocationSnapshot> {
    const grantPrefix = this.grantKey('');
    const userPrefix = this.userKey('');
    const snapshot: RevocationSnapshot = { grants: new Map(), users: new Map() };
    const stream = this.redis.scanStream({ match: `${this.prefix}revoked:*`, count: 1_000 });
    for await (const keys of stream as AsyncIterable<string[]>) {
      if (keys.length === 0) continue;
      const values = await this.redis.mget(...keys);
      keys.forEach((key, i) => {
        const value = values[i];
        if (value == null) return;
        if (key.startsWith(grantPrefix)) snapshot.grants.set(key.slice(grantPrefix.length), value);
        else if (key.startsWith(userPrefix)) snapshot.users.set(key.slice(userPrefix.length), value);
      });
    }
    return snapshot;
  }
}
