import { z } from 'zod';

/**
 * Reusable pieces of service config schemas, so every service (and the ops CLI) spells a port,
 * URL, key prefix, alias, time zone or duration the same way and refuses the same bad values.
 * Error messages never repeat the value: config errors are printed at start-up.
 */
export const port = (fallback: number) => z.coerce.number().int().min(1).max(65535).default(fallback);

export const httpUrl = () => z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).transform((u) => u.replace(/\/+$/, ''));

export const redisUrl = () => z.url({ protocol: /^rediss?$/, error: 'must be a redis:// URL' });

export const host = (fallback = '127.0.0.1') => z.string().min(1).default(fallback);

export const logLevel = () => z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info');

/** Longest timer Node runs as asked: a larger setTimeout delay fires after 1 ms instead. */
const MAX_TIMER_MS = 2_147_483_647;

/** A whole number of `unit`, at least `min` and at most `max`, each bound with its own message. */
const wholeNumberOf = (unit: string, min: readonly [number, string], max?: readonly [number, string]) => {
  const whole = z.coerce
    .number({ error: `must be a whole number of ${unit}` })
    .int({ error: `must be a whole number of ${unit}` })
    .min(min[0], { error: min[1] });
  return max ? whole.max(max[0], { error: max[1] }) : whole;
};

/** Positive whole milliseconds (timeouts, intervals), at most what a Node timer can wait. */
export const millis = (fallback: number) =>
  wholeNumberOf('milliseconds', [1, 'must be at least 1 ms'], [MAX_TIMER_MS, `must be at most ${MAX_TIMER_MS} ms`]).default(fallback);

/** Bytes an in-process cache may hold (0 turns it off), at most 4 GiB. */
export const cacheBytes = (fallback: number) =>
  wholeNumberOf('bytes', [0, 'must be at least 0 (0 turns the cache off)'], [4 * 1024 * 1024 * 1024, 'must be at most 4 GiB']).default(
    fallback,
  );

/** Positive whole seconds (lifetimes, TTLs, windows). */
export const seconds = (fallback: number) => wholeNumberOf('seconds', [1, 'must be at least 1 second']).default(fallback);

export const booleanFlag = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0'], { error: 'must be true, false, 1 or 0' })
    .default(fallback ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1');

export const DEFAULT_REDIS_PREFIX = 'fcs:';

/**
 * Prefix of every Redis key a process reads and writes (REDIS_PREFIX; JOBS_PREFIX for BullMQ).
 * Services sharing data must use the same one (auth writes revoked:*, mcp reads it).
 */
export const redisPrefix = (fallback = DEFAULT_REDIS_PREFIX) =>
  z
    .string()
    .min(1, { error: 'must not be empty' })
    .max(64, { error: 'must be at most 64 characters' })
    .regex(/^[!-~]+$/, { error: 'must be printable ASCII without spaces' })
    .default(fallback);

/** An Elasticsearch alias name the catalogue, the worker and `ops catalogue ingest` agree on. */
export const catalogueAlias = (fallback = 'fragrances') =>
  z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]{0,100}$/, { error: 'must be a lower-case index alias name (a-z, 0-9, _ and -)' })
    .default(fallback);

/**
 * True for an IANA zone name (or UTC) this runtime's Intl knows. Offsets such as `+10:00`, which
 * newer runtimes also accept, are refused: they have no daylight-saving rules and BullMQ's cron
 * parser does not take them.
 */
export function isValidTimeZone(name: string): boolean {
  if (!/^[A-Za-z]/.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** An IANA time zone (QUOTA_TIMEZONE, ENRICH_TIMEZONE). */
export const timeZone = (fallback: string) =>
  z.string().refine(isValidTimeZone, { error: 'must be an IANA time zone such as UTC or Australia/Sydney' }).default(fallback);

/** One Sentinel address as ioredis takes it. */
export interface SentinelAddress {
  host: string;
  port: number;
}

const SENTINEL_LIST = /^[^\s,:]+:\d{1,5}(,[^\s,:]+:\d{1,5})*$/;

/** REDIS_SENTINELS: `host:port,host:port,...`; unset (or empty) means connect to REDIS_URL directly. */
export const redisSentinels = () =>
  z
    .string()
    .trim()
    .optional()
    .transform((v) => (v === undefined || v === '' ? undefined : v))
    .refine((v) => v === undefined || SENTINEL_LIST.test(v), { error: 'must be host:port[,host:port...]' })
    .transform((v): SentinelAddress[] | undefined =>
      v?.split(',').map((address) => {
        const [sentinelHost = '', sentinelPort = ''] = address.split(':');
        return { host: sentinelHost, port: Number(sentinelPort) };
      }),
    )
    .refine((list) => list === undefined || list.every((s) => s.port >= 1 && s.port <= 65535), { error: 'ports must be 1-65535' });

/**
 * How a process reaches Redis, the same fields in every schema that opens Redis. With
 * REDIS_SENTINELS set, the primary is asked of those Sentinels under REDIS_SENTINEL_NAME (and
 * followed through failovers); REDIS_URL then gives only the credentials and database of the data
 * nodes, its host is not used. Without it, REDIS_URL is the one server.
 */
export const redisConnectionFields = () => ({
  REDIS_URL: redisUrl().default('redis://127.0.0.1:6379'),
  REDIS_SENTINELS: redisSentinels(),
  /** The name the Sentinels monitor the primary under (`sentinel monitor <name> ...`). */
  REDIS_SENTINEL_NAME: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/, { error: 'must be 1-64 letters, digits, ".", "_" or "-"' })
    .default('fcs-redis'),
  /** Password of the Sentinels themselves (`requirepass` in sentinel.conf), when they have one. */
  REDIS_SENTINEL_PASSWORD: z.string().min(1, { error: 'must not be empty when set' }).optional(),
});

/** SHUTDOWN_TIMEOUT_MS of an HTTP service: longest a drain on SIGTERM may take before open connections are cut. */
export const shutdownTimeout = (fallback = 10_000) => millis(fallback);

/**
 * Metrics and tracing settings every service shares (docs/observability.md): the /metrics port
 * (loopback by default, never behind the edge), a switch to turn metrics off, and the OTLP
 * collector spans go to (none by default: nothing is exported). Spread into a service's schema.
 */
export const observabilityFields = (metricsPort: number) => ({
  METRICS_ENABLED: booleanFlag(true),
  METRICS_HOST: host(),
  /** 0 binds any free port (tests start several instances side by side); the bound port is logged. */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(metricsPort),
  OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl().optional(),
});
