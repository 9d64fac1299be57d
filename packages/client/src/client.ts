import createClient, { type Client } from 'openapi-fetch';
import { setTimeout as sleep } from 'node:timers/promises';
import { Problem, type ProblemCode } from '@fragrance/contracts';
import type { components, paths } from './generated/openapi.ts';

type Schemas = components['schemas'];
type QueryOf<P extends keyof paths> = paths[P]['get'] extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

export type SearchQuery = QueryOf<'/fragrances'>;
export type SuggestQuery = QueryOf<'/suggest'>;
export type BrandsQuery = QueryOf<'/brands'>;
export type TermsQuery = QueryOf<'/notes'>;
export type SimilarQuery = QueryOf<'/fragrances/{id}/similar'>;
export type UsageQuery = QueryOf<'/usage'>;
export type SearchUsageQuery = QueryOf<'/usage/searches'>;
export type ExportQuery = QueryOf<'/fragrances/export'>;
export type UsageResponse = Schemas['UsageResponse'];
export type SearchUsageResponse = Schemas['SearchUsageResponse'];
export type SearchResponse = Schemas['SearchResponse'];
export type SearchHit = Schemas['SearchHit'];
export type FragranceDetail = Schemas['FragranceDetail'];

/** Waiting on 429s: off unless asked for, and always bounded. */
export interface RetryOptions {
  /** Retries of one request after a 429 (default 3). */
  maxRetries?: number;
  /** A 429 asking for a longer wait than this is not waited for (default 10 s): a daily quota is not. */
  maxWaitSeconds?: number;
}

export interface ClientOptions {
  /** The API's base URL, ending in /v1, e.g. http://127.0.0.1:8080/v1. */
  baseUrl: string;
  /**
   * Sent as `Authorization: Bearer <key>`. Every endpoint of the public API needs it; leave it out
   * only for the internal catalogue service, which serves the same /v1 paths behind the gateway.
   */
  apiKey?: string;
  /** Wait and retry on 429 using the answer's `retry_after_seconds`; `true` for the defaults. */
  retryOn429?: boolean | RetryOptions;
  /** Another fetch (a proxy agent, a test's recorder); the global one by default. */
  fetch?: (request: Request) => Promise<Response>;
}

/**
 * A refused request: the API's problem+json (RFC 9457) as a typed error. `code` is one of the
 * contract's PROBLEM_CODES to switch on; `problem` is null only when the answer was not
 * problem+json (e.g. a proxy's HTML page in front of the API).
 */
export class FragranceApiError extends Error {
  override readonly name = 'FragranceApiError';
  readonly status: number;
  readonly code: ProblemCode | null;
  readonly problem: Problem | null;
  readonly requestId: string | null;
  /** On 429: whole seconds until a retry can succeed. */
  readonly retryAfterSeconds: number | null;

  constructor(status: number, body: unknown, headers: Headers) {
    const parsed = Problem.safeParse(body);
    const problem = parsed.success ? parsed.data : null;
    super(problem ? `${status} ${problem.code}: ${problem.detail ?? problem.title}` : `HTTP ${status} (not a problem+json answer)`);
    this.status = status;
    this.problem = problem;
    this.code = problem?.code ?? null;
    this.requestId = problem?.request_id ?? headers.get('x-request-id');
    const retryAfter = problem?.retry_after_seconds ?? Number(headers.get('retry-after') ?? Number.NaN);
    this.retryAfterSeconds = Number.isInteger(retryAfter) && retryAfter > 0 ? retryAfter : null;
  }
}

/** Seconds a 429 asks to wait: `retry_after_seconds` of its body, else `Retry-After`. */
async function retryAfterOf(response: Response): Promise<number | null> {
  const body: unknown = await response
    .clone()
    .json()
    .catch(() => null);
  const parsed = Problem.safeParse(body);
  const seconds = parsed.success ? parsed.data.retry_after_seconds : Number(response.headers.get('retry-after') ?? Number.NaN);
  return seconds !== undefined && Number.isFinite(seconds) && seconds > 0 ? seconds : null;
}

/** fetch that waits out 429s within the bounds, then gives the last answer back as it came. */
function retryingFetch(inner: (request: Request) => Promise<Response>, options: RetryOptions): (request: Request) => Promise<Response> {
  const maxRetries = options.maxRetries ?? 3;
  const maxWaitSeconds = options.maxWaitSeconds ?? 10;
  return async (request) => {
    for (let attempt = 0; ; attempt += 1) {
      // The data API is read-only (GET, no body): a clone is a faithful resend.
      const response = await inner(request.clone());
      if (response.status !== 429 || attempt >= maxRetries) return response;
      const seconds = await retryAfterOf(response);
      if (seconds === null || seconds > maxWaitSeconds) return response;
      await response.body?.cancel();
      await sleep(seconds * 1000, undefined, { signal: request.signal });
    }
  };
}

/** Data of a typed call, or the problem it answered as a FragranceApiError. */
async function dataOf<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (error !== undefined || !response.ok) throw new FragranceApiError(response.status, error, response.headers);
  if (data === undefined) throw new FragranceApiError(response.status, null, response.headers);
  return data;
}

