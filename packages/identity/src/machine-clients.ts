import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { RevocationStore } from './revocation.ts';
import { RedisStore } from './store.ts';

/** A request about machine clients that cannot be done (bad input, unknown client): the operator's mistake. */
export class MachineClientError extends Error {
  readonly code: 'invalid_machine_client' | 'machine_client_not_found';
  constructor(code: MachineClientError['code'], message: string) {
    super(message);
    this.name = 'MachineClientError';
    this.code = code;
  }
}

/** A confidential client an operator registered for the client-credentials grant (no person behind it). */
export interface MachineClient {
  id: string;
  name: string;
  /** How it authenticates at the token endpoint. */
  method: 'private_key_jwt' | 'client_secret_basic';
  /** MCP requests allowed per UTC day; undefined: no quota. */
  quotaPerDay?: number;
  createdAt: string;
  revokedAt?: string;
}

export interface MachineClientUsage {
  /** UTC day, YYYY-MM-DD. */
  day: string;
  requests: number;
}

/** What the MCP server may do with one more request of a machine client. */
export type MachineAdmission =
  | { allowed: true; used: number; quotaPerDay?: number }
  | { allowed: false; reason: 'unknown' }
  | { allowed: false; reason: 'quota'; quotaPerDay: number; retryAfterSeconds: number };

/** A public key set for private_key_jwt: asymmetric keys only, no private parts. */
export interface PublicJwks {
  keys: Record<string, unknown>[];
}

export interface MachineClientStoreOptions {
  prefix?: string;
  revocations: RevocationStore;
}

/** Client ids of machine clients: never a dynamic registration's (random, no prefix) nor a URL. */
export const MACHINE_CLIENT_ID = /^mc_[\w-]{22}$/;
/** The scope a machine client may ask for: the catalogue, read only. */
const MACHINE_SCOPE = 'catalogue:read';
/** Usage counters are kept this long (days). */
const USAGE_RETENTION_DAYS = 40;
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k', 'oth'];

/** `sha256:<hex>` of a client secret: what is stored, and what a presented secret is compared against. */
export const hashClientSecret = (secret: string): string => `sha256:${createHash('sha256').update(secret).digest('hex')}`;

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function checkJwks(jwks: unknown): PublicJwks {
  const keys = (jwks as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys) || keys.length === 0 || keys.length > 5)
    throw new MachineClientError('invalid_machine_client', 'the key set must hold 1 to 5 public keys');
  for (const key of keys as Record<string, unknown>[]) {
    if (typeof key !== 'object' || !['RSA', 'EC', 'OKP'].includes(String(key.kty))) {
      throw new MachineClientError('invalid_machine_client', 'each key must be a public RSA, EC or OKP JWK');
    }
    if (PRIVATE_MEMBERS.some((member) => member in key))
      throw new MachineClientError('invalid_machine_client', 'the key set must hold public keys only (no private members)');
  }
  return { keys: keys as Record<string, unknown>[] };
}

/**
 * Machine clients: registered by an operator (`ops clients create --machine`), stored twice in
 * Redis: as oidc-provider's client (`<prefix>oidc:Client:<id>`, what the token endpoint loads:
 * grant `client_credentials` only, `private_key_jwt` with the given public keys or a client
 * secret stored as its SHA-256 hash) and as our record (`<prefix>machine-client:<id>`: name,
 * quota, state), with a usage counter per UTC day that the MCP server counts. Revoking deletes
 * the oidc-provider client (no new token) and writes the subject revocation record of the client
 * id, which is the `sub` of its tokens (every issued token refused at once).
 */
export class MachineClientStore extends RedisStore {
  readonly #revocations: RevocationStore;

  constructor(redis: Redis, options: MachineClientStoreOptions) {
    super(redis, options.prefix);
    this.#revocations = options.revocations;
  }

  #recordKey = (id: string) => `${this.prefix}machine-client:${id}`;
  #indexKey = () => `${this.prefix}machine-clients`;
  #oidcKey = (id: string) => `${this.prefix}oidc:Client:${id}`;
  #usageKey = (id: string, at: number) => `${this.prefix}machine-client:usage:${id}:${day(at)}`;

