import { Agent, request } from 'undici';
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

export type QueryValue = string | number | boolean | readonly (string | number)[] | undefined;

export interface CatalogueClient {
  /** GET a catalogue path with query parameters; resolves to the parsed JSON body. */
  get(path: string, query?: Readonly<Record<string, QueryValue>>, requestId?: string): Promise<unknown>;
  close(): Promise<void>;
}

export interface CatalogueClientOptions {
  baseUrl: string;
  timeoutMs: number;
}

/** Builds `?a=1&b=x&b=y` (arrays repeat the parameter), skipping undefined values. */
export function toQueryString(query: Readonly<Record<string, QueryValue>>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) params.append(name, String(item));
    else params.append(name, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** HTTP client of the internal catalogue service (no API key: it is not exposed publicly). */
export function createCatalogueClient(options: CatalogueClientOptions): CatalogueClient {
  const agent = new Agent({ keepAliveTimeout: 30_000, connections: 64 });
  return {
    async get(path, query = {}, requestId) {
      let res;
      try {
        res = await request(`${options.baseUrl}${path}${toQueryString(query)}`, {
          method: 'GET',
          dispatcher: agent,
          // traceparent: the catalogue's log lines for this call carry the MCP request's trace id.
          headers: { accept: 'application/json', ...traceHeaders(), ...(requestId ? { 'x-request-id': requestId } : {}) },
          headersTimeout: options.timeoutMs,
          bodyTimeout: options.timeoutMs,
        });
      } catch (error) {
        throw new CatalogueUnavailableError('The catalogue is unavailable.', { cause: error });
      }
      const text = await res.body.text();
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch (error) {
        throw new CatalogueUnavailableError(`The catalogue answered ${res.statusCode} with a body that is not JSON.`, { cause: error });
      }
      if (res.statusCode >= 200 && res.statusCode < 300) return body;
      if (res.statusCode >= 400 && res.statusCode < 500 && res.statusCode !== 429) {
        const problem = (body ?? {}) as { detail?: unknown; code?: unknown; invalid_params?: unknown };
        const invalidParams = Array.isArray(problem.invalid_params) ? (problem.invalid_params as { name: string; reason: string }[]) : [];
        throw new CatalogueRejectedError(
          res.statusCode,
          typeof problem.detail === 'string' ? problem.detail : `The catalogue refused the request (${res.statusCode}).`,
          typeof problem.code === 'string' ? problem.code : undefined,
          invalidParams,
        );
      }
      throw new CatalogueUnavailableError(`The catalogue answered ${res.statusCode}.`);
    },
    close: () => agent.close(),
  };
}
