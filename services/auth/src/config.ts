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
  seconds,
  shutdownTimeout,
} from '@fragrance/config';

/** Every variable the auth service reads; documented in docs/configuration.md. */
export const AuthConfig = z.object({
  HOST: host(),
  PORT: port(DEV_PORTS.services.auth.http),
  LOG_LEVEL: logLevel(),
  ...redisConnectionFields(),
  ...observabilityFields(DEV_PORTS.services.auth.metrics),
  /** Key prefix of everything this service writes to Redis. */
  REDIS_PREFIX: redisPrefix(),
  /** Longest wait for one Redis reply before a request fails with 503. */
  REDIS_COMMAND_TIMEOUT_MS: millis(500),
  SHUTDOWN_TIMEOUT_MS: shutdownTimeout(),
  /** Public origin of the edge = the OAuth issuer ({mcp_url}). */
  MCP_URL: httpUrl().default(`http://127.0.0.1:${DEV_PORTS.services.gateway.http}`),
  /** RFC 8707 resource identifier of the MCP server (token audience); default `${MCP_URL}/mcp`. */
  MCP_RESOURCE: httpUrl().optional(),
  ACCESS_TOKEN_TTL_SECONDS: seconds(86_400),
  AUTHORIZATION_CODE_TTL_SECONDS: seconds(60),
  REFRESH_TOKEN_TTL_SECONDS: seconds(30 * 86_400),
  SESSION_TTL_SECONDS: seconds(14 * 86_400),
  /**
   * A rotated refresh token presented again within this many seconds of its rotation, while its
   * successor is unused, is answered as a retry instead of revoking the grant (0: never). Kept
   * short: within it, a stolen token's reuse is not detected until someone presents a replaced one.
   */
  REFRESH_TOKEN_REUSE_GRACE_SECONDS: z.coerce
    .number({ error: 'must be a whole number of seconds' })
    .int({ error: 'must be a whole number of seconds' })
    .min(0, { error: 'must be 0 (no grace period) or more' })
    .max(300, { error: 'must be at most 300 seconds' })
    .default(30),
  /** Dynamic registrations allowed per source address per hour. */
  REGISTRATION_LIMIT_PER_HOUR: z.coerce.number().int().positive().default(30),
  /** Failed sign-ins per account / per source address in LOGIN_THROTTLE_WINDOW_SECONDS. */
  LOGIN_LIMIT_PER_ACCOUNT: z.coerce.number().int().positive().default(5),
  LOGIN_LIMIT_PER_ADDRESS: z.coerce.number().int().positive().default(20),
  LOGIN_THROTTLE_WINDOW_SECONDS: seconds(900),
  /** Express `trust proxy`: whose X-Forwarded-For to believe (the gateway runs on loopback). */
  TRUST_PROXY: z.string().min(1).default('loopback'),
});
export type AuthConfig = z.infer<typeof AuthConfig>;

export const loadConfig = (env: Readonly<Record<string, string | undefined>>): AuthConfig => parseConfig(AuthConfig, env);
