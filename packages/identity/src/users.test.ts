import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRedis, type TestRedis } from '@fragrance/testkit';
import { hashPassword, verifyPassword } from './password.ts';
import { LoginThrottle } from './throttle.ts';
import { IdentityError, normaliseEmail, UserStore } from './users.ts';

const FAST = { N: 1024, r: 8, p: 1 };
let t: TestRedis;
let users: UserStore;
beforeAll(async () => {
  t = await testRedis('users');
  users = new UserStore(t.redis, { prefix: t.prefix, scrypt: FAST });
});
afterAll(() => t.cleanup());

describe('passwords', () => {
  it('hashes with a fresh salt and verifies only the right password', async () => {
    const a = await hashPassword('correct horse battery', FAST);
    const b = await hashPassword('correct horse battery', FAST);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^scrypt\$1024\$8\$1\$[\w-]+\$[\w-]+$/);
    expect(await verifyPassword('correct horse battery', a)).toBe(true);
    expect(await verifyPassword('correct horse batterz', a)).toBe(false);
    expect(await verifyPassword('x', 'garbage')).toBe(false);
    expect(await verifyPassword('x', 'scrypt$0$8$1$aa$bb')).toBe(false);
  });

  it('uses the default cost when none is given', async () => {
    expect(await hashPassword('some long password')).toMatch(/^scrypt\$32768\$8\$1\$/);
  });
});

describe('UserStore', () => {
  it('normalises emails', () => {
    expect(normaliseEmail('  Alice@Example.COM ')).toBe('alice@example.com');
  });

  it('creates a user, finds it by any spelling of its email, never stores the password', async () => {
    const user = await users.create(' Buyer@Example.com', 'a long enough password');
    expect(user).toMatchObject({ email: 'buyer@example.com', disabled: false });
    expect(user.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await users.findByEmail('BUYER@example.com')).toEqual(user);
    expect(await users.findById(user.id)).toEqual(user);
    const raw = await t.redis.hgetall(`${t.prefix}user:id:${user.id}`);
    expect(JSON.stringify(raw)).not.toContain('a long enough password');
    expect(raw.hash).toMatch(/^scrypt\$/);
  });

  it('refuses duplicates, bad emails and short passwords with a code', async () => {
    await users.create('dup@example.com', 'a long enough password');
    await expect(users.create('DUP@example.com', 'another long password')).rejects.toMatchObject({
      code: 'user_exists',
    });
    await expect(users.create('not-an-email', 'a long enough password')).rejects.toMatchObject({
      code: 'invalid_email',
    });
    await expect(users.create('short@example.com', 'short')).rejects.toBeInstanceOf(IdentityError);
    await expect(users.create('short@example.com', 'short')).rejects.toMatchObject({
      code: 'weak_password',
    });
  });

  it('authenticates the right password, not a wrong one, an unknown email or a disabled user', async () => {
    const user = await users.create('login@example.com', 'the right password');
    expect(await users.authenticate('LOGIN@example.com', 'the right password')).toEqual(user);
    expect(await users.authenticate('login@example.com', 'the wrong password')).toBeUndefined();
    expect(await users.authenticate('nobody@example.com', 'the right password')).toBeUndefined();
    const disabled = await users.setDisabled('login@example.com', true);
    expect(disabled.disabled).toBe(true);
    expect(await users.authenticate('login@example.com', 'the right password')).toBeUndefined();
    expect((await users.findById(user.id))?.disabled).toBe(true);
    await users.setDisabled('login@example.com', false);
    expect(await users.authenticate('login@example.com', 'the right password')).toBeDefined();
    await expect(users.setDisabled('ghost@example.com', true)).rejects.toMatchObject({
      code: 'user_not_found',
    });
  });

  it('lists users sorted by email', async () => {
    const emails = (await users.list()).map((u) => u.email);
    expect(emails).toEqual([...emails].sort());
    expect(emails).toContain('buyer@example.com');
  });
});

describe('LoginThrottle', () => {
  it('blocks an account after its failures, and an address after its own', async () => {
    const throttle = new LoginThrottle(t.redis, {
      prefix: t.prefix,
      perAccount: 3,
      perAddress: 5,
      windowSeconds: 60,
    });
    for (let i = 0; i < 3; i++) {
      expect(await throttle.check('victim@example.com', '10.0.0.1')).toEqual({ allowed: true });
      await throttle.recordFailure('Victim@example.com', '10.0.0.1');
    }
    const blocked = await throttle.check('victim@example.com', '10.0.0.9');
    expect(blocked.allowed).toBe(false);
    expect(!blocked.allowed && blocked.retryAfterSeconds).toBeGreaterThan(50);
    // Another account from the same address is still allowed until the address limit.
    expect(await throttle.check('other@example.com', '10.0.0.1')).toEqual({ allowed: true });
    await throttle.recordFailure('other@example.com', '10.0.0.1');
    await throttle.recordFailure('other2@example.com', '10.0.0.1');
    expect((await throttle.check('fresh@example.com', '10.0.0.1')).allowed).toBe(false);
    expect((await throttle.check('fresh@example.com', '10.0.0.2')).allowed).toBe(true);
  });

  it('clears the account counter after a success', async () => {
    const throttle = new LoginThrottle(t.redis, {
      prefix: t.prefix,
      perAccount: 2,
      perAddress: 100,
    });
    await throttle.recordFailure('reset@example.com', '10.1.0.1');
    await throttle.recordFailure('reset@example.com', '10.1.0.1');
    expect((await throttle.check('reset@example.com', '10.1.0.1')).allowed).toBe(false);
    await throttle.recordSuccess('reset@example.com');
    expect((await throttle.check('reset@example.com', '10.1.0.1')).allowed).toBe(true);
  });
});

describe('disableUser', () => {
  it('disables the account and revokes every token of the user issued before now', async () => {
    const { RevocationStore } = await import('./revocation.ts');
    const { disableUser } = await import('./disable.ts');
    const revocations = new RevocationStore(t.redis, { prefix: t.prefix });
    const user = await users.create('leaver@example.com', 'a long enough password');
    const issuedBefore = Math.floor(Date.now() / 1000) - 1;
    expect(await revocations.isRevoked({ sub: user.id, iat: issuedBefore })).toBe(false);
    const disabled = await disableUser(users, revocations, 'Leaver@example.com');
    expect(disabled.disabled).toBe(true);
    expect(await revocations.isRevoked({ sub: user.id, iat: issuedBefore })).toBe(true);
    expect(await users.authenticate('leaver@example.com', 'a long enough password')).toBeUndefined();
  });
});
