import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pino, type Logger, type LevelWithSilent } from 'pino';
import { pinoHttp, type HttpLogger } from 'pino-http';
import { currentTraceId } from '@fragrance/tracing';

export type { Logger } from 'pino';

/** Paths that must never reach a log line, whatever a caller passes in. */
/** Secret-named fields, at the top of a line and one level down (pino's `*.` matches only the latter). */
const SECRET_NAMES = ['authorization', 'password', 'token', 'access_token', 'refresh_token', 'api_key', 'apiKey', 'secret'];

export const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  ...SECRET_NAMES,
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
  const logger = destination ? pino(options, destination) : pino(options);
  skipRedactionOfUntouchedValues(logger);
  return logger;
}

/**
 * Standard output for a service that logs a line per request: written 4 KB at a time rather than
 * one write(2) a line (a tenth of the CPU of a process answering uncached searches), synchronously
 * so there is no thread-pool handoff. Quiet periods still see their lines within a second, and
 * whatever is buffered is written when the process exits.
 */
export function bufferedStdout(): pino.DestinationStream {
  const destination = pino.destination({ dest: 1, minLength: 4096, sync: true });
  const flush = () => {
    try {
      destination.flushSync();
    } catch {
      // stdout gone (closed pipe): nothing left to write to.
    }
  };
  setInterval(flush, 1_000).unref();
  process.on('exit', flush);
  return destination;
}

/** The own keys that make a field's value need pino's redactor: the wildcard names, and for req its headers. */
const WILDCARD_NAMES = REDACT.filter((path) => path.startsWith('*.')).map((path) => path.slice(2));
const namesFor = (field: string): ReadonlySet<string> =>
  new Set([...WILDCARD_NAMES, ...REDACT.filter((path) => path.startsWith(`${field}.`)).map((path) => path.split('.')[1]!)]);

type Stringifier = (value: unknown, ...rest: unknown[]) => string;

/**
 * pino's redaction (@pinojs/redact 0.4) parses every path again on every call and copies every
 * value it is handed, even a number or a string no path can reach: with wildcard paths that is
 * every field of every line, ~18 KB of garbage and ~10 µs per request line at the edge. A field
 * whose value no path can touch (a primitive, or a plain object with none of the censored names,
 * nor for `req` headers, as an own key) is stringified directly, exactly as the redactor would
 * have; anything else still goes through it. pino keeps one stringifier per redacted field in the
 * instance (children share it): wrapped in place here, under pino's exported symbols. The test
 * compares lines with those of pino's own redaction.
 */
function skipRedactionOfUntouchedValues(logger: Logger): void {
  const { stringifiersSym, stringifySym, stringifySafeSym, redactFmtSym } = pino.symbols;
  const internals = logger as unknown as Record<symbol, unknown>;
  const stringifiers = internals[stringifiersSym] as Record<string | symbol, Stringifier | undefined> | undefined;
  const stringify = internals[stringifySym] as ((value: unknown, safe: unknown) => string) | undefined;
  const stringifySafe = internals[stringifySafeSym];
  if (!stringifiers || typeof stringify !== 'function') return;
  const serialize = (value: unknown) => stringify(value, stringifySafe);
  for (const field of [...Object.keys(stringifiers), ...Object.getOwnPropertySymbols(stringifiers)]) {
    // Formatted messages ("%j") carry whole objects: left to the redactor.
    if (field === redactFmtSym) continue;
    const redact = stringifiers[field];
    if (typeof redact !== 'function') continue;
    // A field that is itself a path is censored whatever its value: pino's own stringifier stays.
    if (typeof field === 'string' && REDACT.includes(field)) continue;
    const names = namesFor(typeof field === 'string' ? field : '*');
    stringifiers[field] = (value, ...rest) => {
      if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
      if (typeof value === 'object' && value !== null && untouched(value, names)) return serialize(value);
      return redact(value, ...rest);
    };
  }
}

/** A plain object with none of `names` as an own key: nothing a redaction path could replace. */
function untouched(value: object, names: ReadonlySet<string>): boolean {
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return false;
  for (const key in value) if (names.has(key) && Object.prototype.hasOwnProperty.call(value, key)) return false;
  return true;
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
