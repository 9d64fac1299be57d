import type { Redis } from 'ioredis';

/** The part of a pino logger the policy uses (a pino Logger fits). */
export interface RedisLogger {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/** For one-shot commands that report a failure themselves (waitForRedis's error names it). */
export const quietRedisLogger: RedisLogger = { warn: () => undefined, info: () => undefined };

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/**
 * True for an error that only says the connection to Redis failed or dropped. Libraries that
 * open more connections from ours (BullMQ duplicates it for blocking commands, and its Worker and
 * Queue re-emit every connection error) can skip these: the client from createRedisClient already
 * reports the outage once.
 */
export function isRedisConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { code } = error as Error & { code?: unknown };
  return (typeof code === 'string' && CONNECTION_CODES.has(code)) || error.message === 'Connection is closed.';
}

/**
 * True for an error that says Redis cannot answer now: the connection failed or dropped, a
 * command got no reply within the client's `commandTimeout` (a paused or failing-over primary),
 * or the client gave up retrying. A request that meets one should answer 503 (try again), not 500.
 */
export function isRedisUnavailableError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return isRedisConnectionError(error) || error.message === 'Command timed out' || error.name === 'MaxRetriesPerRequestError';
}

/** `host:port` (or the socket path) of a client, never its credentials: safe in logs and errors. */
export function redisAddress(redis: Redis): string {
  const { host, port, path, sentinels, name } = redis.options;
  if (sentinels?.length)
    return `primary "${name ?? ''}" via Sentinels ${sentinels.map((s) => `${s.host ?? '127.0.0.1'}:${s.port ?? 26379}`).join(',')}`;
  return path !== undefined && path !== '' ? path : `${host ?? '127.0.0.1'}:${port ?? 6379}`;
}

/**
 * The one error-logging policy of every connection the project opens. An outage is logged
 * twice: its first error (warn: "redis unavailable", with the cause) and the recovery (info:
 * "redis is back", with how long it lasted and how many further errors went unlogged). The
 * reconnect attempts in between, one every 100 ms to 2 s, are only counted. A second outage is
 * logged again. Listening also keeps ioredis from printing "[ioredis] Unhandled error event" to
 * stderr itself, which it does for every error of a client nobody listens to.
 */
export function reportOutages(redis: Redis, logger: RedisLogger, role: string): void {
  let downSince: number | undefined;
  let unlogged = 0;
  redis.on('error', (error: Error & { code?: string }) => {
    if (downSince !== undefined) {
      unlogged += 1;
      return;
    }
    downSince = Date.now();
    unlogged = 0;
    const err = { message: error.message, ...(error.code ? { code: error.code } : {}) };
    logger.warn({ role, redis: redisAddress(redis), err }, 'redis unavailable');
  });
  redis.on('ready', () => {
    if (downSince === undefined) return;
    logger.info({ role, redis: redisAddress(redis), down_ms: Date.now() - downSince, errors_not_logged: unlogged }, 'redis is back');
    downSince = undefined;
  });
}
