import { Redis, SentinelConnector, type RedisOptions, type SentinelConnectionOptions } from 'ioredis';
import { redisAddress, reportOutages, type RedisLogger } from './outages.ts';

/**
 * What a connection is for; each role is one option set, chosen once for the whole project.
 *
 * - `request-path`: serves HTTP requests (gateway, auth, mcp). Fails fast instead of waiting:
 *   no offline queue (a command while disconnected rejects at once, so the request gets a 503),
 *   no resend after a dropped connection (a quota or rate-limit script is never run twice), every
 *   reply bounded by REDIS_COMMAND_TIMEOUT_MS, reconnects within a second, auto-pipelining.
 * - `queue`: BullMQ (the worker). BullMQ needs `maxRetriesPerRequest: null` for its blocking
 *   commands, and no command timeout; commands wait for a reconnect instead of failing.
 * - `command`: one operator command (ops CLI, scripts). Connects only when asked
 *   ({@link waitForRedis}), one attempt, no reconnects: a down Redis fails the command at once.
 */
export type RedisRole = 'request-path' | 'queue' | 'command';

/** The variables a role needs, as every config schema names them. */
export interface RedisClientConfig {
  /** The server; with REDIS_SENTINELS, only its credentials and database are used. */
  REDIS_URL: string;
  /** Sentinels to ask for the current primary (REDIS_SENTINELS); unset: REDIS_URL is the server. */
  REDIS_SENTINELS?: readonly { host: string; port: number }[] | undefined;
  /** The name the Sentinels monitor the primary under (REDIS_SENTINEL_NAME). */
  REDIS_SENTINEL_NAME?: string | undefined;
  /** Password of the Sentinels themselves (REDIS_SENTINEL_PASSWORD). */
  REDIS_SENTINEL_PASSWORD?: string | undefined;
  /** Longest wait for one reply; required by (and used only by) `request-path`. */
  REDIS_COMMAND_TIMEOUT_MS?: number;
}

type ConfigFor<R extends RedisRole> = R extends 'request-path'
  ? RedisClientConfig & { REDIS_COMMAND_TIMEOUT_MS: number }
  : RedisClientConfig;

/** ioredis options of a role (exported for tests and for reading; use createRedisClient). */
export function redisOptions(role: RedisRole, config: RedisClientConfig): RedisOptions {
  switch (role) {
    case 'request-path':
      if (config.REDIS_COMMAND_TIMEOUT_MS === undefined) throw new TypeError('the request-path role needs REDIS_COMMAND_TIMEOUT_MS');
      return {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        connectTimeout: 1_000,
        commandTimeout: config.REDIS_COMMAND_TIMEOUT_MS,
        // Many requests in one tick share one write to Redis.
        enableAutoPipelining: true,
        retryStrategy: (attempt) => Math.min(100 * attempt, 1_000),
      };
    case 'queue':
      return {
        maxRetriesPerRequest: null,
        connectTimeout: 10_000,
        retryStrategy: (attempt) => Math.min(50 * attempt, 2_000),
      };
    case 'command':
      return {
        lazyConnect: true,
        maxRetriesPerRequest: 1,
        connectTimeout: 3_000,
        retryStrategy: () => null,
      };
  }
}

/**
 * ioredis's Sentinel connector, with the failover detector of a dropped connection stopped as
 * soon as the client starts to reconnect. ioredis keeps it listening until the next connection
 * is up; when Sentinel's +switch-master arrives while that reconnect is still asking a Sentinel
 * for the primary, the old detector aborts the reconnect and ioredis ends the client for good
 * (status `end`, no further attempt: an instance that never reaches Redis again). The reconnect
 * finds the new primary by itself, and the next connection starts a detector of its own.
 * `duplicate()` copies the option, so BullMQ's extra connections get it too.
 */
class FailoverSafeSentinelConnector extends SentinelConnector {
  // ioredis constructs a custom connector with the client's options, typed `unknown` there.
  constructor(options: unknown) {
    super(options as SentinelConnectionOptions);
  }

  override connect(eventEmitter: Parameters<SentinelConnector['connect']>[0]): ReturnType<SentinelConnector['connect']> {
    // `failoverDetector` is private in ioredis's types; the field exists on every instance.
    const connector = this as unknown as { failoverDetector: { cleanup(): void } | null };
    connector.failoverDetector?.cleanup();
    connector.failoverDetector = null;
    return super.connect(eventEmitter);
  }
}

