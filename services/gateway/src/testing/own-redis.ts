// A redis-server of the test file's own, for tests that pause, stop or freeze Redis: never the
// shared test Redis, which every other test file uses at the same time.
import { rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { RedisOptions } from 'ioredis';
import { createLogger } from '@fragrance/http';
import { createRedisClient, waitForRedis } from '@fragrance/redis';
import { freePort, startLocalRedis, stopLocalRedis, uniquePrefix, type TestRedis } from '@fragrance/testkit';
import { gatewayTest } from './app.ts';

export interface OwnRedis extends TestRedis {
  /** SHUTDOWN of the server (the gateway sees Redis go away). */
  stop: () => Promise<void>;
  /** Starts it again on the same port, with the data it had. */
  start: () => Promise<void>;
  /** The running server's process id (to SIGSTOP it). */
  pid: () => Promise<number>;
}

/**
 * Starts a redis-server (infra/redis.sh) on a free port. `redis` is a connection that waits out
 * an outage (commands queue until the server is back) and ignores its errors, so a test can
 * stop the server under it; `cleanup` stops the server and removes its data.
 */
export async function startOwnRedis(label: string): Promise<OwnRedis> {
  const port = await freePort();
  const name = `${label}-${port}`;
  const url = await startLocalRedis({ name, port });
  const redis = createRedisClient({ REDIS_URL: url }, createLogger('own-redis', 'silent'), 'queue');
  const connections = [redis];
  const connect = (options: RedisOptions = {}) => {
    const connection = redis.duplicate(options);
    connection.on('error', () => undefined);
    connections.push(connection);
    return connection;
  };
  redis.on('error', () => undefined); // the test stops this Redis on purpose
  await waitForRedis(redis);
  // Where infra/redis.sh keeps it: <local dir>/redis/<name>, its lock file beside.
  const [, dir] = (await redis.config('GET', 'dir')) as [string, string];
  if (!dir.endsWith(`/redis/${name}`)) throw new Error(`redis-server ${name} keeps its data in ${dir}, not under redis/${name}`);
  const server = { name, port };
  return {
    url,
    prefix: uniquePrefix(label).replace(/-$/, ':'),
    redis,
    connect,
    pid: async () => Number(/process_id:(\d+)/.exec(await redis.info('server'))?.[1]),
    stop: () => stopLocalRedis(server),
    start: async () => {
      await startLocalRedis(server);
    },
    cleanup: async () => {
      for (const connection of connections) connection.disconnect();
      await stopLocalRedis(server);
      rmSync(dir, { recursive: true, force: true });
      rmSync(join(dirname(dir), `.${basename(dir)}.lock`), { force: true });
    },
  };
}

/** gatewayTest with `redis` (and so `keys` and every gateway) on a redis-server of the file's own. */
export const ownRedisTest = gatewayTest.extend(
  'redis',
  { scope: 'file' },
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from this pattern
  async ({}, { onCleanup }): Promise<OwnRedis> => {
    const redis = await startOwnRedis('gateway-own');
    onCleanup(() => redis.cleanup());
    return redis;
  },
);
