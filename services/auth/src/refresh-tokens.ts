import type { Redis } from 'ioredis';
import Provider, { errors, type AdapterPayload } from 'oidc-provider';
import type { Logger } from '@fragrance/http';
import { loadLuaScript, scriptCommand, type ScriptArg } from '@fragrance/redis';

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

export interface RefreshTokenOptions {
  redis: Redis;
  /** e.g. `fcs:oidc:`. */
  base: string;
  /** A token ends this long after it was issued, unless used; a chain ends `maxSeconds` after its first token. */
  idleSeconds: number;
  maxSeconds: number;
  /** The time (ms); tests move it. */
  clock: () => number;
  logger: Logger;
}

/**
 * The refresh-token rules of the Redis adapter (docs/oauth.md "Refresh tokens"): rotation in one
 * atomic script, a rotated token usable until one of its successors is used, theft once it is
 * two generations old, idle and absolute expiry on `clock`.
 *
 * Rotation in oidc-provider is consume(old) then upsert(successor), two calls. Both run inside
 * the token request's context (Provider.ctx), so consume only notes the old token and the
 * successor's upsert does both writes in one script. Keyed by request, never shared.
 */
export class RefreshTokens {
  readonly #options: RefreshTokenOptions;
  readonly #rotateScript: (...args: ScriptArg[]) => Promise<number>;
  readonly #foundInRequest = new WeakMap<object, FoundRefreshToken>();
  readonly #consumeInRequest = new WeakMap<object, FoundRefreshToken>();

  constructor(options: RefreshTokenOptions) {
    this.#options = options;
    this.#rotateScript = scriptCommand<number>(options.redis, 'fcsRotateRefreshToken', ROTATE_REFRESH_TOKEN);
  }

  #key = (id: string) => `${this.#options.base}RefreshToken:${id}`;
  #now = () => Math.floor(this.#options.clock() / 1000);

  /** The hash fields of the first token of a chain: the grant's absolute lifetime starts now. */
  firstFields(payload: AdapterPayload): Record<string, string | number> {
    const now = this.#now();
    return { payload: JSON.stringify(payload), created: now, absolute: now + this.#options.maxSeconds };
  }

  /** Idle (since it was issued) or past the grant's absolute lifetime. */
  #expired(data: Record<string, string>): boolean {
    const now = this.#now();
    const created = Number(data.created);
    const absolute = Number(data.absolute);
    return (created > 0 && now >= created + this.#options.idleSeconds) || (absolute > 0 && now >= absolute);
  }

  /** A stored refresh token as oidc-provider may see it (undefined: expired by our clock). */
  find(id: string, data: Record<string, string>, payload: AdapterPayload): AdapterPayload | undefined {
    if (this.#expired(data)) return undefined;
    const ctx = Provider.ctx;
    // Usable while none of its successors was used: shown unused, so oidc-provider rotates it.
    if (ctx && !data.successor_used) {
      const absolute = Number(data.absolute) || this.#now() + this.#options.maxSeconds;
      this.#foundInRequest.set(ctx, { id, predecessor: data.predecessor ?? '', absolute, rotated: Boolean(data.consumed) });
      return payload;
    }
    return data.consumed ? { ...payload, consumed: Number(data.consumed) } : payload;
  }

  /** consume() of a token this request found: deferred to the successor's save. False when it is not one. */
  deferConsume(id: string): boolean {
    const ctx = Provider.ctx;
    const found = ctx ? this.#foundInRequest.get(ctx) : undefined;
    if (!ctx || found?.id !== id) return false;
    this.#foundInRequest.delete(ctx);
    this.#consumeInRequest.set(ctx, found);
    return true;
  }

  /** Saves `id` as the successor of the token this request consumed; false when this save is no rotation. */
  async saveSuccessor(id: string, payload: AdapterPayload, ttl: number, grantKey: string): Promise<boolean> {
    const ctx = Provider.ctx;
    const found = ctx ? this.#consumeInRequest.get(ctx) : undefined;
    if (!ctx || !found) return false;
    this.#consumeInRequest.delete(ctx);
    const rotated = await this.#rotateScript(
      this.#key(found.id),
      this.#key(id),
      grantKey,
      this.#key(found.predecessor || found.id),
      found.id,
      JSON.stringify(payload),
      ttl || 0,
      this.#now(),
      found.absolute,
    );
    if (rotated !== 1) throw new errors.InvalidGrant('grant already used');
    // A token rotated before, presented again: another successor, the earlier ones kept.
    if (found.rotated) {
      this.#options.logger.info({ grantId: payload.grantId }, 'rotated refresh token presented again before any successor was used');
    }
    return true;
  }
}
