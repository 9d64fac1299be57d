import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testRedis, type TestRedis } from '@fragrance/testkit';
import { onPrimaryChange } from './primary-change.ts';

// The change of server itself (a restart, a new run_id) is proven where it matters, against a
// redis-server of the test's own: services/gateway/src/failover-replay.test.ts.
describe('onPrimaryChange (real Redis)', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await testRedis('primary-change');
  });
  afterAll(() => redis.cleanup());

  it('stays quiet when the connection comes back to the same server', async () => {
    const connection = redis.connect();
    await connection.ping();
    let changes = 0;
    const stop = onPrimaryChange(connection, () => (changes += 1));
    for (let i = 0; i < 3; i++) {
      const id = await connection.client('ID');
      const ready = once(connection, 'ready');
      await redis.redis.client('KILL', 'ID', String(id));
      await ready;
      await connection.ping();
    }
    expect(changes).toBe(0);
    stop();
  });
});
