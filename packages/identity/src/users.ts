import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { DEFAULT_SCRYPT, hashPassword, verifyPassword, type ScryptParams } from './password.ts';
import { RedisStore } from './store.ts';

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 1024;

export interface User {
  /** Stable subject identifier (`sub` of every token); never the email, which may change. */
  id: string;
  email: string;
  disabled: boolean;
  createdAt: string;
}

/** Thrown for input an operator or user can fix; `code` is stable. */
export class IdentityError extends Error {
  readonly code: 'invalid_email' | 'weak_password' | 'user_exists' | 'user_not_found';
  constructor(code: IdentityError['code'], message: string) {
    super(message);
    this.name = 'IdentityError';
    this.code = code;
  }
}

const Email = z.email();

/** Trimmed, NFC, lower-case: one account per mailbox however it is typed. */
export function normaliseEmail(email: string): string {
  return email.normalize('NFC').trim().toLowerCase();
}

export interface UserStoreOptions {
  prefix?: string;
  /** Lower scrypt cost for tests only. */
  scrypt?: ScryptParams;
}

/**
 * Users in Redis: `<prefix>user:id:<id>` (hash: id, email, hash, disabled, created_at),
 * `<prefix>user:email:<email>` → id, and `<prefix>user:all` (set of ids).
 */
export class UserStore extends RedisStore {
  readonly #scrypt: ScryptParams;
  #dummyHash: Promise<string> | undefined;

  constructor(redis: Redis, options: UserStoreOptions = {}) {
    super(redis, options.prefix);
    this.#scrypt = options.scrypt ?? DEFAULT_SCRYPT;
  }

  #idKey(id: string) {
    return `${this.prefix}user:id:${id}`;
  }
  #emailKey(email: string) {
    return `${this.prefix}user:email:${email}`;
  }
  get #allKey() {
    return `${this.prefix}user:all`;
  }

  async create(email: string, password: string): Promise<User> {
    const normalised = normaliseEmail(email);
    if (!Email.safeParse(normalised).success) throw new IdentityError('invalid_email', 'not a valid email address');
    checkPassword(password);
    const user: User = {
      id: randomUUID(),
      email: normalised,
      disabled: false,
      createdAt: new Date().toISOString(),
    };
    const hash = await hashPassword(password, this.#scrypt);
    // SET NX on the email index is the uniqueness check, so two racing creates cannot both win.
    const claimed = await this.redis.set(this.#emailKey(normalised), user.id, 'NX');
    if (claimed !== 'OK') throw new IdentityError('user_exists', `a user with email ${normalised} already exists`);
    await this.redis
      .multi()
      .hset(this.#idKey(user.id), {
        id: user.id,
        email: normalised,
        hash,
        disabled: '0',
        created_at: user.createdAt,
      })
      .sadd(this.#allKey, user.id)
      .exec();
    return user;
  }

  async findById(id: string): Promise<User | undefined> {
    const row = await this.redis.hgetall(this.#idKey(id));
    return toUser(row);
  }

  async findByEmail(email: string): Promise<User | undefined> {
    const id = await this.redis.get(this.#emailKey(normaliseEmail(email)));
    return id ? this.findById(id) : undefined;
  }

  /**
   * The user when the email and password match an enabled account, else undefined. An unknown
   * email still costs one scrypt so response time does not reveal which accounts exist.
   */
  async authenticate(email: string, password: string): Promise<User | undefined> {
    if (password.length > MAX_PASSWORD_LENGTH) return undefined;
    const id = await this.redis.get(this.#emailKey(normaliseEmail(email)));
    const row = id ? await this.redis.hgetall(this.#idKey(id)) : {};
    const user = toUser(row);
    if (!user || !row.hash) {
      this.#dummyHash ??= hashPassword('not-a-real-password', this.#scrypt);
      await verifyPassword(password, await this.#dummyHash);
      return undefined;
    }
    const ok = await verifyPassword(password, row.hash);
    return ok && !user.disabled ? user : undefined;
  }

  async setDisabled(email: string, disabled: boolean): Promise<User> {
    const user = await this.findByEmail(email);
    if (!user) throw new IdentityError('user_not_found', `no user with email ${normaliseEmail(email)}`);
    await this.redis.hset(this.#idKey(user.id), 'disabled', disabled ? '1' : '0');
    return { ...user, disabled };
  }

  /**
   * Sets a new password when `current` is the account's password (false otherwise, nothing
   * changed), and signs the person out of every session started before now.
   */
  async changePassword(id: string, current: string, next: string): Promise<boolean> {
    checkPassword(next);
    const row = await this.redis.hgetall(this.#idKey(id));
    if (!row.hash || row.disabled === '1' || current.length > MAX_PASSWORD_LENGTH || !(await verifyPassword(current, row.hash)))
      return false;
    const hash = await hashPassword(next, this.#scrypt);
    await this.redis.hset(this.#idKey(id), { hash, sessions_since: String(Date.now()) });
    return true;
  }

  /** Ends every session (sign-in page, account page) started before now; tokens of connected apps stay. */
  async signOutEverywhere(id: string): Promise<void> {
    await this.redis.hset(this.#idKey(id), 'sessions_since', String(Date.now()));
  }

  /**
   * Milliseconds since the epoch before which a session of `id` no longer counts (0: none ended).
   * Infinity for an unknown user, so a session of a deleted account never counts.
   */
  async sessionsValidSince(id: string): Promise<number> {
    const [exists, since] = await this.redis
      .multi()
      .exists(this.#idKey(id))
      .hget(this.#idKey(id), 'sessions_since')
      .exec()
      .then((r) => [r?.[0]?.[1], r?.[1]?.[1]]);
    if (exists !== 1) return Infinity;
    return Number(since ?? 0);
  }

  async list(): Promise<User[]> {
    const ids = await this.redis.smembers(this.#allKey);
    const users = await Promise.all(ids.map((id) => this.findById(id)));
    return users.filter((u): u is User => u !== undefined).sort((a, b) => a.email.localeCompare(b.email));
  }
}

function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH)
    throw new IdentityError('weak_password', `password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  if (password.length > MAX_PASSWORD_LENGTH)
    throw new IdentityError('weak_password', `password must be at most ${MAX_PASSWORD_LENGTH} characters`);
}

function toUser(row: Record<string, string>): User | undefined {
  if (!row.id || !row.email) return undefined;
  return {
    id: row.id,
    email: row.email,
    disabled: row.disabled === '1',
    createdAt: row.created_at ?? '',
  };
}
