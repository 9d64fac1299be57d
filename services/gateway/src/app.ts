import onHeaders from 'on-headers';
import express, { type Express, type RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import type { Agent } from 'undici';
import { createAdmitter, createRefunder, redactApiKeys, type Clock, type RouteAccess } from '@fragrance/api-keys';
import {
  deprecated,
  Lifecycle,
  MethodNotAllowedError,
  notFoundHandler,
  probeRoutes,
  problemHandler,
  requestLogger,
  type Logger,
} from '@fragrance/http';
import { httpMetrics } from '@fragrance/metrics';
import { catalogueGenerationKey, createResponseCache } from '@fragrance/response-cache';
import { createSearchRecorder } from '@fragrance/search-analytics';
import { traceContext } from '@fragrance/tracing';
import { apiKeyAuth, quotaOf, unitsOf } from './api-key-auth.ts';
import type { DeprecatableRoute, GatewayConfig } from './config.ts';
import { readEndpointCors } from './cors.ts';
import { sizeExport } from './export-admission.ts';
import { redisCheck, upstreamCheck, type HealthCheck } from './health.ts';
import { edgeCache } from './edge-cache.ts';
import { proxyTo, upstreamForwarder } from './proxy.ts';
import { setRateLimitHeaders } from './rate-limit-headers.ts';
import { inSequence } from './in-sequence.ts';
import { normaliseRequestTargets } from './request-target.ts';
import { countSearches } from './search-analytics.ts';
import { observeEdgeCache, timedRedisCall } from './metrics.ts';
import { degradedReadiness, type DegradedAdmission } from './degraded-admission.ts';
import { docsRoutes } from './routes/docs.ts';
import { healthRoutes } from './routes/health.ts';
import { meRoutes } from './routes/me.ts';
import { usageRoutes } from './routes/usage.ts';
import { searchUsageRoutes } from './routes/usage-searches.ts';

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
}

