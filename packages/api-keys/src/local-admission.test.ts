import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRedis, type TestRedis } from '@fragrance/testkit';
import { openAdmissionJournal } from './admission-journal.ts';
import { createAdmitter } from './admission.ts';
import { localDate } from './day-window.ts';
import { createKeyStore, type KeyStore } from './key-store.ts';
import { createLocalAdmission } from './local-admission.ts';
import { accessAllowed, originAllowed } from './restrictions.ts';

const bucketDefaults = { capacity: 60, refillPerSecond: 1_000 };
const visitorDefaults = { capacity: 30, refillPerSecond: 5, maxLimit: 50 };

describe('admission journal and local admission (real Redis)', () => {
  let redis: TestRedis;
  let store: KeyStore;
  const dir = mkdtempSync(join(tmpdir(), 'fcs-journal-unit-'));
  const usage = async (id: string) => Number((await redis.redis.get(`${redis.prefix}usage:${id}:${localDate(Date.now(), 'UTC')}`)) ?? 0);

  beforeAll(async () => {
    redis = await testRedis('local-admission');
    store = createKeyStore({ redis: redis.redis, prefix: redis.prefix });
  });
  afterAll(async () => {
    await redis.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('replays every entry once: voided ones, malformed lines and a line cut by a crash are skipped, a second replay of the same lines counts nothing', async () => {
    const { record } = await store.create({ owner: 'journal', quota: 100 });
    const file = join(dir, 'replay.jsonl');
    const day = localDate(Date.now(), 'UTC');
    const journal = openAdmissionJournal({ redis: redis.redis, prefix: redis.prefix, file, fsyncIntervalMs: 0 });
    for (const id of ['a', 'b', 'c']) journal.append({ id, key: record.id, day, units: id === 'c' ? 3 : 1, at: Date.now() });
    expect(journal.void('b')).toBe(true);
    journal.close();
    // A line that is not an admission (bad key id, negative units) is skipped, and so is one cut by a crash.
    appendFileSync(file, JSON.stringify({ id: 'e', key: 'key_zz', day, units: -5, at: 0 }) + '\n');
    appendFileSync(file, '{"id":"d","key":"');
    const lines = readFileSync(file, 'utf8');

    const reopened = openAdmissionJournal({ redis: redis.redis, prefix: redis.prefix, file, fsyncIntervalMs: 0 });
    expect(reopened.backlog()).toBe(2);
    expect(await reopened.replay()).toEqual({ replayed: 2, acknowledged: 2 });
    expect(await usage(record.id)).toBe(4);
    expect(readFileSync(file, 'utf8')).toBe('');
    expect(reopened.void('a')).toBe(false);
    reopened.close();

    // Crashed after the replay, before the truncation: the marks make it count nothing.
    writeFileSync(file, lines);
    const again = openAdmissionJournal({ redis: redis.redis, prefix: redis.prefix, file, fsyncIntervalMs: 0 });
    expect(await again.replay()).toEqual({ replayed: 0, acknowledged: 2 });
    expect(await usage(record.id)).toBe(4);
    again.close();
  });

  it('does not count a journalled edge request id that Redis itself admitted (the edge retried it on another instance)', async () => {
    const { apiKey, record } = await store.create({ owner: 'edge', quota: 100 });
    const admit = createAdmitter({ redis: redis.redis, prefix: redis.prefix, timeZone: 'UTC', bucketDefaults });
    expect((await admit(apiKey, 'admit', 1, 'edge-1')).outcome).toBe('admitted');
    const journal = openAdmissionJournal({ redis: redis.redis, prefix: redis.prefix, file: join(dir, 'edge.jsonl'), fsyncIntervalMs: 0 });
    journal.append({ id: 'edge-1', key: record.id, day: localDate(Date.now(), 'UTC'), units: 1, at: Date.now() });
    expect(await journal.replay()).toEqual({ replayed: 0, acknowledged: 1 });
    expect(await usage(record.id)).toBe(1);
    journal.close();
  });

  it('with Redis gone: admits a recently seen key within its allowance and quota, applies its restrictions, refuses unseen and stale keys', async () => {
    const connection = redis.connect();
    let now = Date.now();
    const journal = openAdmissionJournal({ redis: connection, prefix: redis.prefix, file: join(dir, 'local.jsonl'), fsyncIntervalMs: 0 });
    const local = createLocalAdmission({
      redis: connection,
      prefix: redis.prefix,
      timeZone: 'UTC',
      journal,
      maxAgeMs: 30_000,
      bucketDefaults,
      visitorDefaults,
      clock: () => now,
    });
    const admit = createAdmitter({ redis: connection, prefix: redis.prefix, timeZone: 'UTC', bucketDefaults, visitorDefaults, local });
    const roomy = await store.create({ owner: 'roomy', quota: 1_000, burst: 4, refillPerSecond: 1_000 });
    const near = await store.create({ owner: 'near', quota: 3, burst: 10, refillPerSecond: 1_000 });
    const page = await store.create({ owner: 'page', kind: 'publishable', quota: 1_000, origins: ['https://*.shop.example'] });
    const unseen = await store.create({ owner: 'unseen', quota: 1_000 });
    const pageFacts = { access: 'search' as const, origin: 'https://a.shop.example', clientAddress: '192.0.2.1' };
    expect((await admit(roomy.apiKey, 'admit', 1, undefined, { access: 'search' })).outcome).toBe('admitted');
    for (let i = 0; i < 2; i++) expect((await admit(near.apiKey, 'admit')).outcome).toBe('admitted');
    expect((await admit(page.apiKey, 'admit', 1, undefined, pageFacts)).outcome).toBe('admitted');
    connection.disconnect();

    const outcomes = async (apiKey: string, n: number, facts = {}) =>
      Promise.all(Array.from({ length: n }, () => admit(apiKey, 'admit', 1, undefined, facts).then((a) => a.outcome)));
    // Allowance: the key's burst (4) until Redis decides on it again.
    expect(await outcomes(roomy.apiKey, 6, { access: 'search' })).toEqual([
      ...Array(4).fill('admitted'),
      'burst_limit_exceeded',
      'burst_limit_exceeded',
    ]);
    const admitted = await admit(near.apiKey, 'admit');
    expect(admitted).toMatchObject({ outcome: 'admitted', quota: { used: 3, remaining: 0, local: { journalId: expect.any(String) } } });
    expect((await admit(near.apiKey, 'admit')).outcome).toBe('daily_quota_exceeded');
    expect((await admit(page.apiKey, 'admit', 1, undefined, { ...pageFacts, origin: 'https://evil.example' })).outcome).toBe('not_allowed');
    expect((await admit(page.apiKey, 'admit', 1, undefined, { ...pageFacts, access: 'export' })).outcome).toBe('not_allowed');
    expect((await admit(page.apiKey, 'admit', 1, undefined, { ...pageFacts, limit: 51 })).outcome).toBe('not_allowed');
    expect((await admit(page.apiKey, 'admit', 1, undefined, pageFacts)).outcome).toBe('admitted');
    await expect(admit(unseen.apiKey, 'admit')).rejects.toThrow();
    expect(journal.backlog()).toBe(6);
    expect(local.degradedSince()).toBeDefined();
    // Past the bound, a key seen before is refused too (its revocation may have been missed).
    now += 30_001;
    await expect(admit(page.apiKey, 'admit', 1, undefined, pageFacts)).rejects.toThrow();
    journal.close();
  });

  it('decides scopes and origins as the admission script does', () => {
    expect(accessAllowed(false, undefined, 'export')).toBe(true);
    expect(accessAllowed(false, 'search usage', 'export')).toBe(false);
    expect(accessAllowed(false, 'search usage', 'me')).toBe(true);
    expect(accessAllowed(true, undefined, 'search')).toBe(true);
    expect(accessAllowed(true, undefined, 'me')).toBe(false);
    const patterns = 'https://shop.example https://*.shop.example';
    expect(originAllowed(patterns, 'https://shop.example')).toBe(true);
    expect(originAllowed(patterns, 'https://a-1.shop.example')).toBe(true);
    expect(originAllowed(patterns, 'https://a.b.shop.example')).toBe(false);
    expect(originAllowed(patterns, 'https://a-.shop.example')).toBe(false);
    expect(originAllowed(patterns, 'http://a.shop.example')).toBe(false);
    expect(originAllowed(patterns, 'https://.shop.example')).toBe(false);
    expect(originAllowed(patterns, '')).toBe(false);
  });
});
