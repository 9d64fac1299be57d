import type { ServerResponse } from 'node:http';
import type { Request, RequestHandler } from 'express';
import { Histogram } from 'prom-client';
import { metricsEnabled } from './registry.ts';

/**
 * Request duration (seconds) by route template, method and status class; its `_count` is the
 * request count. Buckets span the SLO targets (docs/observability.md): 50 ms … 10 s.
 */
export const httpRequestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP request duration by route template, method and status class (count = requests).',
  labelNames: ['route', 'method', 'status_class'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
});

/** Node's parser accepts a fixed list of methods, but a label must be bounded whatever happens. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export interface HttpMetricsOptions {
  /**
   * Path prefixes served by middleware rather than express routes (the MCP endpoint, the OAuth
   * provider): a request under one is labelled with the prefix instead of `unmatched`.
   */
  mounts?: readonly string[];
}

/**
 * The route template a request matched (`/v1/fragrances/:id`), never its raw path: labels stay
 * bounded whatever clients ask for. Unmatched requests (404s, probes) share one label.
 */
export function routeLabel(req: Request, mounts: readonly string[] = []): string {
  const route = req.route as { path?: unknown } | undefined;
  const template = Array.isArray(route?.path) ? route.path.join('|') : route?.path;
  if (typeof template === 'string') {
    const full = `${req.baseUrl}${template}`;
    return full.length > 1 && full.endsWith('/') ? full.slice(0, -1) : full || '/';
  }
  const path = (req.originalUrl || req.url).split('?')[0] ?? '';
  for (const mount of mounts) if (path === mount || path.startsWith(`${mount}/`)) return mount;
  return 'unmatched';
}

/** `2xx`…`5xx`; `aborted` when the client went away before the response was finished. */
function statusClass(res: ServerResponse): string {
  return res.writableFinished ? `${Math.floor(res.statusCode / 100)}xx` : 'aborted';
}

/**
 * Observes every request's duration once its response is done (or abandoned). Mounted first, so
 * the time includes everything the service does for the request.
 */
export function httpMetrics(options: HttpMetricsOptions = {}): RequestHandler {
  if (!metricsEnabled()) return (_req, _res, next) => next();
  const mounts = options.mounts ?? [];
  return (req, res, next) => {
    const started = performance.now();
    res.once('close', () => {
      httpRequestDuration.observe(
        {
          route: routeLabel(req, mounts),
          method: METHODS.has(req.method) ? req.method : 'OTHER',
          status_class: statusClass(res),
        },
        (performance.now() - started) / 1000,
      );
    });
    next();
  };
}
