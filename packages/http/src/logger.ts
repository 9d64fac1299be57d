import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pino, type Logger, type LevelWithSilent } from 'pino';
import { pinoHttp, type HttpLogger } from 'pino-http';
import { currentTraceId } from '@fragrance/tracing';

export type { Logger } from 'pino';

/** Paths that must never reach a log line, whatever a caller passes in. */
const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  '*.authorization',
  '*.password',
  '*.token',
  '*.access_token',
  '*.refresh_token',
  '*.api_key',
  '*.apiKey',
  '*.secret',
];

/** Every line written while serving a request carries its W3C trace id (docs/observability.md). */
function traceIdOfLine(): { trace_id?: string } {
  const traceId = currentTraceId();
  return traceId ? { trace_id: traceId } : {};
}

export function createLogger(service: string, level: LevelWithSilent, destination?: pino.DestinationStream): Logger {
  const options = { name: service, level, redact: { paths: REDACT, censor: '[redacted]' }, mixin: traceIdOfLine };
  return destination ? pino(options, destination) : pino(options);
}

/** Express rewrites req.url inside mounted routers; the original URL is what was asked for. */
function pathOf(req: IncomingMessage): string {
  const url = (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '';
  return url.split('?')[0] ?? '';
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
/**
 * Shapes of secrets a client might paste into the header by mistake (or to get it logged): our
 * API keys, JWTs, and long unbroken base64url runs such as opaque OAuth tokens. A UUID or a
 * 32-hex trace id is not one of them.
 */
const SECRET_SHAPED = /^fcs_|^eyJ|[A-Za-z0-9_-]{40,}/i;

/** Whether a client-sent request id is short, plain and not shaped like a key or token. */
export function isSafeRequestId(value: string): boolean {
  return REQUEST_ID.test(value) && !SECRET_SHAPED.test(value);
}

/**
 * Reuses a safe inbound X-Request-Id (so ids pass through every hop) or makes one. Every service
 * applies the same rule, so an id the edge replaced never reaches a log below it either.
 */
export function requestIdOf(req: IncomingMessage): string {
  const inbound = req.headers['x-request-id'];
  return typeof inbound === 'string' && isSafeRequestId(inbound) ? inbound : randomUUID();
}

/**
 * One structured line per request. Headers are not logged at all (they carry keys and
 * tokens); the query string is dropped from the URL because it can carry tokens too.
 */
export function requestLogger(logger: Logger): HttpLogger {
  return pinoHttp({
    logger,
    genReqId: (req: IncomingMessage, res: ServerResponse) => {
      const id = requestIdOf(req);
      req.headers['x-request-id'] = id;
      res.setHeader('x-request-id', id);
      return id;
    },
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
    // The serializers read the raw request and response: pino-http's default wrapping first builds
    // the standard serializers' full objects (every header copied) only for these to pick three fields.
    wrapSerializers: false,
    serializers: {
      req: (req: IncomingMessage & { id?: unknown }) => ({ id: req.id, method: req.method, path: pathOf(req) }),
      res: (res: ServerResponse) => ({ status: res.statusCode }),
    },
    customSuccessMessage: (req, res, responseTime) => `${req.method} ${pathOf(req)} ${res.statusCode} ${Math.round(responseTime)}ms`,
    customErrorMessage: (req, res) => `${req.method} ${pathOf(req)} ${res.statusCode}`,
    // For a 5xx without an error (a health check's 503, a problem answer) pino-http makes one up,
    // "failed with status code N", whose stack is its own: noise on every such line. Real errors
    // keep theirs (the problem handler logs them too).
    customErrorObject: (_req, res, error, line: Record<string, unknown>) => {
      if (res.err !== undefined || error.message !== `failed with status code ${res.statusCode}`) return line;
      const { err: _made, ...rest } = line;
      return rest;
    },
  });
}
