import { describe, expect } from 'vitest';
import { EDGE_REQUEST_ID_HEADER } from './api-key-auth.ts';
import { bearer, captureLogs } from './testing/app.ts';
import { ownRedisTest } from './testing/own-redis.ts';

const today = () => new Date().toISOString().slice(0, 10);

const it = ownRedisTest.extend(
  'gatewayOptions',
  { scope: 'file' },
  { env: { TRUST_EDGE_REQUEST_ID: 'true', REDIS_COMMAND_TIMEOUT_MS: '500' } },
);

// Redis answers before its replica (or its AOF, synced every second) has a write: a server that
// takes over can lack the last requests the gateway answered 200. The loss is made real here:
// the file's own redis-server stops appending to its AOF, admits requests, is SIGKILLed and
// starts again from the AOF, as a new process (a new run_id), as a promoted replica would be.
describe('billing across a change of Redis server (own redis-server)', () => {
  it('counts every request answered 200 once the gateway reaches the server that lacks some', async ({ redis, keys, startGateway }) => {
    const { logger, lines } = captureLogs();
    const gateway = await startGateway({ logger });
    const { apiKey, record } = await keys.create({ owner: 'failover', quota: 1_000 });
    const used = async () => Number((await redis.redis.get(`${redis.prefix}usage:${record.id}:${today()}`)) ?? 0);
    // Every other request comes without an edge request id (straight to the gateway): the
    // gateway admits it under an id of its own, so its admission is replayed too.
    let sent = 0;
    const get = async () => {
      sent += 1;
      const res = await fetch(`${gateway.url}/v1/fragrances?query=rose`, {
        headers: { ...bearer(apiKey), ...(sent % 2 === 0 ? { [EDGE_REQUEST_ID_HEADER]: `edge-${sent}` } : {}) },
      });
      await res.arrayBuffer();
      return res.status;
    };
    expect(await get()).toBe(200);

    // From here on the server keeps its writes in memory only: they die with it.
    await redis.redis.config('SET', 'appendonly', 'no');
    const answered = [await get(), await get(), await get(), await get()];
    expect(answered).toEqual([200, 200, 200, 200]);
    expect(await used()).toBe(5);
    process.kill(await redis.pid(), 'SIGKILL');
    await redis.start();

    // The gateway reconnects, sees another server and replays what it may lack: every 200 counted once.
    await expect.poll(used, { timeout: 10_000 }).toBe(5);
    expect(await get()).toBe(200);
    expect(await used()).toBe(6);
    const replays = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.msg === 'Redis changed server: replayed the recent admissions it may lack');
    expect(replays).toEqual([expect.objectContaining({ counted: 4, alreadyCounted: 1, failed: 0 })]);
  });
});