/** Default of REDIS_SENTINEL_NAME (packages/config's field has the same). */
export const DEFAULT_SENTINEL_NAME = 'fcs-redis';

/**
 * Where to connect when REDIS_SENTINELS is set: the Sentinels, the monitored name, and the data
 * nodes' credentials, database and TLS taken from REDIS_URL. ioredis asks the Sentinels for the
 * primary on every (re)connect, checks the node it reaches is a primary, and with
 * `failoverDetector` drops its connection as soon as the Sentinels announce a new one, so a
 * failover costs one reconnect. Undefined when no Sentinel is configured.
 */
export function sentinelOptions(role: RedisRole, config: RedisClientConfig): RedisOptions | undefined {
  if (!config.REDIS_SENTINELS?.length) return undefined;
  const url = new URL(config.REDIS_URL);
  const db = Number(url.pathname.slice(1) || '0');
  const tls = url.protocol === 'rediss:';
  return {
    sentinels: config.REDIS_SENTINELS.map(({ host, port }) => ({ host, port })),
    name: config.REDIS_SENTINEL_NAME ?? DEFAULT_SENTINEL_NAME,
    ...(config.REDIS_SENTINEL_PASSWORD ? { sentinelPassword: config.REDIS_SENTINEL_PASSWORD } : {}),
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
    ...(Number.isInteger(db) && db > 0 ? { db } : {}),
    ...(tls ? { tls: {}, enableTLSForSentinelMode: true } : {}),
    Connector: FailoverSafeSentinelConnector,
    failoverDetector: true,
    // A Sentinel that accepts the connection but does not answer (paused, overloaded) is skipped
    // for the next one instead of holding the reconnect forever.
    sentinelCommandTimeout: role === 'request-path' ? 1_000 : 3_000,
    // While no Sentinel answers: a command gives up at once, services keep asking.
    sentinelRetryStrategy: role === 'command' ? () => null : (attempt) => Math.min(100 * attempt, 1_000),
  };
}

/**
 * The one way the project opens Redis: the role's options, through the Sentinels when
 * REDIS_SENTINELS is set, and the outage logging policy (the first error of an outage and the
 * recovery are logged, not every reconnect attempt).
 */
export function createRedisClient<R extends RedisRole>(config: ConfigFor<R>, logger: RedisLogger, role: R): Redis {
  const viaSentinels = sentinelOptions(role, config);
  const redis = viaSentinels
    ? new Redis({ ...viaSentinels, ...redisOptions(role, config) })
    : new Redis(config.REDIS_URL, redisOptions(role, config));
  reportOutages(redis, logger, role);
  return redis;
}

/**
 * Resolves once the client is ready, connecting it first when it is lazy (`command`) or ended. Rejects
 * with "cannot reach Redis at host:port: <last error>" when it gives up (a `command` client's one
 * attempt failed) or after `timeoutMs`; the client keeps reconnecting in that case unless closed.
 */
export function waitForRedis(redis: Redis, { timeoutMs = 10_000 }: { timeoutMs?: number } = {}): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    let lastError: Error | undefined;
    const onError = (error: Error) => void (lastError = error);
    const fail = (fallback: string) => {
      cleanup();
      const reason = lastError?.message ?? fallback;
      reject(new Error(`cannot reach Redis at ${redisAddress(redis)}: ${reason}`, { cause: lastError }));
    };
    const onEnd = () => fail('connection closed');
    const onReady = () => {
      cleanup();
      resolve();
    };
    const timer = setTimeout(() => fail(`not ready within ${timeoutMs} ms`), timeoutMs);
    function cleanup() {
      clearTimeout(timer);
      redis.off('error', onError).off('ready', onReady).off('end', onEnd);
    }
    redis.on('error', onError).on('ready', onReady).on('end', onEnd);
    // A lazy client, or one that gave up before, connects (again) here; how that goes arrives as
    // 'ready', 'error' or 'end' above.
    if (redis.status === 'wait' || redis.status === 'end') redis.connect().catch(() => undefined);
  });
}
