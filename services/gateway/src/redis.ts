import { Redis } from 'ioredis';
import type { Logger } from '@fragrance/http';

/**
 * A client that fails fast while Redis is away (no offline queue, short command timeout), so
 * data requests get a 503 in well under a second, and reconnects on its own within a second.
 */
export function createRedis(url: string, commandTimeoutMs: number, logger: Logger): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 1_000,
    commandTimeout: commandTimeoutMs,
    // Many requests in one tick share one write to Redis.
    enableAutoPipelining: true,
    retryStrategy: (attempt) => Math.min(100 * attempt, 1_000),
  });
  let down = false;
  redis.on('error', (err: Error) => {
    if (!down) logger.warn({ err: { message: err.message } }, 'redis unavailable; data requests fail closed until it returns');
    down = true;
  });
  redis.on('ready', () => {
    if (down) logger.info('redis is back');
    down = false;
  });
  return redis;
}
