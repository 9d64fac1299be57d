import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { MAX_REPLAY_WINDOW_MS } from '@fragrance/api-keys';
import { DeprecationNotice } from '@fragrance/http';
import {
  DEV_PORTS,
  booleanFlag,
  cacheBytes,
  catalogueAlias,
  host,
  httpUrl,
  logLevel,
  millis,
  observabilityFields,
  parseConfig,
  port,
  redisConnectionFields,
  redisPrefix,
  shutdownTimeout,
  timeZone,
} from '@fragrance/config';

/** One entry of TRUST_PROXY as Express (proxy-addr) reads it: a named range, an address or a CIDR. */
function isProxyAddress(entry: string): boolean {
  if (['loopback', 'linklocal', 'uniquelocal'].includes(entry)) return true;
  if (ipaddr.isValid(entry)) return true;
  try {
    ipaddr.parseCIDR(entry);
    return true;
  } catch {
    return false;
  }
}

/** The data routes the gateway forwards to the catalogue (each its own route, so its own metrics template). */
export const CATALOGUE_ROUTES = [
  '/v1/fragrances',
  '/v1/fragrances/:id',
  '/v1/fragrances/:id/similar',
  // Discovery (docs/discovery.md): suggestions and the browse lists.
  '/v1/suggest',
  '/v1/brands',
  '/v1/brands/:slug',
  '/v1/notes',
  '/v1/accords',
  '/v1/perfumers',
] as const;

/** Public routes a deprecation can be announced on (the gateway's route templates). */
export const DEPRECATABLE_ROUTES = [...CATALOGUE_ROUTES, '/v1/fragrances/export', '/v1/me', '/v1/usage', '/v1/usage/searches'] as const;
export type DeprecatableRoute = (typeof DEPRECATABLE_ROUTES)[number];

/**
 * API_DEPRECATIONS: a JSON object from route template to its notice, e.g.
 * `{"/v1/brands":{"deprecation":"2027-01-01T00:00:00Z","sunset":"2027-07-01T00:00:00Z","link":"https://…"}}`.
 */
const deprecations = () =>
  z
    .string()
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be a JSON object from route to deprecation notice' });
        return z.NEVER;
      }
    })
    .pipe(
      z.partialRecord(
        z.enum(DEPRECATABLE_ROUTES, { error: `must name routes among ${DEPRECATABLE_ROUTES.join(', ')}` }),
        DeprecationNotice,
      ),
    )
    .default({});

