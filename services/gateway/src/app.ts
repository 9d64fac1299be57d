import express, { type Express } from 'express';
import type { Redis } from 'ioredis';
import type { Agent } from 'undici';
import { notFoundHandler, problemHandler, requestLogger, type Logger } from '@fragrance/http';
import type { GatewayConfig } from './config.ts';
import { redisCheck, upstreamCheck } from './health.ts';
import { proxyTo } from './proxy.ts';
import { healthRoutes } from './routes/health.ts';

export interface GatewayDeps {
  config: GatewayConfig;
  logger: Logger;
  redis: Redis;
  /** Keep-alive pools, one per upstream service. */
  agents: { catalogue: Agent };
}

/** The public edge, built from its dependencies so tests can run it without main.ts. */
export function buildApp({ config, logger, redis, agents }: GatewayDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  app.use(requestLogger(logger));

  app.use(
    healthRoutes(
      {
        redis: redisCheck(redis),
        catalogue: upstreamCheck(config.CATALOGUE_SERVICE_URL, agents.catalogue, config.HEALTH_TIMEOUT_MS),
      },
      config.HEALTH_TIMEOUT_MS,
    ),
  );

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
