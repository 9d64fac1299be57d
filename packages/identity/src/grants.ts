import type { Redis } from 'ioredis';
import type { RevocationStore } from './revocation.ts';
import { RedisStore } from './store.ts';

/** One app a person connected: every grant of one client to that person, folded together. */
export interface ConnectedApp {
  clientId: string;
  /** As registered (self-chosen by the client); undefined when the client is gone or never stored. */
  clientName?: string;
  clientUri?: string;
  /** Every scope granted, sorted. */
  scopes: string[];
  /** When the person first allowed it (the oldest live grant), ISO 8601. */
  firstAuthorizedAt: string;
  /** When one of its access tokens was last accepted by the MCP server (at most a minute late), ISO 8601. */
  lastUsedAt?: string;
  grantIds: string[];
}

export interface GrantStoreOptions {
  prefix?: string;
  revocations: RevocationStore;
  /** How long an access token lives (the auth service's ACCESS_TOKEN_TTL_SECONDS): the revocation record outlives it. */
  accessTokenTtlSeconds?: number;
  /** Last-use records are written at most this often per grant and process (default 60 s). */
  usageIntervalMs?: number;
}

/** The parts of oidc-provider's stored Grant this reads. */
interface StoredGrant {
  accountId?: string;
  clientId?: string;
  iat?: number;
  openid?: { scope?: string };
  resources?: Record<string, string>;
}

/**
 * The grants people gave to OAuth clients ("connected apps"), over the authorization server's
 * storage in Redis: `<prefix>oidc:Grant:<id>` (oidc-provider's grant), `<prefix>oidc:grant-tokens:<id>`
 * (keys of the tokens it issued), `<prefix>oidc:Client:<id>` (registered clients). This store
 * adds `<prefix>grants:user:<sub>` (set of the person's grant ids, written when a grant is saved)
 * and `<prefix>grants:used:<gid>` (last use, written by the MCP server).
 *
 * Revoking deletes the grant and its tokens (refresh answers invalid_grant) and writes the
 * revocation record (the MCP server refuses its access tokens on the next request).
 */
export class GrantStore extends RedisStore {
  readonly #revocations: RevocationStore;
  readonly #accessTokenTtl: number;
  readonly #usageInterval: number;
  readonly #lastWrite = new Map<string, number>();

  constructor(redis: Redis, options: GrantStoreOptions) {
    super(redis, options.prefix);
    this.#revocations = options.revocations;
    this.#accessTokenTtl = options.accessTokenTtlSeconds ?? 86_400;
    this.#usageInterval = options.usageIntervalMs ?? 60_000;
  }

