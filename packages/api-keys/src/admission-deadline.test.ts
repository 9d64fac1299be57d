import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRedis, type TestRedis } from '@fragrance/testkit';
import { AdmissionLateError, createAdmitter } from './admission.ts';
import { createKeyStore } from './key-store.ts';

// The deadline is on Redis's clock, learnt from each reply's `now`: a host clock far from Redis's
// neither refuses every request (host behind) nor keeps a late admission countable (host ahead).
describe('admission deadline (real Redis, commands with a timeout)', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await testRedis('deadline');
  });
  afterAll(() => redis.cleanup());

  for (const skewMs of [-10_000, 10_000]) {
    it(`admits every request on time with the host clock ${skewMs > 0 ? 'ahead of' : 'behind'} Redis's by ${Math.abs(skewMs)} ms`, async () => {
      const connection = redis.connect({ commandTimeout: 300 });
      const store = createKeyStore({ redis: connection, prefix: redis.prefix });
      const { apiKey, record } = await store.create({ owner: `skew${skewMs}`, quota: 100 });
      const admit = createAdmitter({
        redis: connection,
        prefix: redis.prefix,
        timeZone: 'UTC',
        bucketDefaults: { capacity: 100, refillPerSecond: 100 },
        hostClock: () => Date.now() + skewMs,
      });
      for (let i = 0; i < 5; i++) expect((await admit(apiKey, 'admit')).outcome).toBe('admitted');
      expect(await store.usedToday(record.id, 'UTC')).toBe(5);
    });
  }

  it('counts nothing for an admission that runs past its deadline, and learns the clock from its reply', async () => {
    const connection = redis.connect({ commandTimeout: 300 });
    const store = createKeyStore({ redis: connection, prefix: redis.prefix });
    const { apiKey, record } = await store.create({ owner: 'late', quota: 100 });
    let skewMs = 0;
    const admit = createAdmitter({
      redis: connection,
      prefix: redis.prefix,
      timeZone: 'UTC',
      bucketDefaults: { capacity: 100, refillPerSecond: 100 },
      hostClock: () => Date.now() + skewMs,
    });
    expect((await admit(apiKey, 'admit')).outcome).toBe('admitted');
    // The host's clock steps back 10 s: its next deadline is already over when the script runs,
    // as it is for a command Redis runs long after it was sent (CLIENT PAUSE, see the gateway's test).
    skewMs = -10_000;
    await expect(admit(apiKey, 'admit')).rejects.toThrow(AdmissionLateError);
    expect(await store.usedToday(record.id, 'UTC')).toBe(1);
    // That reply told the new offset: on time again.
    expect((await admit(apiKey, 'admit')).outcome).toBe('admitted');
    expect(await store.usedToday(record.id, 'UTC')).toBe(2);
  });
});
