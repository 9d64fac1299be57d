import express, { type Express } from 'express';
import type { Redis } from 'ioredis';
import type { Agent } from 'undici';
import { notFoundHandler, problemHandler, requestLogger, type Logger } from '@fragrance/http';
import type { GatewayConfig } from './config.ts';
import { redisCheck, upstreamCheck, type HealthCheck } from './health.ts';
import { proxyTo } from './proxy.ts';
import { healthRoutes } from './routes/health.ts';

export interface GatewayDeps {
  config: GatewayConfig;
  logger: Logger;
  redis: Redis;
  /** Keep-alive pools, one per upstream service. */
  agents: { catalogue: Agent; auth?: Agent; mcp?: Agent };
}

/** The public edge, built from its dependencies so tests can run it without main.ts. */
export function buildApp({ config, logger, redis, agents }: GatewayDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  app.use(requestLogger(logger));

  const checks: Record<string, HealthCheck> = {
    redis: redisCheck(redis),
    catalogue: upstreamCheck(config.CATALOGUE_SERVICE_URL, agents.catalogue, config.HEALTH_TIMEOUT_MS),
  };
  const optionalUpstreams = [
    // The authorization server: endpoints, metadata, sign-in and consent pages (all under /oauth).
    { name: 'auth', url: config.AUTH_SERVICE_URL, agent: agents.auth, paths: ['/oauth', '/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'] },
    // The MCP server and its RFC 9728 metadata (also at the path-suffixed location).
    { name: 'mcp', url: config.MCP_SERVICE_URL, agent: agents.mcp, paths: ['/mcp', '/.well-known/oauth-protected-resource'] },
  ] as const;
  for (const upstream of optionalUpstreams) {
    if (!upstream.url || !upstream.agent) continue;
    checks[upstream.name] = upstreamCheck(upstream.url, upstream.agent, config.HEALTH_TIMEOUT_MS);
    app.use([...upstream.paths], proxyTo({ upstream: upstream.url, agent: upstream.agent, timeoutMs: config.UPSTREAM_TIMEOUT_MS }));
  }
  app.use(healthRoutes(checks, config.HEALTH_TIMEOUT_MS));

  app.use(
    '/v1/fragrances',
    proxyTo({
      upstream: config.CATALOGUE_SERVICE_URL,
      agent: agents.catalogue,
      timeoutMs: config.UPSTREAM_TIMEOUT_MS,
      dropRequestHeaders: ['authorization', 'cookie'],
    }),
  );

  app.use(notFoundHandler);
  app.use(problemHandler);
  return app;
}
