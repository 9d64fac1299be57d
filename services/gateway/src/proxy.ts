import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { Writable } from 'node:stream';
import type { Request, RequestHandler, Response } from 'express';
import { Agent, errors as undiciErrors } from 'undici';
import { PayloadTooLargeError, UpstreamError } from '@fragrance/http';
import { CATALOGUE_GENERATION_HEADER } from '@fragrance/response-cache';
import { upstreamErrors } from './metrics.ts';

/** Headers that describe one hop, not the message (RFC 9110 §7.6.1), plus ones we recompute. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
  // Node answers `Expect: 100-continue` to the client itself and the body is buffered here, so the
  // expectation is met at this hop (undici refuses to send the header at all).
  'expect',
  // Internal between the catalogue and the edge cache: never relayed, nor taken from a client.
  CATALOGUE_GENERATION_HEADER,
]);

export interface ProxyOptions {
  /** The upstream's name in metrics (catalogue, auth, mcp). */
  name: string;
  /** Origin of the upstream service, e.g. http://127.0.0.1:8081. */
  upstream: string;
  agent: Agent;
  /** Time allowed for the upstream's response headers. */
  timeoutMs: number;
  /**
   * Longest silence between response body chunks (default timeoutMs); 0 for long-lived streams
   * such as MCP's server-sent events.
   */
  bodyIdleTimeoutMs?: number;
  /** Strip these request headers before forwarding (e.g. the customer's API key). */
  dropRequestHeaders?: readonly string[];
  /** Largest request body forwarded (default 1 MiB); a larger one is refused with 413. */
  maxBodyBytes?: number;
  /**
   * The public origin (scheme://host[:port]) the upstream should believe it is served at. When
   * set, X-Forwarded-Proto/Host come from it rather than from the client's Host header, so
   * metadata an upstream builds from them (OAuth endpoints) cannot be pointed elsewhere.
   */
  publicOrigin?: string;
}

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/**
 * Reads a request body into memory, refusing it (413) as soon as it is known to pass the limit.
 * Buffering the small bodies the edge forwards (OAuth forms, MCP messages) lets an upstream
 * answer before reading them (a 401, a 400) without the hop turning that answer into a 502.
 */
async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  if (Number(req.headers['content-length'] ?? 0) > limit) throw new PayloadTooLargeError(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new PayloadTooLargeError(limit);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/**
 * How long an idle upstream connection is kept when the upstream gives no `Keep-Alive: timeout`
 * hint, as HAProxy does not (its `timeout http-keep-alive` is 10 s in the cluster; Node's servers
 * send a hint of 5 s, which the agent follows). Shorter than any upstream's, so the gateway never
 * sends a request on a connection the upstream is closing: that request fails ("other side
 * closed") and the client gets a 502.
 */
export const UPSTREAM_IDLE_MS = 4_000;

/** One keep-alive connection pool per upstream, shared by every proxied route to it. */
export function createUpstreamAgent(): Agent {
  return new Agent({ keepAliveTimeout: UPSTREAM_IDLE_MS, keepAliveMaxTimeout: 60_000, connections: 128, pipelining: 1 });
}

function forwardedHeaders(headers: IncomingHttpHeaders, drop: ReadonlySet<string>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  // for…in over Node's own header object (no inherited keys): no entry arrays per request.
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || HOP_BY_HOP.has(name) || drop.has(name)) continue;
    out[name] = value;
  }
  return out;
}

/** What every proxied request to one upstream shares: where it goes and which headers it drops. */
function upstreamTarget(options: ProxyOptions) {
  const drop = new Set((options.dropRequestHeaders ?? []).map((h) => h.toLowerCase()));
  const publicOrigin = options.publicOrigin ? new URL(options.publicOrigin) : undefined;
  const upstream = new URL(options.upstream);
  // A base path in the upstream's URL (none by default) still prefixes every forwarded path.
  const basePath = upstream.pathname.replace(/\/$/, '');
  return {
    origin: upstream.origin,
    path: (req: Request) => `${basePath}${req.originalUrl}`,
    /** The request's headers as forwarded: hop-by-hop and dropped ones removed, X-Forwarded-* set. */
    headers(req: Request): Record<string, string | string[]> {
      const headers = forwardedHeaders(req.headers, drop);
      headers['x-forwarded-for'] = req.socket.remoteAddress ?? '';
      headers['x-forwarded-proto'] = publicOrigin ? publicOrigin.protocol.slice(0, -1) : req.protocol;
      headers['x-forwarded-host'] = publicOrigin ? publicOrigin.host : (req.headers.host ?? '');
      return headers;
    },
  };
}

/** An upstream's answer read whole (the edge cache keeps some of them). */
export interface UpstreamAnswer {
  statusCode: number;
  /** Its headers but hop-by-hop ones (and the internal generation header, given apart). */
  headers: Record<string, string | string[]>;
  /** CATALOGUE_GENERATION_HEADER: the catalogue generation the answer was computed under, when it says. */
  generation: string | undefined;
  body: Buffer;
}

