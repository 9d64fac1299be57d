import type { Express, RequestHandler } from 'express';
import { createAdmitter, type Admitter, type RouteAccess } from '@fragrance/api-keys';
import { deprecated, MethodNotAllowedError } from '@fragrance/http';
import { catalogueGenerationKey, createResponseCache } from '@fragrance/response-cache';
import { createSearchRecorder } from '@fragrance/search-analytics';
import { apiKeyAuth } from '../api-key-auth.ts';
import type { GatewayDeps } from '../app.ts';
import { CATALOGUE_ROUTES, type DeprecatableRoute, type GatewayConfig } from '../config.ts';
import { readEndpointCors } from '../cors.ts';
import { edgeCache } from '../edge-cache.ts';
import { sizeExport } from '../export-admission.ts';
import { observeEdgeCache } from '../metrics.ts';
import { proxyTo, upstreamForwarder } from '../proxy.ts';
import { refundServerErrors } from '../refund-server-errors.ts';
import { countSearches } from '../search-analytics.ts';
import { usageRoutes } from './usage.ts';
import { searchUsageRoutes } from './usage-searches.ts';
import { meRoutes } from './me.ts';

type DataApiDeps = Pick<GatewayDeps, 'config' | 'redis' | 'agents' | 'clock' | 'degraded' | 'failover'>;

/** The answers the catalogue caches (and marks with its generation): cached at the edge too. */
const EDGE_CACHED: ReadonlySet<string> = new Set(['/v1/fragrances', '/v1/fragrances/:id', '/v1/fragrances/:id/similar']);

const isRead = (method: string) => method === 'GET' || method === 'HEAD';
const readOnly: RequestHandler = (req, _res, next) => {
  next(isRead(req.method) ? undefined : new MethodNotAllowedError(['GET', 'HEAD'], 'The data API is read-only: use GET.'));
};

const generationScope = (config: GatewayConfig) => ({ prefix: config.JOBS_PREFIX, alias: config.CATALOGUE_ALIAS });

function gatewayAdmitter({ config, redis, clock, degraded, failover }: DataApiDeps): Admitter {
  return createAdmitter({
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
    ...(failover ? { recent: failover.recent } : {}),
    // The edge cache's key: the catalogue generation counter, read in the admission's own round trip.
    ...(config.EDGE_CACHE_MAX_BYTES > 0 ? { readAlong: catalogueGenerationKey(generationScope(config)) } : {}),
  });
}

/** The catalogue proxy, and the edge cache in front of it (undefined with EDGE_CACHE_MAX_BYTES=0). */
function catalogueForwarding({ config, agents }: DataApiDeps): { toCatalogue: RequestHandler; edge: RequestHandler | undefined } {
  const catalogue = {
    name: 'catalogue',
    upstream: config.CATALOGUE_SERVICE_URL,
    agent: agents.catalogue,
    timeoutMs: config.UPSTREAM_TIMEOUT_MS,
    // The customer's key stops at the edge.
    dropRequestHeaders: ['authorization', 'cookie'],
  };
  const toCatalogue = proxyTo(catalogue);
  // Popular answers served at the edge, still admitted and counted (edge-cache.ts).
  if (config.EDGE_CACHE_MAX_BYTES === 0) return { toCatalogue, edge: undefined };
  const cache = createResponseCache({ maxBytes: config.EDGE_CACHE_MAX_BYTES });
  observeEdgeCache(cache);
  return { toCatalogue, edge: edgeCache({ cache, scope: generationScope(config), forward: upstreamForwarder(catalogue) }) };
}

/**
 * Each route says what it requires of the key: a scope of secret keys (a publishable key has
 * `search` only), `me` (any secret key) or `any`. A secret key from a foreign page is refused.
 */