  /** Registers a client; the secret (client_secret_basic, when no key set is given) is returned once and only its hash kept. */
  async create(input: { name: string; quotaPerDay?: number; jwks?: unknown }): Promise<{ client: MachineClient; secret?: string }> {
    const name = input.name.trim();
    if (!name || name.length > 200) throw new MachineClientError('invalid_machine_client', 'the name must be 1 to 200 characters');
    if (input.quotaPerDay !== undefined && !(Number.isSafeInteger(input.quotaPerDay) && input.quotaPerDay > 0)) {
      throw new MachineClientError('invalid_machine_client', 'the quota must be a whole number of requests per day, at least 1');
    }
    const id = `mc_${randomBytes(16).toString('base64url')}`;
    const jwks = input.jwks === undefined ? undefined : checkJwks(input.jwks);
    const secret = jwks ? undefined : randomBytes(32).toString('base64url');
    const method = jwks ? 'private_key_jwt' : 'client_secret_basic';
    const createdAt = new Date().toISOString();
    const oidcClient = {
      client_id: id,
      client_name: name,
      client_id_issued_at: Math.floor(Date.now() / 1000),
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      scope: MACHINE_SCOPE,
      token_endpoint_auth_method: method,
      fcs_machine: true,
      ...(jwks ? { jwks } : { client_secret: hashClientSecret(secret!) }),
    };
    const record = { name, method, created: createdAt, ...(input.quotaPerDay ? { quota: String(input.quotaPerDay) } : {}) };
    await this.redis
      .multi()
      .hset(this.#recordKey(id), record)
      .sadd(this.#indexKey(), id)
      .set(this.#oidcKey(id), JSON.stringify(oidcClient))
      .exec();
    const client: MachineClient = { id, name, method, createdAt, ...(input.quotaPerDay ? { quotaPerDay: input.quotaPerDay } : {}) };
    return secret ? { client, secret } : { client };
  }

  async get(id: string): Promise<MachineClient | undefined> {
    if (!MACHINE_CLIENT_ID.test(id)) return undefined;
    const data = await this.redis.hgetall(this.#recordKey(id));
    if (!data.name) return undefined;
    return {
      id,
      name: data.name,
      method: data.method === 'private_key_jwt' ? 'private_key_jwt' : 'client_secret_basic',
      createdAt: data.created ?? '',
      ...(data.quota ? { quotaPerDay: Number(data.quota) } : {}),
      ...(data.revoked ? { revokedAt: data.revoked } : {}),
    };
  }

  async list(): Promise<MachineClient[]> {
    const ids = (await this.redis.smembers(this.#indexKey())).sort();
    const clients = await Promise.all(ids.map((id) => this.get(id)));
    return clients.filter((c): c is MachineClient => c !== undefined);
  }

  /** Revokes at once: no new token, and every token issued before now refused by the MCP server. */
  async revoke(id: string): Promise<MachineClient> {
    const client = await this.get(id);
    if (!client) throw new MachineClientError('machine_client_not_found', `no machine client ${id}`);
    await this.#revocations.revokeUser(id);
    await this.redis
      .multi()
      .del(this.#oidcKey(id))
      .hset(this.#recordKey(id), 'revoked', client.revokedAt ?? new Date().toISOString())
      .exec();
    return { ...client, revokedAt: client.revokedAt ?? new Date().toISOString() };
  }

  /** Requests counted per UTC day, the last `days` days, newest first. */
  async usage(id: string, days = 7, now = Date.now()): Promise<MachineClientUsage[]> {
    const at = Array.from({ length: Math.min(days, USAGE_RETENTION_DAYS) }, (_, i) => now - i * 86_400_000);
    const counts = at.length ? await this.redis.mget(...at.map((ms) => this.#usageKey(id, ms))) : [];
    return at.map((ms, i) => ({ day: day(ms), requests: Number(counts[i] ?? 0) }));
  }

  /**
   * Counts one MCP request of the client against today's quota: allowed while the client exists
   * unrevoked and today's count stays within its quota. A refused request is not counted.
   */
  async admit(id: string, now = Date.now()): Promise<MachineAdmission> {
    const usageKey = this.#usageKey(id, now);
    const replies = await this.redis
      .multi()
      .hmget(this.#recordKey(id), 'name', 'quota', 'revoked')
      .incr(usageKey)
      .expire(usageKey, USAGE_RETENTION_DAYS * 86_400, 'NX')
      .exec();
    const [name, quota, revoked] = (replies?.[0]?.[1] ?? []) as (string | null)[];
    const used = Number(replies?.[1]?.[1] ?? 0);
    const quotaPerDay = quota ? Number(quota) : undefined;
    if (!name || revoked) {
      await this.redis.decr(usageKey);
      return { allowed: false, reason: 'unknown' };
    }
    if (quotaPerDay !== undefined && used > quotaPerDay) {
      await this.redis.decr(usageKey);
      const midnight = Date.parse(`${day(now)}T00:00:00Z`) + 86_400_000;
      return { allowed: false, reason: 'quota', quotaPerDay, retryAfterSeconds: Math.max(1, Math.ceil((midnight - now) / 1000)) };
    }
    return { allowed: true, used, ...(quotaPerDay === undefined ? {} : { quotaPerDay }) };
  }
}
