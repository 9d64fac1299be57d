import type { Redis } from 'ioredis';

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
export class RevocationStore {
  readonly #redis: Redis;
  readonly #prefix: string;

  constructor(redis: Redis, options: RevocationStoreOptions = {}) {
    this.#redis = redis;
    this.#prefix = options.prefix ?? 'fcs:';
  }

  grantKey(grantId: string): string {
    return `${this.#prefix}revoked:grant:${grantId}`;
  }

  userKey(sub: string): string {
    return `${this.#prefix}revoked:user:${sub}`;
  }

  async revokeGrant(grantId: string, ttlSeconds: number): Promise<void> {
    if (!grantId) throw new TypeError('grantId is required');
    const ttl = Math.max(1, Math.ceil(ttlSeconds));
    await this.#redis.set(this.grantKey(grantId), String(Date.now()), 'EX', ttl);
  }

  /**
   * Revokes every token of `sub` issued before now. No expiry: the record is one small key per
   * disabled user, and refresh tokens can outlive any access-token lifetime we might pick.
   */
  async revokeUser(sub: string): Promise<void> {
    if (!sub) throw new TypeError('sub is required');
    await this.#redis.set(this.userKey(sub), String(Date.now()));
  }

  /** One MGET: revoked when the grant is revoked, or the subject was revoked at or after `iat`. */
  async isRevoked(claims: RevocableClaims): Promise<boolean> {
    const keys: string[] = [];
    if (claims.gid) keys.push(this.grantKey(claims.gid));
    if (claims.sub) keys.push(this.userKey(claims.sub));
    if (keys.length === 0) return false;
    const values = await this.#redis.mget(...keys);
    let index = 0;
    if (claims.gid) {
      if (values[index++] != null) return true;
    }
    if (claims.sub) {
      const revokedAt = values[index];
      if (revokedAt != null) {
        // iat has second precision: a token from the same second as the revocation counts as
        // revoked (err on the safe side). A token without iat cannot be shown to be newer.
        if (typeof claims.iat !== 'number') return true;
        return claims.iat * 1000 <= Number(revokedAt);
      }
    }
    return false;
  }
}