export interface ForwardOptions {
  /** Request headers set on top of the forwarded ones (internal ones the edge adds). */
  addRequestHeaders?: Readonly<Record<string, string>>;
  /**
   * Decides from the answer's status and headers whether to read it whole and hand it back
   * (an answer the edge cache may keep) instead of streaming it to the client as it comes.
   */
  collect?: (
    statusCode: number,
    headers: Readonly<Record<string, string | string[] | undefined>>,
    generation: string | undefined,
  ) => boolean;
}

/**
 * Forwards one request: `undefined` once the answer has been streamed to the client (or cut
 * mid-body: the response is destroyed), or the answer read whole when `collect` asked for it
 * (nothing sent yet). Fails with UpstreamError before anything is sent: unreachable → 503,
 * timeout → 504, anything else broken (a collected body included) → 502.
 */
export type Forward = (req: Request, res: Response, options?: ForwardOptions) => Promise<UpstreamAnswer | undefined>;

/**
 * The forwarder of proxyTo and the edge cache. Never hangs past timeoutMs waiting for headers,
 * nor past the body idle timeout. undici's stream() writes the upstream body straight into the
 * response: measured at about half the CPU per request of request() + pipeline().
 */
export function upstreamForwarder(options: ProxyOptions): Forward {
  const target = upstreamTarget(options);
  const origin = target.origin;
  const failed = (error: unknown): UpstreamError => {
    const upstreamError = toUpstreamError(error);
    upstreamErrors.inc({
      upstream: options.name,
      kind: upstreamError.status === 504 ? 'timeout' : upstreamError.status === 503 ? 'unavailable' : 'failed',
    });
    return upstreamError;
  };
  return async (req, res, { addRequestHeaders, collect } = {}) => {
    const headers = target.headers(req);
    if (addRequestHeaders) Object.assign(headers, addRequestHeaders);
    // readBody's 413 (a PayloadTooLargeError) goes to the caller as it is.
    const body = req.method !== 'GET' && req.method !== 'HEAD' ? await readBody(req, options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES) : null;
    let started = false;
    let collected: UpstreamAnswer | undefined;
    try {
      // Straight to the agent with origin and path: the top-level stream(url) would parse a URL per request.
      await options.agent.stream(
        {
          origin,
          path: target.path(req),
          method: req.method,
          headers,
          body,
          headersTimeout: options.timeoutMs,
          // A stalled body ends the response instead of hanging it.
          bodyTimeout: options.bodyIdleTimeoutMs ?? options.timeoutMs,
        },
        ({ statusCode, headers: upstreamHeaders }) => {
          const mark = upstreamHeaders[CATALOGUE_GENERATION_HEADER];
          const generation = typeof mark === 'string' ? mark : undefined;
          if (collect?.(statusCode, upstreamHeaders, generation)) {
            const kept: Record<string, string | string[]> = {};
            for (const name in upstreamHeaders) {
              const value = upstreamHeaders[name];
              if (value !== undefined && !HOP_BY_HOP.has(name)) kept[name] = value;
            }
            const answer: UpstreamAnswer = { statusCode, headers: kept, generation, body: Buffer.alloc(0) };
            collected = answer;
            const chunks: Buffer[] = [];
            return new Writable({
              write(chunk: Buffer, _encoding, callback) {
                chunks.push(chunk);
                callback();
              },
              final(callback) {
                answer.body = Buffer.concat(chunks);
                callback();
              },
            });
          }
          started = true;
          res.statusCode = statusCode;
          for (const name in upstreamHeaders) {
            const value = upstreamHeaders[name];
            if (value !== undefined && !HOP_BY_HOP.has(name)) res.setHeader(name, value);
          }
          return res;
        },
      );
    } catch (error) {
      if (!started) throw failed(error);
      upstreamErrors.inc({ upstream: options.name, kind: 'response_cut' });
      // Also the normal path of a client that hung up mid-response.
      req.log?.warn({ err: error }, 'upstream response stream ended early');
      res.destroy();
      return undefined;
    }
    return collected;
  };
}

/**
 * Streams a request to the upstream and its response back (upstreamForwarder). Failures before
 * the response starts become problem+json: unreachable → 503, timeout → 504, anything else
 * broken → 502; a failure mid-body cuts the response (its status is already out).
 */
export function proxyTo(options: ProxyOptions): RequestHandler {
  const forward = upstreamForwarder(options);
  return async (req, res, next) => {
    try {
      await forward(req, res);
    } catch (error) {
      next(error);
    }
  };
}

function toUpstreamError(error: unknown): UpstreamError {
  if (error instanceof undiciErrors.HeadersTimeoutError || error instanceof undiciErrors.ConnectTimeoutError) {
    return new UpstreamError(504, 'The upstream service did not answer in time.', error);
  }
  const code = (error as { code?: string }).code;
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EHOSTUNREACH') {
    return new UpstreamError(503, 'The upstream service is unavailable.', error);
  }
  return new UpstreamError(502, 'The upstream service failed.', error);
}