  /** Key of an oidc-provider model instance, as the auth service's adapter stores it. */
  modelKey(model: string, id: string): string {
    return `${this.prefix}oidc:${model}:${id}`;
  }
  grantTokensKey(grantId: string): string {
    return `${this.prefix}oidc:grant-tokens:${grantId}`;
  }
  userGrantsKey(sub: string): string {
    return `${this.prefix}grants:user:${sub}`;
  }
  #usedKey(grantId: string): string {
    return `${this.prefix}grants:used:${grantId}`;
  }

  /**
   * Adds the index entry of a saved grant to `multi` (the adapter's transaction). The set lives
   * as long as the person's longest-lived grant.
   */
  indexGrant(multi: ReturnType<Redis['multi']>, grantId: string, accountId: string, ttlSeconds: number): void {
    const key = this.userGrantsKey(accountId);
    multi.sadd(key, grantId);
    if (ttlSeconds) multi.expire(key, ttlSeconds, 'GT').expire(key, ttlSeconds, 'NX');
  }

  /** Records that a grant's access token was just used; at most one write per grant per interval. */
  async recordUse(grantId: string, now = Date.now()): Promise<void> {
    const last = this.#lastWrite.get(grantId);
    if (last !== undefined && now - last < this.#usageInterval) return;
    this.#lastWrite.set(grantId, now);
    if (this.#lastWrite.size > 10_000) this.#lastWrite.clear(); // bounded memory; a few extra writes at worst
    const ttl = await this.redis.ttl(this.modelKey('Grant', grantId));
    await this.redis.set(this.#usedKey(grantId), String(now), 'EX', ttl > 0 ? ttl : 86_400);
  }

  async #liveGrants(sub: string): Promise<{ id: string; grant: StoredGrant }[]> {
    const ids = await this.redis.smembers(this.userGrantsKey(sub));
    if (ids.length === 0) return [];
    const rows = await this.redis.mget(...ids.map((id) => this.modelKey('Grant', id)));
    const live: { id: string; grant: StoredGrant }[] = [];
    const gone: string[] = [];
    ids.forEach((id, i) => {
      const row = rows[i];
      const grant = row ? (JSON.parse(row) as StoredGrant) : undefined;
      if (grant?.accountId === sub && grant.clientId) live.push({ id, grant });
      else gone.push(id);
    });
    if (gone.length > 0) await this.redis.srem(this.userGrantsKey(sub), ...gone);
    return live;
  }

  /** The apps `sub` connected, most recently used first (then most recently authorized). */
  async connectedApps(sub: string): Promise<ConnectedApp[]> {
    const live = await this.#liveGrants(sub);
    if (live.length === 0) return [];
    const used = await this.redis.mget(...live.map(({ id }) => this.#usedKey(id)));
    const byClient = new Map<string, { grants: typeof live; lastUsed: number; scopes: Set<string>; first: number }>();
    live.forEach((entry, i) => {
      const clientId = entry.grant.clientId!;
      const app = byClient.get(clientId) ?? { grants: [], lastUsed: 0, scopes: new Set<string>(), first: Infinity };
      app.grants.push(entry);
      app.lastUsed = Math.max(app.lastUsed, Number(used[i] ?? 0));
      app.first = Math.min(app.first, (entry.grant.iat ?? 0) * 1000);
      for (const scope of [entry.grant.openid?.scope ?? '', ...Object.values(entry.grant.resources ?? {})].join(' ').split(' ')) {
        if (scope) app.scopes.add(scope);
      }
      byClient.set(clientId, app);
    });
    const clientIds = [...byClient.keys()];
    const clients = await this.redis.mget(...clientIds.map((id) => this.modelKey('Client', id)));
    const apps = clientIds.map((clientId, i): ConnectedApp => {
      const app = byClient.get(clientId)!;
      const client = clients[i] ? (JSON.parse(clients[i]) as { client_name?: unknown; client_uri?: unknown }) : {};
      return {
        clientId,
        ...(typeof client.client_name === 'string' ? { clientName: client.client_name } : {}),
        ...(typeof client.client_uri === 'string' ? { clientUri: client.client_uri } : {}),
        scopes: [...app.scopes].sort(),
        firstAuthorizedAt: new Date(app.first).toISOString(),
        ...(app.lastUsed ? { lastUsedAt: new Date(app.lastUsed).toISOString() } : {}),
        grantIds: app.grants.map(({ id }) => id),
      };
    });
    return apps.sort(
      (a, b) => (b.lastUsedAt ?? '').localeCompare(a.lastUsedAt ?? '') || b.firstAuthorizedAt.localeCompare(a.firstAuthorizedAt),
    );
  }

  /**
   * Revokes every grant `sub` gave (to `clientId` only, when given): the revocation record first,
   * so access tokens are refused before anything else changes, then the grant and its tokens.
   * Returns the ids of the grants revoked.
   */
  async revoke(sub: string, clientId?: string): Promise<string[]> {
    const targets = (await this.#liveGrants(sub)).filter(({ grant }) => clientId === undefined || grant.clientId === clientId);
    for (const { id } of targets) {
      // Access tokens issued until now live at most accessTokenTtl past now (+ clock skew).
      await this.#revocations.revokeGrant(id, this.#accessTokenTtl + 60);
      const tokens = await this.redis.lrange(this.grantTokensKey(id), 0, -1);
      await this.redis.del(this.modelKey('Grant', id), this.grantTokensKey(id), this.#usedKey(id), ...tokens);
      await this.redis.srem(this.userGrantsKey(sub), id);
    }
    return targets.map(({ id }) => id);
  }
}
