import { createHash, generateKeyPairSync, randomBytes, type JsonWebKey } from 'node:crypto';
import type { Redis } from 'ioredis';
import { RedisStore } from './store.ts';

/** A private RSA signing key in JWK form, with its id and algorithm. */
export type SigningJwk = JsonWebKey & { kid: string; alg: 'RS256'; use: 'sig' };

export interface KeyStoreOptions {
  prefix?: string;
}

/** RFC 7638 thumbprint: a key id that is derived from the key, so it can never be reused. */
function thumbprint(jwk: JsonWebKey): string {
  const canonical = JSON.stringify({ e: jwk.e, kty: jwk.kty, n: jwk.n });
  return createHash('sha256').update(canonical).digest('base64url');
}

export function generateSigningKey(): SigningJwk {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = privateKey.export({ format: 'jwk' });
  return { ...jwk, kid: thumbprint(jwk), alg: 'RS256', use: 'sig' };
}

/**
 * The authorization server's signing keys and cookie-signing secrets, in Redis so every
 * instance signs with the same keys and a restart never invalidates issued tokens.
 * `<prefix>oidc:keys` is a JSON array of private JWKs, newest (the one that signs) first;
 * `<prefix>oidc:cookie-keys` a JSON array of secrets, newest first. Never log either.
 */
export class KeyStore extends RedisStore {
  constructor(redis: Redis, options: KeyStoreOptions = {}) {
    super(redis, options.prefix);
  }

  get signingKey(): string {
    return `${this.prefix}oidc:keys`;
  }
  get cookieKey(): string {
    return `${this.prefix}oidc:cookie-keys`;
  }

  /** Loads the list, creating it on first start. SET NX: racing instances agree on one list. */
  async #load<T>(key: string, create: () => T): Promise<T[]> {
    const existing = await this.redis.get(key);
    if (existing) return JSON.parse(existing) as T[];
    await this.redis.set(key, JSON.stringify([create()]), 'NX');
    return JSON.parse((await this.redis.get(key)) ?? '[]') as T[];
  }

  async #rotate<T>(key: string, create: () => T, keep: number): Promise<{ list: T[]; retired: T[] }> {
    if (!Number.isInteger(keep) || keep < 2) throw new RangeError('keep must be an integer ≥ 2 (the new key and at least one previous)');
    const current = JSON.parse((await this.redis.get(key)) ?? '[]') as T[];
    const list = [create(), ...current];
    await this.redis.set(key, JSON.stringify(list.slice(0, keep)));
    return { list: list.slice(0, keep), retired: list.slice(keep) };
  }

  signingKeys(): Promise<SigningJwk[]> {
    return this.#load(this.signingKey, generateSigningKey);
  }

  cookieKeys(): Promise<string[]> {
    return this.#load(this.cookieKey, () => randomBytes(32).toString('base64url'));
  }

  /**
   * Puts a new signing key first (it signs from the next start of each instance on) and keeps
   * `keep - 1` previous keys published in the JWKS, so tokens they signed still verify until
   * they expire. Keep at least as many as rotations happen within one access-token lifetime.
   */
  async rotateSigningKeys(keep = 3): Promise<{ kid: string; kept: string[]; retired: string[] }> {
    const { list, retired } = await this.#rotate(this.signingKey, generateSigningKey, keep);
    return { kid: list[0]!.kid, kept: list.map((k) => k.kid), retired: retired.map((k) => k.kid) };
  }

  async rotateCookieKeys(keep = 3): Promise<void> {
    await this.#rotate(this.cookieKey, () => randomBytes(32).toString('base64url'), keep);
  }
}