/** Records of an NDJSON stream, one JSON value per complete line (a last line without a newline included). */
async function* ndjsonRecords<T>(stream: ReadableStream<Uint8Array>): AsyncGenerator<T, void, undefined> {
  const decoder = new TextDecoder();
  let pending = '';
  for await (const chunk of stream) {
    pending += decoder.decode(chunk, { stream: true });
    let newline = pending.indexOf('\n');
    while (newline !== -1) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      if (line.trim() !== '') yield JSON.parse(line) as T;
      newline = pending.indexOf('\n');
    }
  }
  pending += decoder.decode();
  if (pending.trim() !== '') yield JSON.parse(pending) as T;
}

export interface FragranceClient {
  /** The generated, fully typed openapi-fetch client: every path of the document (`api.GET('/brands/{slug}', …)`). */
  readonly api: Client<paths>;
  me(): Promise<Schemas['MeResponse']>;
  search(query?: SearchQuery): Promise<SearchResponse>;
  /** Every hit of a search, page after page through `next_cursor` (one counted request per page). */
  searchAll(query?: Omit<SearchQuery, 'cursor' | 'offset'>): AsyncGenerator<SearchHit, void, undefined>;
  fragrance(id: string): Promise<FragranceDetail>;
  similar(id: string, query?: SimilarQuery): Promise<Schemas['SimilarResponse']>;
  suggest(query: SuggestQuery): Promise<Schemas['SuggestResponse']>;
  brands(query?: BrandsQuery): Promise<Schemas['BrandList']>;
  brand(slug: string): Promise<Schemas['BrandDetail']>;
  terms(kind: 'notes' | 'accords' | 'perfumers', query?: TermsQuery): Promise<Schemas['TermList']>;
  notes(query?: TermsQuery): Promise<Schemas['TermList']>;
  accords(query?: TermsQuery): Promise<Schemas['TermList']>;
  perfumers(query?: TermsQuery): Promise<Schemas['TermList']>;
  /** The key's counted requests per quota day (free: not counted against the quota). */
  usage(query?: UsageQuery): Promise<UsageResponse>;
  /** What the key's owner searched for on one quota day: top, zero-result and relaxed queries (free). */
  searchUsage(query?: SearchUsageQuery): Promise<SearchUsageResponse>;
  /**
   * The export's NDJSON body as it arrives, not buffered (billed up front: one counted request per
   * 1,000 records). `gzip` asks for a compressed transfer; the global fetch decodes it, a custom
   * `fetch` may hand the compressed bytes through.
   */
  exportStream(query?: ExportQuery, options?: { gzip?: boolean }): Promise<ReadableStream<Uint8Array>>;
  /**
   * Every record of an export, parsed line by line as it streams. After a broken connection,
   * resume with `after: \`${last.updated_at},${last.id}\`` of the last record received.
   */
  exportAll(query?: ExportQuery): AsyncGenerator<FragranceDetail, void, undefined>;
}

/** A client of the data API that sends the key, throws FragranceApiError, and optionally waits out 429s. */
export function createFragranceClient(options: ClientOptions): FragranceClient {
  const base = options.fetch ?? ((request: Request) => fetch(request));
  const retry = options.retryOn429 === true ? {} : options.retryOn429 === false ? null : (options.retryOn429 ?? null);
  const api = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: options.apiKey === undefined ? {} : { authorization: `Bearer ${options.apiKey}` },
    fetch: retry ? retryingFetch(base, retry) : base,
    // The document's list parameters are `style: form, explode: false` (note=a,b): the API refuses
    // a repeated parameter, which is openapi-fetch's default for arrays.
    querySerializer: { array: { style: 'form', explode: false } },
  });
  const exportStream = async (query: ExportQuery = {}, { gzip = false } = {}) => {
    const body = await dataOf(
      api.GET('/fragrances/export', {
        params: { query, ...(gzip ? { header: { 'Accept-Encoding': 'gzip' } } : {}) },
        parseAs: 'stream',
      }),
    );
    if (body === null) throw new Error('the export answered without a body');
    return body;
  };
  const search = (query: SearchQuery = {}) => dataOf(api.GET('/fragrances', { params: { query } }));
  return {
    api,
    me: () => dataOf(api.GET('/me')),
    search,
    async *searchAll(query = {}) {
      let cursor: string | undefined;
      do {
        const page = await search(cursor === undefined ? query : { ...query, cursor });
        yield* page.data;
        cursor = page.next_cursor ?? undefined;
      } while (cursor !== undefined);
    },
    fragrance: (id) => dataOf(api.GET('/fragrances/{id}', { params: { path: { id } } })),
    similar: (id, query = {}) => dataOf(api.GET('/fragrances/{id}/similar', { params: { path: { id }, query } })),
    suggest: (query) => dataOf(api.GET('/suggest', { params: { query } })),
    brands: (query = {}) => dataOf(api.GET('/brands', { params: { query } })),
    brand: (slug) => dataOf(api.GET('/brands/{slug}', { params: { path: { slug } } })),
    terms: (kind, query = {}) => dataOf(api.GET(`/${kind}`, { params: { query } })),
    notes: (query = {}) => dataOf(api.GET('/notes', { params: { query } })),
    accords: (query = {}) => dataOf(api.GET('/accords', { params: { query } })),
    perfumers: (query = {}) => dataOf(api.GET('/perfumers', { params: { query } })),
    usage: (query = {}) => dataOf(api.GET('/usage', { params: { query } })),
    searchUsage: (query = {}) => dataOf(api.GET('/usage/searches', { params: { query } })),
    exportStream,
    async *exportAll(query = {}) {
      yield* ndjsonRecords<FragranceDetail>(await exportStream(query));
    },
  };
}
