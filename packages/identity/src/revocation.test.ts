import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRedis, type TestRedis } from '@fragrance/testkit';
import { RevocationStore, revokedBy, type RevocableClaims } from './revocation.ts';

let t: TestRedis;
let store: RevocationStore;
beforeAll(async () => {
  t = await testRedis('revocation');
  store = new RevocationStore(t.redis, { prefix: t.prefix });
});
afterAll(() => t.cleanup());

const now = () => Math.floor(Date.now() / 1000);

describe('RevocationStore', () => {
  it('reports nothing revoked for fresh claims or empty claims', async () => {
    expect(await store.isRevoked({ gid: 'g-fresh', sub: 'u-fresh', iat: now() })).toBe(false);
    expect(await store.isRevoked({})).toBe(false);
  });

  it('revokes a grant, with the given expiry, under the test prefix', async () => {
    await store.revokeGrant('g-1', 120);
    expect(await store.isRevoked({ gid: 'g-1', sub: 'u-1', iat: now() })).toBe(true);
    expect(await store.isRevoked({ gid: 'g-2', sub: 'u-1', iat: now() })).toBe(false);
    const ttl = await t.redis.ttl(`${t.prefix}revoked:grant:g-1`);
    expect(ttl).toBeGreaterThan(100);
    expect(ttl).toBeLessThanOrEqual(120);
  });

  it('revokes tokens of a user issued before the revocation, not later ones', async () => {
    const before = now() - 5;
    await store.revokeUser('u-2');
    expect(await store.isRevoked({ gid: 'g-3', sub: 'u-2', iat: before })).toBe(true);
    expect(await store.isRevoked({ sub: 'u-2' })).toBe(true);
    expect(await store.isRevoked({ gid: 'g-3', sub: 'u-2', iat: now() + 2 })).toBe(false);
    expect(await store.isRevoked({ gid: 'g-3', sub: 'u-other', iat: before })).toBe(false);
  });

  it('uses the default prefix fcs: when none is given', () => {
    const plain = new RevocationStore(t.redis);
    expect(plain.grantKey('x')).toBe('fcs:revoked:grant:x');
    expect(plain.userKey('y')).toBe('fcs:revoked:user:y');
  });

  it('rejects empty ids', async () => {
    await expect(store.revokeGrant('', 10)).rejects.toThrow(TypeError);
    await expect(store.revokeUser('')).rejects.toThrow(TypeError);
  });

  it('takes a snapshot of every record that decides like Redis does (revokedBy)', async () => {
    await store.revokeGrant('g-snap', 120);
    await store.revokeUser('u-snap');
    const snapshot = await store.snapshot();
    expect(snapshot.grants.has('g-snap')).toBe(true);
    expect(snapshot.users.has('u-snap')).toBe(true);
    const decide = (claims: RevocableClaims) =>
      revokedBy(claims, {
        grant: claims.gid ? snapshot.grants.get(claims.gid) : null,
        user: claims.sub ? snapshot.users.get(claims.sub) : null,
      });
    for (const claims of [
      { gid: 'g-snap', sub: 'u-other', iat: now() },
      { gid: 'g-other', sub: 'u-snap', iat: now() - 60 },
      { gid: 'g-other', sub: 'u-snap', iat: now() + 60 },
      { gid: 'g-other', sub: 'u-other', iat: now() },
      { sub: 'u-snap' },
    ])
      expect(decide(claims)).toBe(await store.isRevoked(claims));
  });
});
