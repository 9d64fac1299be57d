import type { Redis } from 'ioredis';
import { normaliseEmail } from './users.ts';
import { RedisStore } from './store.ts';

export interface LoginThrottleOptions {
  prefix?: string;
  /** Failed attempts allowed per account per window (default 5). */
  perAccount?: number;
  /** Failed attempts allowed per source address per window (default 20). */
  perAddress?: number;
  /** Window length in seconds (default 900). */
  windowSeconds?: number;
}

export type ThrottleDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * Counts failed sign-ins per account and per source address in fixed windows. While either
 * counter is at its limit, further attempts are refused without checking the password, so a
 * guesser learns nothing and spends no scrypt time of ours.
 */
export class LoginThrottle extends RedisStore {
  readonly #perAccount: number;
  readonly #perAddress: number;
  readonly #window: number;

  constructor(redis: Redis, options: LoginThrottleOptions = {}) {
    super(redis, options.prefix);
    this.#perAccount = options.perAccount ?? 5;
    this.#perAddress = options.perAddress ?? 20;
    this.#window = options.windowSeconds ?? 900;
  }

  #keys(email: string, address: string): [string, string] {
    return [`${this.prefix}user:throttle:account:${normaliseEmail(email)}`, `${this.prefix}user:throttle:address:${address}`];
  }

  async check(email: string, address: string): Promise<ThrottleDecision> {
    const [account, addr] = this.#keys(email, address);
    const result = await this.redis.multi().get(account).pttl(account).get(addr).pttl(addr).exec();
    const value = (i: number) => (result?.[i]?.[1] ?? null) as string | number | null;
    const blocked: number[] = [];
    if (Number(value(0) ?? 0) >= this.#perAccount) blocked.push(Number(value(1)));
    if (Number(value(2) ?? 0) >= this.#perAddress) blocked.push(Number(value(3)));
    if (blocked.length === 0) return { allowed: true };
    const ms = Math.max(...blocked.map((t) => (t > 0 ? t : this.#window * 1000)));
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(ms / 1000)) };
  }

  async recordFailure(email: string, address: string): Promise<void> {
    const [account, addr] = this.#keys(email, address);
    await this.redis.multi().incr(account).expire(account, this.#window, 'NX').incr(addr).expire(addr, this.#window, 'NX').exec();
  }

  /** After a successful sign-in the account's counter starts again (the address's does not). */
  async recordSuccess(email: string): Promise<void> {
    await this.redis.del(this.#keys(email, '')[0]);
  }
}
