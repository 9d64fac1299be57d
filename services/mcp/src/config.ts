import { getOAuthProtectedResourceMetadataUrl } from '@modelcontextprotocol/server';
import { z } from 'zod';
import {
  DEV_PORTS,
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
} from '@fragrance/config';

const commaList = z.string().transform((value) =>
  value
    .split(',')
    .map((item) => item.trim().replace(/\/+$/, ''))
    .filter(Boolean),
);

const LOOPBACK = ['127.0.0.1', 'localhost', '[::1]', '::1'];
/** The MCP Inspector's web UI: allowed by default in development (MCP_URL on loopback) only. */
export const INSPECTOR_ORIGINS = ['http://localhost:6274', 'http://127.0.0.1:6274'];

/** Every variable the MCP server reads; documented in docs/configuration.md. */
const McpConfigShape = z.object({
  HOST: host(),
  PORT: port(DEV_PORTS.services.mcp.http),
  LOG_LEVEL: logLevel(),
  ...redisConnectionFields(),
  ...observabilityFields(DEV_PORTS.services.mcp.metrics),
  /** Prefix of every Redis key read and written: the auth service's (revoked:*), so its revocations bite here; mcp:* is ours. */
  REDIS_PREFIX: redisPrefix(),
  /** Longest wait for one Redis reply before a request fails with 503. */
  REDIS_COMMAND_TIMEOUT_MS: millis(500),
  SHUTDOWN_TIMEOUT_MS: shutdownTimeout(),
  CATALOGUE_SERVICE_URL: httpUrl().default(`http://127.0.0.1:${DEV_PORTS.services.catalogue.http}`),
  CATALOGUE_TIMEOUT_MS: millis(5_000),
  /** Public base URL clients reach (the edge). The MCP resource identifier is `${MCP_URL}/mcp`. */
  MCP_URL: httpUrl().default(`http://127.0.0.1:${DEV_PORTS.services.gateway.http}`),
  /** Issuer of the access tokens; defaults to MCP_URL (the authorization server sits behind the same edge). */
  OAUTH_ISSUER: httpUrl().optional(),
  /** Where the signing keys are fetched from; defaults to the auth service's internal JWKS. */
  AUTH_SERVICE_URL: httpUrl().default(`http://127.0.0.1:${DEV_PORTS.services.auth.http}`),
  JWKS_URL: httpUrl().optional(),
  /** The one JWS algorithm accepted for access tokens (pinned: no algorithm negotiation). */
  ACCESS_TOKEN_ALG: z.enum(['RS256', 'PS256', 'ES256', 'EdDSA']).default('RS256'),
  /** Exact browser origins allowed to call /mcp (CORS and DNS-rebinding protection); default: MCP_URL's origin, plus the Inspector's when MCP_URL is loopback. */
  MCP_ALLOWED_ORIGINS: commaList.optional(),
  /** Host names accepted in the Host header of /mcp; default: loopback names and MCP_URL's host when HOST is loopback, else no check. */
  MCP_ALLOWED_HOSTS: commaList.optional(),
  /** Per-user token bucket: sustained MCP requests per minute, and the burst on top. */
  MCP_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(120),
  MCP_RATE_LIMIT_BURST: z.coerce.number().int().positive().default(60),
  /** How often the local copy of the revocation records is read again from Redis (the bound for a revocation to reach it). */
  REVOCATION_SYNC_MS: millis(5_000),
  /**
   * While Redis is unreachable, tokens are checked against the local copy of the revocation
   * records for at most this long after its last sync; then requests fail with 503.
   */
  REVOCATION_COPY_MAX_AGE_MS: millis(30_000),
});

export const McpConfig = McpConfigShape.superRefine((c, ctx) => {
  // Browsers send an exact origin (scheme://host[:port]); anything else could never match.
  for (const entry of c.MCP_ALLOWED_ORIGINS ?? []) {
    if (URL.parse(entry)?.origin !== entry.toLowerCase()) {
      ctx.addIssue({
        code: 'custom',
        path: ['MCP_ALLOWED_ORIGINS'],
        message: `${JSON.stringify(entry)} is not an origin (scheme://host[:port])`,
      });
    }
  }
}).transform((c) => ({
  ...c,
  OAUTH_ISSUER: c.OAUTH_ISSUER ?? c.MCP_URL,
  JWKS_URL: c.JWKS_URL ?? `${c.AUTH_SERVICE_URL}/oauth/jwks`,
  MCP_ALLOWED_ORIGINS: c.MCP_ALLOWED_ORIGINS ?? [
    new URL(c.MCP_URL).origin,
    ...(LOOPBACK.includes(new URL(c.MCP_URL).hostname) ? INSPECTOR_ORIGINS : []),
  ],
  // A proxy that keeps the public Host is fine too: MCP_URL's host name is always allowed.
  MCP_ALLOWED_HOSTS: c.MCP_ALLOWED_HOSTS ?? (LOOPBACK.includes(c.HOST) ? [...LOOPBACK, new URL(c.MCP_URL).hostname] : []),
}));
export type McpConfig = z.infer<typeof McpConfig>;

export const loadConfig = (env: Readonly<Record<string, string | undefined>>): McpConfig => parseConfig(McpConfig, env);

/** The RFC 8707 resource identifier of this server: the audience its tokens must carry. */
export const resourceOf = (config: Pick<McpConfig, 'MCP_URL'>): string => `${config.MCP_URL}/mcp`;

/** RFC 9728 §3.1: the metadata of resource `${MCP_URL}/mcp` lives at the path-suffixed well-known URL. */
export const resourceMetadataUrlOf = (config: Pick<McpConfig, 'MCP_URL'>): string =>
  getOAuthProtectedResourceMetadataUrl(new URL(resourceOf(config)));

/** Scope every MCP request needs. */
export const REQUIRED_SCOPE = 'catalogue:read';