function keyChecks(admit: Admitter, config: GatewayConfig) {
  const publicOrigin = new URL(config.MCP_URL).origin;
  const peekFor = (access: RouteAccess) => apiKeyAuth(admit, 'peek', { access, publicOrigin });
  const chargeFor = (access: RouteAccess) =>
    apiKeyAuth(admit, 'admit', {
      access,
      publicOrigin,
      trustEdgeRequestId: config.TRUST_EDGE_REQUEST_ID,
      // Every admission leaves a mark, so the failover replay can tell what a new primary lacks.
      ownAdmissionIds: config.FAILOVER_REPLAY_WINDOW_MS > 0,
    });
  const peekSearch = peekFor('search');
  const chargeSearch = chargeFor('search');
  // Only reads of data are charged; a wrong method is authenticated, then refused for free.
  const chargeReads: RequestHandler = (req, res, next) => (isRead(req.method) ? chargeSearch : peekSearch)(req, res, next);
  return { peekFor, chargeFor, chargeReads };
}

/**
 * A deprecation announced for a route (API_DEPRECATIONS) goes on every answer it gives, before
 * anything else runs, so a 401 or 429 says it too.
 */
const announcer =
  (config: GatewayConfig) =>
  (route: DeprecatableRoute): RequestHandler[] => {
    const notice = config.API_DEPRECATIONS[route];
    return notice ? [deprecated(notice)] : [];
  };

/**
 * The data API under {base_url} = /v1. The OpenAPI document is public; everything else needs a
 * key. Only the routes of the public contract are forwarded: the catalogue's other routes stay internal.
 */
export function mountDataApi(app: Express, deps: DataApiDeps): void {
  const { config, redis, agents, degraded, failover } = deps;
  const { toCatalogue, edge } = catalogueForwarding(deps);
  const { peekFor, chargeFor, chargeReads } = keyChecks(gatewayAdmitter(deps), config);
  const announce = announcer(config);
  // The read endpoints a publishable key reaches answer browsers (preflights without a key).
  const cors = readEndpointCors();
  const refunds = refundServerErrors({ redis, prefix: config.REDIS_PREFIX, degraded, recent: failover?.recent });
  // Text searches are counted per key owner and day for search analytics (search-analytics.ts):
  // after the answer, never in its way; the catalogue's internal outcome header is removed here.
  const searchCounting = countSearches(createSearchRecorder({ redis, prefix: config.REDIS_PREFIX }));
  const counted = (path: string): RequestHandler[] => (path === '/v1/fragrances' ? [searchCounting] : []);

  app.all('/v1/openapi.json', readOnly, toCatalogue);
  // An export is billed by its size (docs/search.md): authenticate, ask the catalogue how many
  // records it streams, then charge them whole (or refuse with 429 before anything streams).
  const sizeExportRequest = sizeExport({
    upstream: config.CATALOGUE_SERVICE_URL,
    agent: agents.catalogue,
    timeoutMs: config.UPSTREAM_TIMEOUT_MS,
  });
  const exportRoute = '/v1/fragrances/export';
  app.all(exportRoute, ...announce(exportRoute), peekFor('export'), readOnly, sizeExportRequest, chargeFor('export'), refunds, toCatalogue);
  for (const path of CATALOGUE_ROUTES) {
    const cached = edge && EDGE_CACHED.has(path) ? [edge] : [];
    app.all(path, cors, ...announce(path), chargeReads, readOnly, refunds, ...counted(path), ...cached, toCatalogue);
  }
  // GET /v1/me, GET /v1/usage and GET /v1/usage/searches do not count against the quota.
  const peekUsage = peekFor('usage');
  const usage = { redis, prefix: config.REDIS_PREFIX, timeZone: config.QUOTA_TIMEZONE };
  app.use('/v1/me', ...announce('/v1/me'), peekFor('me'), readOnly, meRoutes());
  app.use('/v1/usage/searches', ...announce('/v1/usage/searches'), peekUsage, readOnly, searchUsageRoutes(usage));
  app.use('/v1/usage', ...announce('/v1/usage'), peekUsage, readOnly, usageRoutes(usage));
  // Any other /v1 path needs a key too, then gets a free 404.
  app.use('/v1', peekFor('any'));
}
