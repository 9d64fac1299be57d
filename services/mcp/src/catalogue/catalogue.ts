import { Agent, request as send } from 'undici';
import { createFragranceClient, type FragranceClient } from '@fragrance/client';
import { traceHeaders } from '@fragrance/tracing';

/** The catalogue answered with a problem (4xx) the caller can fix: becomes a tool error. */
export class CatalogueRejectedError extends Error {
  readonly status: number;
  readonly code: string | undefined;
  readonly invalidParams: readonly { name: string; reason: string }[];
  constructor(status: number, detail: string, code?: string, invalidParams: readonly { name: string; reason: string }[] = []) {
    super(detail);
    this.status = status;
    this.code = code;
    this.invalidParams = invalidParams;
  }
}

/** The catalogue is down, slow or broken: a tool error that says "try later". */
export class CatalogueUnavailableError extends Error {}

/** The internal catalogue service, reached through the typed data API client (`@fragrance/client`). */
export interface Catalogue {
  /** The client for one MCP request: every call carries its request id and trace context. */
  forRequest(requestId: string): FragranceClient;
  close(): Promise<void>;
}

export interface CatalogueOptions {
  /** The catalogue service's origin; it serves the data API's /v1 paths without a key. */
  baseUrl: string;
  timeoutMs: number;
}

type Fetch = (request: Request) => Promise<Response>;

/**
 * A client of the internal catalogue (no API key: it is not exposed publicly) over one keep-alive
 * pool. Failures come out as the two errors the tools map: a 4xx other than 429 is
 * CatalogueRejectedError (with the problem's detail, code and invalid_params), anything else
 * that is not a 2xx JSON answer (no connection, timeout, 5xx, 429, a body that is not JSON) is
 * CatalogueUnavailableError.
 */
export function createCatalogue(options: CatalogueOptions): Catalogue {
  const agent = new Agent({
    keepAliveTimeout: 30_000,
    connections: 64,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  });
  const baseUrl = `${options.baseUrl.replace(/\/+$/, '')}/v1`;
  return {
    forRequest: (requestId) => catalogueClient(baseUrl, catalogueFetch(agent, requestId)),
    close: () => agent.close(),
  };
}

/** The typed client over `fetch` (tests pass one that answers in memory). */
export function catalogueClient(baseUrl: string, fetch: Fetch): FragranceClient {
  return createFragranceClient({ baseUrl, fetch });
}

function catalogueFetch(agent: Agent, requestId: string): Fetch {
  return async (request) => {
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => (headers[name] = value));
    let status: number;
    let text: string;
    try {
      const res = await send(request.url, {
        method: 'GET',
        dispatcher: agent,
        // traceparent: the catalogue's log lines for this call carry the MCP request's trace id.
        headers: { ...headers, accept: 'application/json', ...traceHeaders(), 'x-request-id': requestId },
        signal: request.signal,
      });
      status = res.statusCode;
      text = await res.body.text();
    } catch (error) {
      throw new CatalogueUnavailableError('The catalogue is unavailable.', { cause: error });
    }
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch (error) {
      throw new CatalogueUnavailableError(`The catalogue answered ${status} with a body that is not JSON.`, { cause: error });
    }
    if (status >= 200 && status < 300) {
      if (!text) throw new CatalogueUnavailableError(`The catalogue answered ${status} without a body.`);
      return new Response(text, { status, headers: { 'content-type': 'application/json' } });
    }
    if (status >= 400 && status < 500 && status !== 429) throw rejection(status, body);
    throw new CatalogueUnavailableError(`The catalogue answered ${status}.`);
  };
}

function rejection(status: number, body: unknown): CatalogueRejectedError {
  const problem = (typeof body === 'object' && body !== null ? body : {}) as { detail?: unknown; code?: unknown; invalid_params?: unknown };
  const invalidParams = Array.isArray(problem.invalid_params) ? (problem.invalid_params as { name: string; reason: string }[]) : [];
  return new CatalogueRejectedError(
    status,
    typeof problem.detail === 'string' ? problem.detail : `The catalogue refused the request (${status}).`,
    typeof problem.code === 'string' ? problem.code : undefined,
    invalidParams,
  );
}