/** Every variable the gateway reads; documented in docs/configuration.md. */
export const GatewayConfig = z.object({
  HOST: host(),
  PORT: port(DEV_PORTS.services.gateway.http),
  LOG_LEVEL: logLevel(),
  ...redisConnectionFields(),
  ...observabilityFields(DEV_PORTS.services.gateway.metrics),
  /** Prefix of every Redis key the gateway reads and writes (apikey:*, quota:*, usage:*). */
  REDIS_PREFIX: redisPrefix(),
  /** Longest wait for one Redis reply before a request fails closed with 503. */
  REDIS_COMMAND_TIMEOUT_MS: millis(500),
  CATALOGUE_SERVICE_URL: httpUrl().default(`http://127.0.0.1:${DEV_PORTS.services.catalogue.http}`),
  /** When unset, the OAuth routes are not mounted (and not health-checked). */
  AUTH_SERVICE_URL: httpUrl().optional(),
  /** {mcp_url}: the public origin auth and mcp are told they are served at (X-Forwarded-Proto/Host). */
  MCP_URL: httpUrl().default(`http://127.0.0.1:${DEV_PORTS.services.gateway.http}`),
  /** When unset, /mcp is not mounted (and not health-checked). */
  MCP_SERVICE_URL: httpUrl().optional(),
  UPSTREAM_TIMEOUT_MS: millis(10_000),
  HEALTH_TIMEOUT_MS: millis(1_000),
  SHUTDOWN_TIMEOUT_MS: shutdownTimeout(),
  /** Largest request body the edge forwards (OAuth forms, MCP messages); larger → 413. */
  MAX_REQUEST_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1_024)
    .max(64 * 1024 * 1024)
    .default(1024 * 1024),
  /** IANA zone whose midnight resets every key's daily quota. */
  QUOTA_TIMEZONE: timeZone('UTC'),
  /** Token bucket of keys without their own burst settings: most requests at once… */
  BURST_CAPACITY: z.coerce.number().int().min(1).default(60),
  /** …and tokens added back per second (the sustained rate). */
  BURST_REFILL_PER_SECOND: z.coerce.number().positive().default(20),
  /** Publishable keys without their own settings: each visitor's (key + client address) bucket size… */
  VISITOR_BURST_CAPACITY: z.coerce.number().int().min(1).max(1_000_000).default(30),
  /** …its refill per second… */
  VISITOR_REFILL_PER_SECOND: z.coerce.number().positive().max(1_000_000).default(5),
  /** …and the largest `limit` a page may ask for. */
  PUBLISHABLE_MAX_LIMIT: z.coerce.number().int().min(1).max(100).default(50),
  /**
   * Express `trust proxy`: whose X-Forwarded-For names the client address (per-visitor limits of
   * publishable keys, a key's last use). `false` (default): the edge is the first hop and the
   * socket's peer is the client; behind a load balancer, its address (e.g. `loopback`, a CIDR list).
   */
  TRUST_PROXY: z
    .string()
    .min(1)
    .default('false')
    .refine((value) => value === 'false' || value.split(',').every((entry) => isProxyAddress(entry.trim())), {
      message:
        'must be false, or a comma-separated list of the proxies in front (loopback, linklocal, uniquelocal, an address or a CIDR); never true at the edge (any client could choose its address)',
    })
    .transform((value) => (value === 'false' ? false : value)),
  /**
   * Honour X-Edge-Request-Id, the load balancer's id of each client request (the same on each
   * retry it makes of one): admission counts an id once per key, so a request retried on another
   * instance after the first admitted it is not charged twice. Only behind an edge that sets the
   * header on every request, overwriting any client's value (a client-chosen id would make
   * repeats free); off by default.
   */
  TRUST_EDGE_REQUEST_ID: booleanFlag(false),
  /**
   * Bytes of catalogue answers the edge cache holds (bodies, headers, keys counted): search,
   * detail and similar answers are served here, still admitted and counted, without asking the
   * catalogue again while the catalogue's generation is unchanged. 0 turns it off.
   */
  EDGE_CACHE_MAX_BYTES: cacheBytes(32 * 1024 * 1024),
  /** The worker's and the catalogue's JOBS_PREFIX: the catalogue generation is read at `<prefix>:catalogue-generation:<alias>`. */
  JOBS_PREFIX: redisPrefix('fcs:jobs'),
  /** The catalogue's CATALOGUE_ALIAS (the same generation key). */
  CATALOGUE_ALIAS: catalogueAlias(),
  /**
   * Degraded admission (docs/operations.md#degraded-admission): while Redis cannot answer, a key
   * Redis found live at most this long ago is admitted from this instance's memory, so a
   * revocation, expiry or roll is effective again within this bound. 0 turns it off (503s).
   */
  DEGRADED_ADMISSION_MAX_AGE_MS: z.coerce.number().int().min(0).max(300_000).default(30_000),
  /**
   * Directory of the admission journal (`admissions-<PORT>.jsonl`): requests admitted without
   * Redis, replayed into it later. Default under the temp directory: writable under a read-only
   * root (the Kubernetes pod's /tmp volume, which outlives a container restart).
   */
  ADMISSION_JOURNAL_DIR: z.string().min(1).default(join(tmpdir(), 'fcs-gateway')),
  /**
   * Requests Redis counted in this last stretch (ms) are kept in memory and replayed, each once,
   * when the gateway finds another Redis server behind its connection (a failover or a restart):
   * the replica promoted, or an AOF synced every second, may lack them. 0 turns it off.
   */
  FAILOVER_REPLAY_WINDOW_MS: z.coerce.number().int().min(0).max(MAX_REPLAY_WINDOW_MS).default(10_000),
  /** fdatasync of the journal at most this often (ms); 0: after every line. write(2) happens before each answer either way. */
  ADMISSION_JOURNAL_FSYNC_MS: z.coerce.number().int().min(0).max(60_000).default(1_000),
  /** Deprecations announced per route (Deprecation, Sunset and Link headers); none by default. */
  API_DEPRECATIONS: deprecations(),
});
export type GatewayConfig = z.infer<typeof GatewayConfig>;

export const loadConfig = (env: Readonly<Record<string, string | undefined>>): GatewayConfig => parseConfig(GatewayConfig, env);
