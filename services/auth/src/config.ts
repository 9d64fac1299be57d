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
  /** A refresh token unused this long ends (each refresh starts the count again). */
  REFRESH_TOKEN_IDLE_SECONDS: seconds(30 * 86_400),
  /** However often it is used, a grant's refresh tokens end this long after consent. */
  REFRESH_TOKEN_MAX_AGE_SECONDS: seconds(365 * 86_400),
  SESSION_TTL_SECONDS: seconds(14 * 86_400),
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

/** AuthConfig with the checks that involve two variables. */
const Checked = AuthConfig.refine((c) => c.REFRESH_TOKEN_IDLE_SECONDS <= c.REFRESH_TOKEN_MAX_AGE_SECONDS, {
  path: ['REFRESH_TOKEN_IDLE_SECONDS'],
  error: 'must not exceed REFRESH_TOKEN_MAX_AGE_SECONDS',
});

export const loadConfig = (env: Readonly<Record<string, string | undefined>>): AuthConfig => parseConfig(Checked, env);
