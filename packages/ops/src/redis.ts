import type { Redis } from 'ioredis';
import { createRedisClient, quietRedisLogger, waitForRedis, type RedisClientConfig } from '@fragrance/redis';

/**
 * Opens Redis for one command and always closes it: the `command` role (one connection attempt,
 * no reconnects), so a Redis that is down fails the command at once with
 * "cannot reach Redis at host:port: …" (never the password). Every ops command that needs Redis
 * goes through here; what it builds on the connection (stores, a BullMQ queue) it closes itself.
 */
export async function withRedis<T>(config: RedisClientConfig, use: (redis: Redis) => Promise<T>): Promise<T> {
  // The failure is reported once, by the error below, rather than also logged.
  const redis = createRedisClient(config, quietRedisLogger, 'command');
  try {
    await waitForRedis(redis);
    return await use(redis);
  } finally {
    redis.disconnect();
  }
}
