import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRedis, type TestRedis } from '@fragrance/testkit';
import { createAdmitter, createRefunder, type QuotaState } from './admission.ts';
import { createKeyStore, type KeyStore } from './key-store.ts';
import { redisKeys } from './keys.ts';
import { createRecentAdmissions } from './recent-admissions.ts';

// A new primary (a promoted replica, a restart from an AOF synced every second) may lack the last
// writes the old one acknowledged. Here the loss is made by hand, on the real test Redis: the
// usage counter set back and the requests' marks deleted, as a replica that never got them has.
describe('recent admissions replayed into a new primary (real Redis)', () => {
  let redis: TestRedis;
  let store: KeyStore;
  beforeAll(async () => {
    redis = await testRedis('recent');
    store = createKeyStore({ redis: redis.redis, prefix: redis.prefix });
  });
  afterAll(() => redis.cleanup());

  const setUp = async (owner: string, windowMs = 10_000) => {
    let now = Date.now();
    const clock = () => now;
    const recent = createRecentAdmissions({ redis: redis.redis, prefix: redis.prefix, windowMs, clock });
    const admit = createAdmitter({
      redis: redis.redis,
      prefix: redis.prefix,
      timeZone: 'UTC',
      bucketDefaults: { capacity: 100, refillPerSecond: 100 },
      hostClock: clock,
      recent,
    });
    const refund = createRefunder({ redis: redis.redis, prefix: redis.prefix, recent });
    const { apiKey, record } = await store.create({ owner, quota: 1_000 });
    const keys = redisKeys(redis.prefix);
    const used = () => store.usedToday(record.id, 'UTC');
    /** The new primary lacks these admissions (and whatever came after them). */
    const lose = async (ids: string[]) => {
      await redis.redis.decrby(keys.usage(record.id, new Date(now).toISOString().slice(0, 10)), ids.length);
      await redis.redis.del(...ids.map((id) => keys.admitted(record.id, id)));
    };
    const admitted = async (id: string): Promise<QuotaState> => {
      const admission = await admit(apiKey, 'admit', 1, id);
      if (admission.outcome !== 'admitted') throw new Error(`not admitted: ${admission.outcome}`);
      return admission.quota;
    };
    return { recent, admit, refund, apiKey, used, lose, admitted, advance: (ms: number) => (now += ms) };
  };

  it('counts the admissions the new primary lacks, once, and no other', async () => {
    const { recent, used, lose, admitted } = await setUp('lost');
    for (let i = 0; i < 5; i++) await admitted(`edge-${i}`);
    expect(await used()).toBe(5);
    await lose(['edge-3', 'edge-4']);
    expect(await used()).toBe(3);

    expect(await recent.replay()).toEqual({ counted: 2, alreadyCounted: 3, refunds: 0, skipped: 0, failed: 0 });
    expect(await used()).toBe(5);
    // Another change of primary soon after: nothing counted twice.
    expect(await recent.replay()).toMatchObject({ counted: 0, alreadyCounted: 5 });
    expect(await used()).toBe(5);
  });

  it('keeps only admissions under an id, and not an edge retry of one (it was counted once)', async () => {
    const { recent, admit, apiKey, admitted } = await setUp('ids');
    await admitted('edge-a');
    await admitted('edge-a');
    await admit(apiKey, 'admit');
    await admit(apiKey, 'peek', 1, 'edge-b');
    expect(recent.size()).toBe(1);
  });

  it('never counts a refunded request, and gives back a refund the new primary lacks', async () => {
    const { recent, refund, used, lose, admitted } = await setUp('refunds');
    const kept = await admitted('edge-kept');
    const failed = await admitted('edge-failed');
    await refund(failed);
    expect(await used()).toBe(1);

    // Both writes of the failed request lost with the old primary: it stays uncounted.
    await lose(['edge-kept']);
    expect(await recent.replay()).toEqual({ counted: 1, alreadyCounted: 0, refunds: 1, skipped: 0, failed: 0 });
    expect(await used()).toBe(1);

    // The admission reached the new primary, its refund did not: the refund runs again, once.
    const again = await admitted('edge-again');
    await refund(again);
    expect(await used()).toBe(1);
    await redis.redis.incr(`${redis.prefix}usage:${kept.keyId}:${kept.day}`);
    await redis.redis.set(
      `${redis.prefix}admitted:${kept.keyId}:edge-again`,
      `${again.admission!.attempt} ${redis.prefix}usage:${kept.keyId}:${kept.day}`,
    );
    expect(await used()).toBe(2);
    expect(await recent.replay()).toMatchObject({ counted: 0, refunds: 2 });
    expect(await used()).toBe(1);
    expect(await recent.replay()).toMatchObject({ counted: 0, refunds: 2 });
    expect(await used()).toBe(1);
  });

  it('forgets admissions older than its window, and never replays one whose mark may have expired', async () => {
    const { recent, used, lose, admitted, advance } = await setUp('window', 1_000);
    await admitted('edge-old');
    advance(1_500);
    await admitted('edge-new');
    expect(recent.size()).toBe(1);

    // The new primary answered only long after (an outage of minutes): the kept one is not replayed.
    await lose(['edge-new']);
    advance(200_000);
    expect(await recent.replay()).toEqual({ counted: 0, alreadyCounted: 0, refunds: 0, skipped: 1, failed: 0 });
    expect(await used()).toBe(1);
  });

  it('refuses a window longer than an admission mark lives', () => {
    expect(() => createRecentAdmissions({ redis: redis.redis, prefix: redis.prefix, windowMs: 180_000 })).toThrow(RangeError);
  });
});
