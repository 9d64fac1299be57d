import type { Express, RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import type { Agent } from 'undici';
import { redactApiKeys, type Clock } from '@fragrance/api-keys';
import { Lifecycle, probeRoutes, requestLogger, serviceApp, type Logger } from '@fragrance/http';
import { httpMetrics } from '@fragrance/metrics';
import { traceContext } from '@fragrance/tracing';
import type { GatewayConfig } from './config.ts';
import { redisCheck, upstreamCheck, type HealthCheck } from './health.ts';
import { inSequence } from './in-sequence.ts';
import { normaliseRequestTargets } from './request-target.ts';
import { degradedReadiness, type DegradedAdmission } from './degraded-admission.ts';
import type { FailoverReplay } from './failover-replay.ts';
import { mountDataApi } from './routes/data-api.ts';
import { docsRoutes } from './routes/docs.ts';
import { healthRoutes } from './routes/health.ts';
import { mountOptionalUpstreams } from './routes/upstreams.ts';

export interface GatewayDeps {
  config: GatewayConfig;
  logger: Logger;
  redis: Redis;
  /** Keep-alive pools, one per upstream service. */
  agents: { catalogue: Agent; auth?: Agent; mcp?: Agent };
  /** Decides the quota day and the token bucket's time; tests pass a fake one. */
  clock?: Clock;
  /** Draining state for /health/ready (main.ts shares it with serve()); a fresh one when absent. */
  lifecycle?: Lifecycle;
  /** Admission while Redis cannot answer (degraded-admission.ts); without it such requests get 503. */
  degraded?: DegradedAdmission;
  /** The requests Redis counted lately, replayed into a new primary (failover-replay.ts). */
  failover?: FailoverReplay;
}

/** The public edge, built from its dependencies so tests can run it without main.ts. */
export function buildApp(deps: GatewayDeps): Express {
  const { config, redis, agents, lifecycle = new Lifecycle(), degraded } = deps;
  return serviceApp((app) => {
    // Whose X-Forwarded-For names the client (per-visitor limits, a key's last use): none by default, the edge is the first hop.
    app.set('trust proxy', config.TRUST_PROXY);
    // The public routes are exactly the documented ones: /v1/FRAGRANCES is not /v1/fragrances.
    app.set('case sensitive routing', true);
    app.use(frontLayer(app, deps.logger));

    const checks: Record<string, HealthCheck> = {
      redis: redisCheck(redis),
      catalogue: upstreamCheck(config.CATALOGUE_SERVICE_URL, agents.catalogue, config.HEALTH_TIMEOUT_MS),
    };
    mountDataApi(app, deps);
    // The other public routes come after the data API's: every data request is routed past fewer layers.
    mountOptionalUpstreams(app, { config, agents, checks });
    app.use(healthRoutes(checks, config.HEALTH_TIMEOUT_MS));
    // Public: the home page and the interactive API reference (docs/gateway.md#api-reference).
    app.use(docsRoutes());
    // Ready needs only Redis (every data request does): the upstreams sit behind the load balancer
    // and have readiness of their own.
    // While Redis is away, ready as long as recently seen keys can be admitted (degraded admission).
    const redisReady = degraded ? degradedReadiness(checks.redis!, degraded, config.DEGRADED_ADMISSION_MAX_AGE_MS) : checks.redis!;
    app.use(probeRoutes({ lifecycle, required: { redis: redisReady }, timeoutMs: config.HEALTH_TIMEOUT_MS }));
  });
}

/**
 * What every request passes first, in this order, as one layer of the router: each layer
 * costs a match and a parameters pass per request, and these five always run.
 */
function frontLayer(app: Express, logger: Logger): RequestHandler {
  return inSequence([
    // A key pasted into a URL stops here: neither logged nor forwarded.
    (req, _res, next) => {
      const redacted = redactApiKeys(req.url);
      if (redacted !== req.url) req.url = req.originalUrl = redacted;
      next();
    },
    traceContext(),
    httpMetrics(),
    requestLogger(logger),
    normaliseRequestTargets(app),
  ]);
}
