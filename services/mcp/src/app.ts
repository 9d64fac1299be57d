import express, { type Express } from 'express';
import type { Redis } from 'ioredis';
import { Lifecycle, probeRoutes, serviceApp, type Logger } from '@fragrance/http';
import { requireBearer } from './auth/bearer.ts';
import { mcpCors } from './auth/cors.ts';
import { resourceMetadataRoutes } from './auth/metadata.ts';
import { requireAllowedHost, requireAllowedOrigin } from './auth/origin.ts';
import type { TokenVerifier } from './auth/verify-token.ts';
import type { Catalogue } from './catalogue/catalogue.ts';
import { REQUIRED_SCOPE, resourceMetadataUrlOf, resourceOf, type McpConfig } from './config.ts';
import { rateLimitPerUser, type McpRateLimiter } from './rate-limit.ts';
import { discoveryRoutes } from './routes/discovery.ts';
import { mcpRoutes } from './routes/mcp.ts';

export interface McpDeps {
  config: McpConfig;
  logger: Logger;
  redis: Redis;
  verify: TokenVerifier;
  rateLimiter: McpRateLimiter;
  catalogue: Catalogue;
  /** Draining state for /health/ready (main.ts shares it with serve()); a fresh one when absent. */
  lifecycle?: Lifecycle;
  /**
   * Whether tokens can be checked without Redis right now (the revocation copy is recent): the
   * instance then stays ready while Redis is away. Absent: readiness needs Redis.
   */
  revocations?: { usable(): boolean };
  /** Records the last use of each grant (GrantStore); absent in tests that do not look. */
  usage?: { recordUse(grantId: string): Promise<void> };
}

/** The MCP resource server, built from its dependencies so tests can run it without main.ts. */
export function buildApp(deps: McpDeps): Express {
  const { config, logger, redis, verify, rateLimiter, catalogue, usage, revocations, lifecycle = new Lifecycle() } = deps;
  // /mcp is served by middleware (the SDK's transport), not an express route: the request metric labels it by its mount.
  return serviceApp({ logger, metricMounts: ['/mcp'] }, (app) => {
    app.get('/health', async (_req, res) => {
      const redisUp = await redis.ping().then(
        (reply) => reply === 'PONG',
        () => false,
      );
      res.status(redisUp ? 200 : 503).json({ status: redisUp ? 'ok' : 'degraded', dependencies: { redis: redisUp ? 'up' : 'down' } });
    });

    // Ready needs Redis (revocations, rate limit), or a recent copy of the revocations to answer
    // without it (every instance is in the same state during an outage); the catalogue sits behind
    // the load balancer.
    const redisOrCopy = async () => {
      try {
        await redis.ping();
      } catch (error) {
        if (!revocations?.usable()) throw error;
      }
    };
    app.use(probeRoutes({ lifecycle, required: { redis: redisOrCopy }, timeoutMs: 1_000 }));

    app.use(
      resourceMetadataRoutes({
        resource: resourceOf(config),
        issuer: config.OAUTH_ISSUER,
        scopes: [REQUIRED_SCOPE],
      }),
    );

    // The Server Card and the AI Catalog: public, before /mcp's checks (/mcp/server-card is under /mcp).
    app.use(discoveryRoutes(config));

    app.use(
      '/mcp',
      // Host and Origin first: a rebinding page learns nothing, not even that a token is needed.
      requireAllowedHost(config.MCP_ALLOWED_HOSTS),
      requireAllowedOrigin(config.MCP_ALLOWED_ORIGINS),
      // A listed origin's preflight is answered here, before the bearer check; its answers are readable.
      mcpCors(config.MCP_ALLOWED_ORIGINS),
      requireBearer({ verify, resourceMetadataUrl: resourceMetadataUrlOf(config), requiredScope: REQUIRED_SCOPE }),
      rateLimitPerUser(rateLimiter),
      express.json({ limit: '256kb' }),
      mcpRoutes({ catalogue, logger, ...(usage ? { usage } : {}) }),
    );
  });
}
