import express, { type Express } from 'express';
import { httpMetrics } from '@fragrance/metrics';
import { traceContext } from '@fragrance/tracing';
import { requestLogger, type Logger } from './logger.ts';
import { notFoundHandler, problemHandler } from './problem.ts';

/** What every request passes before the service's own middleware. */
export interface RequestHead {
  /** Writes the one log line per request. */
  logger: Logger;
  /**
   * Path prefixes served by middleware rather than express routes (an SDK transport, an OAuth
   * provider): the request metric labels a request under one by the prefix.
   */
  metricMounts?: readonly string[];
}

type Mount = (app: Express) => void;

/**
 * An express app as every service builds one: no X-Powered-By banner; with a `head`, each request
 * first gets its trace context, its duration metric and its log line (a service whose requests
 * need something before these, such as the gateway's key redaction, passes none and installs them
 * itself); `mount` adds the service's middleware and routes; then an unknown path answers 404 and
 * every error problem+json.
 */
export function serviceApp(mount: Mount): Express;
export function serviceApp(head: RequestHead, mount: Mount): Express;
export function serviceApp(...args: [Mount] | [RequestHead, Mount]): Express {
  const [head, mount] = args.length === 1 ? [undefined, args[0]] : args;
  const app = express();
  app.disable('x-powered-by');
  if (head) {
    app.use(traceContext(), httpMetrics({ mounts: head.metricMounts ?? [] }));
    app.use(requestLogger(head.logger));
  }
  mount(app);
  app.use(notFoundHandler);
  app.use(problemHandler);
  return app;
}
