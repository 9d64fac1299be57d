import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEARCH_QUERY_MAX_CHARS, SEARCH_USAGE_MAX_LIMIT } from '@fragrance/contracts';
import { testRedis, type TestRedis } from '@fragrance/testkit';
import { SEARCH_ANALYTICS_CAP, SEARCH_ANALYTICS_KEEP, SEARCH_ANALYTICS_TTL_SECONDS, searchAnalyticsKeys } from './keys.ts';
import { createSearchRecorder } from './recorder.ts';
import { listSearchOwners, readSearchReport } from './report.ts';

describe('search counters (real Redis)', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await testRedis('search-analytics');
  });
  afterAll(async () => {
    await redis.cleanup();
  });

  const found = (total = 3, relaxed = false) => ({ total, relaxed });

  it('counts per owner and per day: totals, top, zero-result and relaxed texts, folded', async () => {
    const record = createSearchRecorder({ redis: redis.redis, prefix: redis.prefix });
    const day = '2026-03-10';
    const acme = (query: string, outcome = found()) => record({ owner: 'Acme Perfumery', day, query, ...outcome });
    await acme('Rosé  OUD!');
    await acme('rose oud');
    await acme('ROSE-oud', found(0));
    await acme('YSL Cinema', found(0));
    await acme('Cerruti Image eau de toilette', found(4, true));
    await acme('bleu');
    // Another owner, and the same owner on another day, are counted apart.
    await record({ owner: 'Other: Co', day, query: 'vetiver', ...found(0) });
    await record({ owner: 'Acme Perfumery', day: '2026-03-11', query: 'oud', ...found() });

    const report = await readSearchReport(redis.redis, redis.prefix, { owner: 'Acme Perfumery', day, limit: 10 });
    expect(report).toEqual({
      owner: 'Acme Perfumery',
      day,
      searches: 6,
      zeroResults: 2,
      relaxed: 1,
      topQueries: [
        { query: 'rose oud', count: 3 },
        { query: 'bleu', count: 1 },
        { query: 'cerruti image eau de toilette', count: 1 },
        { query: 'ysl cinema', count: 1 },
      ],
      zeroResultQueries: [
        { query: 'rose oud', count: 1 },
        { query: 'ysl cinema', count: 1 },
      ],
      relaxedQueries: [{ query: 'cerruti image eau de toilette', count: 1 }],
    });
    expect(await readSearchReport(redis.redis, redis.prefix, { owner: 'Other: Co', day, limit: 10 })).toMatchObject({
      searches: 1,
      zeroResults: 1,
      topQueries: [{ query: 'vetiver', count: 1 }],
      zeroResultQueries: [{ query: 'vetiver', count: 1 }],
    });
    expect((await readSearchReport(redis.redis, redis.prefix, { owner: 'Acme Perfumery', day: '2026-03-11', limit: 10 })).searches).toBe(1);
    expect(await listSearchOwners(redis.redis, redis.prefix, day)).toEqual(['Acme Perfumery', 'Other: Co']);
    // `limit` bounds every list.
    expect((await readSearchReport(redis.redis, redis.prefix, { owner: 'Acme Perfumery', day, limit: 1 })).topQueries).toEqual([
      { query: 'rose oud', count: 3 },
    ]);
    // A day nobody searched reads as zeros.
    expect(await readSearchReport(redis.redis, redis.prefix, { owner: 'Acme Perfumery', day: '2026-01-01', limit: 5 })).toMatchObject({
      searches: 0,
      topQueries: [],
    });
  });

  it('cuts long texts, skips texts of punctuation alone, and sets a TTL on every key', async () => {
    const record = createSearchRecorder({ redis: redis.redis, prefix: redis.prefix });
    const day = '2026-03-12';
    const long = `${'Ambre '.repeat(60)}Nuit`;
    expect(await record({ owner: 'long', day, query: long, ...found() })).toBe(true);
    expect(await record({ owner: 'long', day, query: ' ?! ', ...found() })).toBe(false);
    const { topQueries, searches } = await readSearchReport(redis.redis, redis.prefix, { owner: 'long', day, limit: 5 });
    expect(searches).toBe(1);
    expect(topQueries).toHaveLength(1);
    expect(Array.from(topQueries[0]!.query).length).toBeLessThanOrEqual(SEARCH_QUERY_MAX_CHARS);
    expect(topQueries[0]!.query.startsWith('ambre ambre')).toBe(true);
    const keys = searchAnalyticsKeys(redis.prefix);
    for (const key of [keys.owners(day), keys.totals(day, 'long'), keys.top(day, 'long')]) {
      const ttl = await redis.redis.ttl(key);
      expect(ttl, key).toBeGreaterThan(SEARCH_ANALYTICS_TTL_SECONDS - 60);
      expect(ttl, key).toBeLessThanOrEqual(SEARCH_ANALYTICS_TTL_SECONDS);
    }
  });

  it('never holds more than the cap, and keeps the most frequent texts with their counts', async () => {
    const cap = 20;
    const keep = 10;
    const record = createSearchRecorder({ redis: redis.redis, prefix: redis.prefix, cap, keep });
    const day = '2026-03-13';
    const keys = searchAnalyticsKeys(redis.prefix);
    const popular = ['sauvage', 'bleu de chanel', 'aventus', 'baccarat rouge 540', 'light blue'];
    for (let round = 0; round < 3; round++) for (const query of popular) await record({ owner: 'busy', day, query, ...found(0) });
    let largest = 0;
    for (let i = 0; i < 200; i++) {
      await record({ owner: 'busy', day, query: `rare query ${i}`, ...found(0, true) });
      for (const key of [keys.top(day, 'busy'), keys.zeroResults(day, 'busy'), keys.relaxed(day, 'busy')]) {
        largest = Math.max(largest, await redis.redis.zcard(key));
      }
    }
    for (const query of popular) await record({ owner: 'busy', day, query, ...found(0) });
    expect(largest).toBe(cap);
    const report = await readSearchReport(redis.redis, redis.prefix, { owner: 'busy', day, limit: 100 });
    // The totals are exact whatever was trimmed.
    expect([report.searches, report.zeroResults, report.relaxed]).toEqual([220, 220, 200]);
    expect(report.topQueries.length).toBeLessThanOrEqual(cap);
    expect(report.topQueries.slice(0, popular.length)).toEqual([...popular].sort().map((query) => ({ query, count: 4 })));
    expect(report.zeroResultQueries.slice(0, popular.length).map((q) => q.count)).toEqual([4, 4, 4, 4, 4]);
    expect(report.relaxedQueries.length).toBeLessThanOrEqual(cap);
  });

  it('holds the default cap with more distinct texts than it allows', async () => {
    expect(SEARCH_ANALYTICS_KEEP).toBeGreaterThanOrEqual(SEARCH_USAGE_MAX_LIMIT);
    expect(SEARCH_ANALYTICS_CAP).toBeGreaterThan(SEARCH_ANALYTICS_KEEP);
    const record = createSearchRecorder({ redis: redis.redis, prefix: redis.prefix });
    const day = '2026-03-14';
    await Promise.all(
      Array.from({ length: SEARCH_ANALYTICS_CAP + 100 }, (_, i) => record({ owner: 'many', day, query: `query ${i}`, ...found() })),
    );
    const size = await redis.redis.zcard(searchAnalyticsKeys(redis.prefix).top(day, 'many'));
    expect(size).toBeGreaterThan(0);
    expect(size).toBeLessThanOrEqual(SEARCH_ANALYTICS_CAP);
    expect((await readSearchReport(redis.redis, redis.prefix, { owner: 'many', day, limit: 1 })).searches).toBe(SEARCH_ANALYTICS_CAP + 100);
  });

  it('refuses bounds that cannot hold', () => {
    expect(() => createSearchRecorder({ redis: redis.redis, prefix: redis.prefix, cap: 5, keep: 6 })).toThrow(RangeError);
    expect(() => createSearchRecorder({ redis: redis.redis, prefix: redis.prefix, keep: 0 })).toThrow(RangeError);
  });
});
