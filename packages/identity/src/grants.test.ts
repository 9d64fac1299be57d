import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRedis, type TestRedis } from '@fragrance/testkit';
import { GrantStore } from './grants.ts';
import { RevocationStore } from './revocation.ts';
import { UserStore } from './users.ts';

let t: TestRedis;
let grants: GrantStore;
let revocations: RevocationStore;
beforeAll(async () => {
  t = await testRedis('grants');
  revocations = new RevocationStore(t.redis, { prefix: t.prefix });
  grants = new GrantStore(t.redis, { prefix: t.prefix, revocations, accessTokenTtlSeconds: 600, usageIntervalMs: 60_000 });
});
afterAll(() => t.cleanup());

/** Stores a grant (and one refresh token) the way the auth service's adapter does. */
async function saveGrant(id: string, accountId: string, clientId: string, iat: number, scope = 'catalogue:read') {
  const multi = t.redis.multi();
  multi.set(
    grants.modelKey('Grant', id),
    JSON.stringify({ accountId, clientId, iat, openid: { scope: 'openid' }, resources: { 'http://x/mcp': scope } }),
    'EX',
    3_600,
  );
  grants.indexGrant(multi, id, accountId, 3_600);
  const refreshKey = grants.modelKey('RefreshToken', `rt-${id}`);
  multi.hset(refreshKey, { payload: '{}' }).rpush(grants.grantTokensKey(id), refreshKey);
  await multi.exec();
  return refreshKey;
}

describe('GrantStore', () => {
  it('folds the grants of one client into one app, names it from the registered client, newest use first', async () => {
    await t.redis.set(grants.modelKey('Client', 'c-a'), JSON.stringify({ client_name: 'App A', client_uri: 'https://a.example' }));
    await saveGrant('g-1', 'u-1', 'c-a', 1_700_000_000);
    await saveGrant('g-2', 'u-1', 'c-a', 1_700_000_100, 'catalogue:read offline_access');
    await saveGrant('g-3', 'u-1', 'c-b', 1_700_000_200);
    await saveGrant('g-other', 'u-2', 'c-a', 1_700_000_000);
    await grants.recordUse('g-1', 1_800_000_000_000);

    const apps = await grants.connectedApps('u-1');
    expect(apps.map((a) => a.clientId)).toEqual(['c-a', 'c-b']);
    expect(apps[0]).toEqual({
      clientId: 'c-a',
      clientName: 'App A',
      clientUri: 'https://a.example',
      scopes: ['catalogue:read', 'offline_access', 'openid'],
      firstAuthorizedAt: new Date(1_700_000_000_000).toISOString(),
      lastUsedAt: new Date(1_800_000_000_000).toISOString(),
      grantIds: expect.arrayContaining(['g-1', 'g-2']) as unknown,
    });
    expect(apps[1]).toMatchObject({ clientId: 'c-b', scopes: ['catalogue:read', 'openid'] });
    expect(apps[1]!.clientName).toBeUndefined();
    expect(apps[1]!.lastUsedAt).toBeUndefined();
  });

  it('writes the last use at most once per interval per grant', async () => {
    await grants.recordUse('g-3', 2_000_000_000_000);
    await grants.recordUse('g-3', 2_000_000_030_000);
    expect((await grants.connectedApps('u-1')).find((a) => a.clientId === 'c-b')?.lastUsedAt).toBe(
      new Date(2_000_000_000_000).toISOString(),
    );
    await grants.recordUse('g-3', 2_000_000_061_000);
    expect((await grants.connectedApps('u-1')).find((a) => a.clientId === 'c-b')?.lastUsedAt).toBe(
      new Date(2_000_000_061_000).toISOString(),
    );
  });

  it('revokes one client of one person: record written, grant and tokens deleted; others untouched', async () => {
    const revoked = await grants.revoke('u-1', 'c-a');
    expect(revoked.sort()).toEqual(['g-1', 'g-2']);
    expect(await revocations.isRevoked({ gid: 'g-1' })).toBe(true);
    expect(await revocations.isRevoked({ gid: 'g-2' })).toBe(true);
    expect(await t.redis.ttl(revocations.grantKey('g-1'))).toBeGreaterThan(600);
    expect(await t.redis.exists(grants.modelKey('Grant', 'g-1'), grants.modelKey('RefreshToken', 'rt-g-1'))).toBe(0);
    expect((await grants.connectedApps('u-1')).map((a) => a.clientId)).toEqual(['c-b']);
    // The same client's grant of another person stays.
    expect(await revocations.isRevoked({ gid: 'g-other' })).toBe(false);
    expect((await grants.connectedApps('u-2')).map((a) => a.clientId)).toEqual(['c-a']);
    // Nothing left to revoke for that client: an empty answer, not an error.
    expect(await grants.revoke('u-1', 'c-a')).toEqual([]);
  });

  it('revokes every app of a person without a client, and drops index entries of expired grants', async () => {
    await saveGrant('g-4', 'u-3', 'c-x', 1_700_000_000);
    await saveGrant('g-5', 'u-3', 'c-y', 1_700_000_000);
    await t.redis.del(grants.modelKey('Grant', 'g-5')); // expired meanwhile
    expect((await grants.connectedApps('u-3')).map((a) => a.clientId)).toEqual(['c-x']);
    expect(await t.redis.smembers(grants.userGrantsKey('u-3'))).toEqual(['g-4']);
    expect(await grants.revoke('u-3')).toEqual(['g-4']);
    expect(await grants.connectedApps('u-3')).toEqual([]);
  });
});

describe('UserStore: password change and sessions', () => {
  it('changes the password only with the current one and moves the session cut-off', async () => {
    const users = new UserStore(t.redis, { prefix: t.prefix, scrypt: { N: 1024, r: 8, p: 1 } });
    const user = await users.create('change.me@example.com', 'the original password');
    expect(await users.sessionsValidSince(user.id)).toBe(0);
    expect(await users.sessionsValidSince('no-such-user')).toBe(Infinity);
    expect(await users.changePassword(user.id, 'wrong password!!', 'the replacement password')).toBe(false);
    await expect(users.changePassword(user.id, 'the original password', 'short')).rejects.toThrow(/at least 12/);
    const before = Date.now();
    expect(await users.changePassword(user.id, 'the original password', 'the replacement password')).toBe(true);
    expect(await users.sessionsValidSince(user.id)).toBeGreaterThanOrEqual(before);
    expect(await users.authenticate(user.email, 'the replacement password')).toBeDefined();
    expect(await users.authenticate(user.email, 'the original password')).toBeUndefined();
    await users.signOutEverywhere(user.id);
    expect(await users.sessionsValidSince(user.id)).toBeGreaterThanOrEqual(before);
  });
});