/** The public edge, built from its dependencies so tests can run it without main.ts. */
export function buildApp({ config, logger, redis, agents, clock, lifecycle = new Lifecycle(), degraded }: GatewayDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  // Whose X-Forwarded-For names the client (per-visitor limits, a key's last use): none by default, the edge is the first hop.
  app.set('trust proxy', config.TRUST_PROXY);
  // The public routes are exactly the documented ones: /v1/FRAGRANCES is not /v1/fragrances.
  app.set('case sensitive routing', true);
  // What every request passes first, in this order, as one layer of the router: each layer
  // costs a match and a parameters pass per request, and these five always run.
  app.use(
    inSequence([
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
    ]),
  );

  const checks: Record<string, HealthCheck> = {
    redis: redisCheck(redis),
    catalogue: upstreamCheck(config.CATALOGUE_SERVICE_URL, agents.catalogue, config.HEALTH_TIMEOUT_MS),
  };
  const optionalUpstreams = [
    // The authorization server: endpoints, metadata, sign-in and consent pages (all under /oauth),
    // and the account page where people see and disconnect the apps they connected.
    {
      name: 'auth',
      url: config.AUTH_SERVICE_URL,
      agent: agents.auth,
      paths: ['/oauth{/*rest}', '/account{/*rest}', '/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'],
    },
    // The MCP server, its RFC 9728 metadata (also at the path-suffixed location), and its discovery
    // documents: the Server Card (SEP-2127) and the AI Catalog, each at the current draft's path and the earlier one's.
    {
      name: 'mcp',
      url: config.MCP_SERVICE_URL,
      agent: agents.mcp,
      paths: [
        '/mcp',
        '/.well-known/oauth-protected-resource',
        '/.well-known/oauth-protected-resource/mcp',
        '/mcp/server-card',
        '/.well-known/mcp/server-card.json',
        '/.well-known/ai-catalog.json',
        '/.well-known/mcp/catalog.json',
      ],
    },
  ] as const;
  const generationScope = { prefix: config.JOBS_PREFIX, alias: config.CATALOGUE_ALIAS };
  const admit = createAdmitter({
    redis,
    prefix: config.REDIS_PREFIX,
    timeZone: config.QUOTA_TIMEZONE,
    bucketDefaults: { capacity: config.BURST_CAPACITY, refillPerSecond: config.BURST_REFILL_PER_SECOND },
    visitorDefaults: {
      capacity: config.VISITOR_BURST_CAPACITY,
      refillPerSecond: config.VISITOR_REFILL_PER_SECOND,
      maxLimit: config.PUBLISHABLE_MAX_LIMIT,
    },
    ...(clock ? { clock } : {}),
    ...(degraded ? { local: degraded.local } : {}),
    // The edge cache's key: the catalogue generation counter, read in the admission's own round trip.
    ...(config.EDGE_CACHE_MAX_BYTES > 0 ? { readAlong: catalogueGenerationKey(generationScope) } : {}),
  });
  const catalogue = {
    name: 'catalogue',
    upstream: config.CATALOGUE_SERVICE_URL,
    agent: agents.catalogue,
    timeoutMs: config.UPSTREAM_TIMEOUT_MS,
    // The customer's key stops at the edge.
    dropRequestHeaders: ['authorization', 'cookie'],
  };
  const toCatalogue = proxyTo(catalogue);
  // Popular answers served at the edge, still admitted and counted (edge-cache.ts); off with EDGE_CACHE_MAX_BYTES=0.
  let edge: RequestHandler | undefined;
  if (config.EDGE_CACHE_MAX_BYTES > 0) {
    const cache = createResponseCache({ maxBytes: config.EDGE_CACHE_MAX_BYTES });
    observeEdgeCache(cache);
    edge = edgeCache({ cache, scope: generationScope, forward: upstreamForwarder(catalogue) });
  }
  /** The answers the catalogue caches (and marks with its generation): cached at the edge too. */
  const edgeCached: ReadonlySet<string> = new Set(['/v1/fragrances', '/v1/fragrances/:id', '/v1/fragrances/:id/similar']);
  const isRead = (method: string) => method === 'GET' || method === 'HEAD';
  const readOnly: RequestHandler = (req, _res, next) => {
    next(isRead(req.method) ? undefined : new MethodNotAllowedError(['GET', 'HEAD'], 'The data API is read-only: use GET.'));
  };
  // Each route says what it requires of the key: a scope of secret keys (a publishable key has
  // `search` only), `me` (any secret key) or `any`. A secret key from a foreign page is refused.
  const publicOrigin = new URL(config.MCP_URL).origin;
  const peekFor = (access: RouteAccess) => apiKeyAuth(admit, 'peek', { access, publicOrigin });
  const chargeFor = (access: RouteAccess) =>
    apiKeyAuth(admit, 'admit', { access, publicOrigin, trustEdgeRequestId: config.TRUST_EDGE_REQUEST_ID });
  const peekSearch = peekFor('search');
  const chargeSearch = chargeFor('search');
  // Only reads of data are charged; a wrong method is authenticated, then refused for free.
  const chargeReads: RequestHandler = (req, res, next) => (isRead(req.method) ? chargeSearch : peekSearch)(req, res, next);
  // The read endpoints a publishable key reaches answer browsers (preflights without a key).
  const cors = readEndpointCors();

  // A request that fails on our side (5xx) is given back: customers pay for answers, not outages.
  // The answer already says so: its RateLimit-Remaining (and RateLimit's r) counts the request as not made.
  const refundQuota = createRefunder({ redis, prefix: config.REDIS_PREFIX });
  const refund = (quota: Parameters<typeof refundQuota>[0], units?: number) => timedRedisCall('refund', () => refundQuota(quota, units));
  const refundServerErrors: RequestHandler = (req, res, next) => {
    onHeaders(res, () => {
      const quota = quotaOf(res);
      if (!quota || res.statusCode < 500) return;
      const units = unitsOf(res);
      setRateLimitHeaders(res, {
        ...quota,
        remaining: Math.min(quota.limit, quota.remaining + units),
        approximate: quota.local !== undefined,
      });
      // Admitted without Redis and not replayed yet: taken out of the journal, nothing to give back.
      const journalId = quota.local?.journalId;
      if (journalId !== undefined && degraded?.journal.void(journalId)) return;
      res.once('finish', () => {
        refund(quota, units).catch((error: unknown) => req.log?.warn({ err: error }, 'could not refund a failed request'));
      });
    });
    next();
  };

  // Text searches are counted per key owner and day for search analytics (search-analytics.ts):
  // after the answer, never in its way; the catalogue's internal outcome header is removed here.
  const searchCounting = countSearches(createSearchRecorder({ redis, prefix: config.REDIS_PREFIX }));
  const counted = (path: string): RequestHandler[] => (path === '/v1/fragrances' ? [searchCounting] : []);

  // A deprecation announced for a route (API_DEPRECATIONS) goes on every answer it gives, before
  // anything else runs, so a 401 or 429 says it too.
  const announce = (route: DeprecatableRoute): RequestHandler[] => {
    const notice = config.API_DEPRECATIONS[route];
    return notice ? [deprecated(notice)] : [];
  };

  // {base_url} = /v1. The OpenAPI document is public; everything else needs a key. Only the
  // routes of the public contract are forwarded: the catalogue's other routes stay internal.
  app.all('/v1/openapi.json', readOnly, toCatalogue);
  // An export is billed by its size (docs/search.md): authenticate, ask the catalogue how many
  // records it streams, then charge them whole (or refuse with 429 before anything streams).
  const sizeExportRequest = sizeExport({
    upstream: config.CATALOGUE_SERVICE_URL,
    agent: agents.catalogue,
    timeoutMs: config.UPSTREAM_TIMEOUT_MS,
  });
  app.all(
    '/v1/fragrances/export',
    ...announce('/v1/fragrances/export'),
    peekFor('export'),
    readOnly,
    sizeExportRequest,
    chargeFor('export'),
    refundServerErrors,
    toCatalogue,
  );
  // One route each, so each has its own template in the metrics.
  for (const path of [
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
  ] as const satisfies readonly DeprecatableRoute[]) {
    if (edge && edgeCached.has(path)) {
      app.all(path, cors, ...announce(path), chargeReads, readOnly, refundServerErrors, ...counted(path), edge, toCatalogue);
    } else app.all(path, cors, ...announce(path), chargeReads, readOnly, refundServerErrors, ...counted(path), toCatalogue);
  }
  // GET /v1/me, GET /v1/usage and GET /v1/usage/searches do not count against the quota.
  const peekUsage = peekFor('usage');
  app.use('/v1/me', ...announce('/v1/me'), peekFor('me'), readOnly, meRoutes());
  app.use(
    '/v1/usage/searches',
    ...announce('/v1/usage/searches'),
    peekUsage,
    readOnly,
    searchUsageRoutes({ redis, prefix: config.REDIS_PREFIX, timeZone: config.QUOTA_TIMEZONE }),
  );
  app.use(
    '/v1/usage',
    ...announce('/v1/usage'),
    peekUsage,
    readOnly,
    usageRoutes({ redis, prefix: config.REDIS_PREFIX, timeZone: config.QUOTA_TIMEZONE }),
  );
  // Any other /v1 path needs a key too, then gets a free 404.
  app.use('/v1', peekFor('any'));

  // The other public routes come after the data API's: every data request is routed past fewer layers.
  for (const upstream of optionalUpstreams) {
    if (!upstream.url || !upstream.agent) continue;
    checks[upstream.name] = upstreamCheck(upstream.url, upstream.agent, config.HEALTH_TIMEOUT_MS);
    // Exact routes (all of /oauth belongs to the authorization server): nothing else of theirs is
    // public. Sign-in pages and MCP event streams may legitimately idle: no body timeout there.
    // One route per path, so each has its own route template in metrics.
    const toUpstream = proxyTo({
      name: upstream.name,
      upstream: upstream.url,
      agent: upstream.agent,
      timeoutMs: config.UPSTREAM_TIMEOUT_MS,
      bodyIdleTimeoutMs: 0,
      maxBodyBytes: config.MAX_REQUEST_BODY_BYTES,
      publicOrigin: config.MCP_URL,
    });
    for (const path of upstream.paths) app.all(path, toUpstream);
  }
  app.use(healthRoutes(checks, config.HEALTH_TIMEOUT_MS));
  // Public: the home page and the interactive API reference (docs/gateway.md#api-reference).
  app.use(docsRoutes());
  // Ready needs only Redis (every data request does): the upstreams sit behind the load balancer
  // and have readiness of their own.
  // While Redis is away, ready as long as recently seen keys can be admitted (degraded admission).
  const redisReady = degraded ? degradedReadiness(checks.redis!, degraded, config.DEGRADED_ADMISSION_MAX_AGE_MS) : checks.redis!;
  app.use(probeRoutes({ lifecycle, required: { redis: redisReady }, timeoutMs: config.HEALTH_TIMEOUT_MS }));

  app.use(notFoundHandler);
  app.use(problemHandler);
  return app;
}
