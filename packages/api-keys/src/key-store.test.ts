import { rmSync } from 'node:fs';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, REPO_ROOT, startLocalRedis, stopLocalRedis, testRedis, uniquePrefix, type TestRedis } from '@fragrance/testkit';
import { createAdmitter } from './admission.ts';
import { hashApiKey, isWellFormedApiKey } from './key-format.ts';
import { createKeyStore, KeyRequestError, MAX_GRACE_MS, UnknownKeyError, type KeyStore } from './key-store.ts';
import { OriginPattern } from './restrictions.ts';

async function allValues(redis: Redis, prefix: string): Promise<string[]> {
  const out: string[] = [];
  for await (const keys of redis.scanStream({ match: `${prefix}*`, count: 500 }) as AsyncIterable<string[]>) {
    for (const key of keys) {
      out.push(key);
      const type = await redis.type(key);
      if (type === 'string') out.push((await redis.get(key)) ?? '');
      if (type === 'hash') out.push(...Object.entries(await redis.hgetall(key)).flat());
    }
  }
  return out;
}

describe('key store', () => {
  let redis: TestRedis;
  let store: KeyStore;
  beforeAll(async () => {
    redis = await testRedis('keystore');
    store = createKeyStore({ redis: redis.redis, prefix: redis.prefix });
  });
  afterAll(() => redis.cleanup());

  it('creates, lists, revokes and re-quotas keys, storing only the hash', async () => {
    const a = await store.create({ owner: 'Acme Perfumery', quota: 1_000 });
    const b = await store.create({ owner: 'Beta Scents', quota: 50, burst: 10, refillPerSecond: 2 });
    expect(isWellFormedApiKey(a.apiKey)).toBe(true);
    expect(a.record).toMatchObject({ owner: 'Acme Perfumery', quota: 1_000 });
    expect(b.record).toMatchObject({ burst: 10, refillPerSecond: 2 });

    const stored = await allValues(redis.redis, redis.prefix);
    expect(stored.some((v) => v.includes(hashApiKey(a.apiKey)))).toBe(true);
    for (const { apiKey } of [a, b]) {
      expect(stored.some((v) => v.includes(apiKey) || v.includes(apiKey.slice(4)))).toBe(false);
    }

    expect((await store.list()).map((k) => k.id).sort()).toEqual([a.record.id, b.record.id].sort());
    expect(await store.setQuota(a.record.id, 2_000)).toMatchObject({ quota: 2_000 });
    const revoked = await store.revoke(b.record.id);
    expect(revoked.revokedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    // Revoking twice keeps the first moment.
    expect((await store.revoke(b.record.id)).revokedAt).toBe(revoked.revokedAt);
    expect(await store.setBurst(a.record.id, 20, 5)).toMatchObject({ burst: 20, refillPerSecond: 5 });
  });

  it('normalises origin patterns as browsers send origins, refusing what is not one', () => {
    expect(OriginPattern.parse('https://Shop.Example:443')).toBe('https://shop.example');
    expect(OriginPattern.parse('http://127.0.0.1:8090/')).toBe('http://127.0.0.1:8090');
    expect(OriginPattern.parse('https://*.Shop.example:8443')).toBe('https://*.shop.example:8443');
    for (const bad of [
      'shop.example',
      'ftp://shop.example',
      'https://shop.example/path',
      'https://shop.example?x=1',
      'https://user@shop.example',
      'https://*.example',
      'https://*.*.shop.example',
      'https://a.*.shop.example',
      'https://*shop.example',
      '*',
    ]) {
      expect(OriginPattern.safeParse(bad).success, bad).toBe(false);
    }
  });

  it('rolls a key to a successor with the same restrictions, once', async () => {
    let now = Date.parse('2026-06-01T00:00:00Z');
    const timed = createKeyStore({ redis: redis.redis, prefix: redis.prefix, clock: () => now });
    const { record } = await timed.create({
      kind: 'publishable',
      owner: 'Roller',
      quota: 70,
      origins: ['https://shop.example'],
      visitorBurst: 9,
      visitorRefillPerSecond: 3,
      maxLimit: 12,
      expiresAt: now + 86_400_000 * 30,
    });
    now += 1_000;
    const { apiKey, record: next, old } = await timed.roll(record.id, { graceMs: 3_600_000 });
    expect(apiKey.startsWith('fcs_pk_')).toBe(true);
    const { id: _id, hint: _hint, createdAt: _created, rolledFrom, ...copied } = next;
    const { id: _oldId, hint: _oldHint, createdAt: _oldCreated, successor, retiresAt, ...original } = old;
    expect(copied).toEqual(original);
    expect(rolledFrom).toBe(record.id);
    expect(successor).toEqual({ id: next.id, hint: next.hint });
    expect(retiresAt).toBe(new Date(now + 3_600_000).toISOString());
    await expect(timed.roll(record.id, { graceMs: 0 })).rejects.toBeInstanceOf(KeyRequestError);
    await expect(timed.roll(next.id, { graceMs: MAX_GRACE_MS + 1 })).rejects.toBeInstanceOf(KeyRequestError);
    const revoked = await timed.create({ owner: 'Roller', quota: 1 });
    await timed.revoke(revoked.record.id);
    await expect(timed.roll(revoked.record.id, { graceMs: 0 })).rejects.toBeInstanceOf(KeyRequestError);
  });

  it('refuses restrictions that do not fit the kind', async () => {
    const shop = { owner: 'x', quota: 1, kind: 'publishable' as const };
    await expect(store.create(shop)).rejects.toBeInstanceOf(KeyRequestError);
    await expect(store.create({ ...shop, origins: ['https://a.example'], scopes: ['search'] })).rejects.toBeInstanceOf(KeyRequestError);
    await expect(store.create({ ...shop, origins: ['https://a.example'], burst: 5 })).rejects.toBeInstanceOf(KeyRequestError);
    await expect(store.create({ owner: 'x', quota: 1, origins: ['https://a.example'] })).rejects.toBeInstanceOf(KeyRequestError);
    await expect(store.create({ owner: 'x', quota: 1, maxLimit: 5 })).rejects.toBeInstanceOf(KeyRequestError);
    await expect(store.create({ owner: 'x', quota: 1, scopes: [] })).rejects.toBeInstanceOf(KeyRequestError);
    await expect(store.create({ owner: 'x', quota: 1, expiresAt: Date.now() - 1 })).rejects.toBeInstanceOf(KeyRequestError);
    // Every scope is stored as none (a key made before scopes existed reaches everything too).
    const all = await store.create({ owner: 'x', quota: 1, scopes: ['usage', 'search', 'export'] });
    expect(all.record.scopes).toEqual(['search', 'export', 'usage']);
    expect((await redis.redis.hget(`${redis.prefix}apikey:${hashApiKey(all.apiKey)}`, 'scopes')) ?? 'none').toBe('none');
  });

  it('refuses bad input and unknown ids', async () => {
    await expect(store.create({ owner: '  ', quota: 10 })).rejects.toThrow();
    await expect(store.create({ owner: 'x', quota: -1 })).rejects.toThrow();
    await expect(store.create({ owner: 'x', quota: 1.5 })).rejects.toThrow();
    await expect(store.revoke('key_0000000000000000')).rejects.toBeInstanceOf(UnknownKeyError);
    await expect(store.setQuota('nonsense', 1)).rejects.toBeInstanceOf(UnknownKeyError);
    await expect(store.usage('key_0000000000000000', 30, 'UTC')).rejects.toBeInstanceOf(UnknownKeyError);
  });
});

describe('persistence', () => {
  it('keeps keys and usage across a Redis restart (own redis-server, never the shared one)', async () => {
    const port = await freePort();
    const name = `apikeys-restart-${port}`;
    const url = await startLocalRedis({ name, port });
    const prefix = uniquePrefix('restart').replace(/-$/, ':');
    const clock = () => Date.parse('2026-02-10T10:00:00Z');
    try {
      const before = new Redis(url);
      const store = createKeyStore({ redis: before, prefix, clock });
      const { apiKey, record } = await store.create({ owner: 'durable', quota: 100 });
      const admit = createAdmitter({
        redis: before,
        prefix,
        timeZone: 'UTC',
        bucketDefaults: { capacity: 100, refillPerSecond: 10 },
        clock,
      });
      for (let i = 0; i < 7; i += 1) expect((await admit(apiKey, 'admit')).outcome).toBe('admitted');
      await before.quit();

      await stopLocalRedis({ name, port });
      await startLocalRedis({ name, port });

      const after = new Redis(url);
      try {
        const store2 = createKeyStore({ redis: after, prefix, clock });
        expect(await store2.get(record.id)).toMatchObject({ owner: 'durable', quota: 100 });
        expect(await store2.usage(record.id, 1, 'UTC')).toEqual([{ day: '2026-02-10', requests: 7 }]);
        // The script cache is gone after a restart; ioredis reloads it on NOSCRIPT.
        const admit2 = createAdmitter({
          redis: after,
          prefix,
          timeZone: 'UTC',
          bucketDefaults: { capacity: 100, refillPerSecond: 10 },
          clock,
        });
        expect(await admit2(apiKey, 'admit')).toMatchObject({ outcome: 'admitted', quota: { used: 8 } });
      } finally {
        await after.quit();
      }
    } finally {
      await stopLocalRedis({ name, port });
      const localDir = process.env.FRAGRANCE_LOCAL_DIR ?? `${REPO_ROOT}.local`;
      rmSync(`${localDir}/redis/${name}`, { recursive: true, force: true });
      rmSync(`${localDir}/redis/.${name}.lock`, { force: true });
    }
  });
});
