import { z } from 'zod';
import { host, httpUrl, logLevel, millis, parseConfig, port, redisUrl } from '@fragrance/config';

/** Every variable the gateway reads; documented in docs/configuration.md. */
export const GatewayConfig = z.object({
  HOST: host(),
  PORT: port(8080),
  LOG_LEVEL: logLevel(),
  REDIS_URL: redisUrl().default('redis://127.0.0.1:6379'),
  CATALOGUE_SERVICE_URL: httpUrl().default('http://127.0.0.1:8081'),
  /** When unset, the OAuth routes are not mounted (and not health-checked). */
  AUTH_SERVICE_URL: httpUrl().optional(),
  /** When unset, /mcp is not mounted (and not health-checked). */
  MCP_SERVICE_URL: httpUrl().optional(),
  UPSTREAM_TIMEOUT_MS: millis(10_000),
  HEALTH_TIMEOUT_MS: millis(1_000),
});
export type GatewayConfig = z.infer<typeof GatewayConfig>;

export const loadConfig = (env: Readonly<Record<string, string | undefined>>): GatewayConfig =>
  parseConfig(GatewayConfig, env);
