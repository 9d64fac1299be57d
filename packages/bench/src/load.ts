import { Readable } from 'node:stream';
import { build, type Histogram } from 'hdr-histogram-js';
import { Pool, type Dispatcher } from 'undici';
import { createFragranceClient, FragranceApiError, type FragranceClient } from '@fragrance/client';
import { seededRandom } from './random.ts';

/** One request of a load mix. `path` includes the query string. */
export interface LoadRequest {
  method?: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * One request of a load mix sent through the project's typed client (`c => c.search({...})`),
 * over the load's own connection pool: how a customer calls the data API, at bench throughput.
 */
export type ClientCall = (client: FragranceClient) => Promise<unknown>;

/** Statuses whose answers have no body (a Response refuses one). */
const NULL_BODY = new Set([101, 204, 205, 304]);

/**
 * A `fetch` for `createFragranceClient` that sends over an undici dispatcher (a Pool of kept-alive
 * connections) with `dispatcher.request`, much lighter than WHATWG fetch. The body is handed on as
 * it came over the wire (no content decoding: the client asks for gzip only when told to).
 * `stream: false` (the default) reads a body whole before answering, cheapest for small JSON;
 * `stream: true` passes it on as it arrives (an export). `onStatus` sees every answer's status.
 */
export function dispatcherFetch(
  dispatcher: Dispatcher,
  options: { stream?: boolean; onStatus?: (status: number) => void } = {},
): (request: Request) => Promise<Response> {
  return async (request) => {
    const url = new URL(request.url);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => (headers[name] = value));
    const answer = await dispatcher.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: request.method,
      headers,
      // The data API is read-only: GETs without a body.
      signal: request.signal,
    });
    options.onStatus?.(answer.statusCode);
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (Array.isArray(value)) for (const item of value) responseHeaders.append(name, item);
      else if (value !== undefined) responseHeaders.set(name, value);
    }
    const init = { status: answer.statusCode, headers: responseHeaders };
    if (NULL_BODY.has(answer.statusCode) || request.method === 'HEAD') {
      await answer.body.dump();
      return new Response(null, init);
    }
    if (options.stream) return new Response(Readable.toWeb(answer.body) as ReadableStream<Uint8Array>, init);
    return new Response(await answer.body.arrayBuffer(), init);
  };
}

export interface LoadOptions {
  /** Origin only, e.g. http://127.0.0.1:8081. */
  url: string;
  concurrency: number;
  durationMs: number;
  /** Stop after this many requests (warm-up included) even before the duration ends. */
  maxRequests?: number;
  /**
   * Builds the next request; `random` is seeded, so the mix is reproducible. A ClientCall goes
   * through @fragrance/client (base URL `<url>/v1`, `apiKey`); a LoadRequest is sent as it is.
   */
  next: (random: () => number, sequence: number) => LoadRequest | ClientCall;
  /** The key the client sends on ClientCalls (none for the internal catalogue). */
  apiKey?: string;
  seed?: number;
  /** Requests during the warm-up are sent but not measured. */
  warmupMs?: number;
  /** Headers added to every request (e.g. an API key). */
  headers?: Record<string, string>;
  /** Which statuses count as success; default 2xx and 304. */
  ok?: (status: number) => boolean;
  /**
   * Record into this histogram (microseconds) instead of a fresh one, so several runs (e.g.
   * interleaved rounds) add up; percentiles are then over everything it holds.
   */
  histogram?: Histogram;
}

export interface LoadResult {
  requests: number;
  errors: number;
  duration_s: number;
  rps: number;
  p50_ms: number;
  p90_ms: number;
  p99_ms: number;
  max_ms: number;
  mean_ms: number;
  statuses: Record<string, number>;
}

const defaultOk = (status: number) => (status >= 200 && status < 300) || status === 304;

/** How one worker sends: the shared pool, the raw driver's headers, what counts as ok, its own client. */
interface Sender {
  pool: Pool;
  headers: Record<string, string>;
  ok: (status: number) => boolean;
  client: FragranceClient;
  /** The status the client's last answer had (set by its fetch). */
  answered: { status: number };
}

/** One request, by the client or as a bare pool request: its status ('error' when none came back) and whether it counts as ok. */
async function send(request: ClientCall | LoadRequest, { pool, headers, ok, client, answered }: Sender) {
  try {
    if (typeof request === 'function') {
      answered.status = 0;
      await request(client);
      return { status: String(answered.status), good: ok(answered.status) };
    }
    const res = await pool.request({
      method: request.method ?? 'GET',
      path: request.path,
      headers: { ...headers, ...request.headers },
      body: request.body,
    });
    await res.body.dump({ limit: Number.POSITIVE_INFINITY });
    return { status: String(res.statusCode), good: ok(res.statusCode) };
  } catch (error) {
    // A refusal the client turned into FragranceApiError still has its status.
    return { status: error instanceof FragranceApiError ? String(error.status) : 'error', good: false };
  }
}

/**
 * Closed-loop load: `concurrency` workers each send a request, wait for the full response,
 * and send the next, until the duration ends. Latency is recorded in microseconds in an HDR
 * histogram; non-ok statuses and transport failures count as errors (and are still timed).
 */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const { url, concurrency, durationMs, next, seed = 42, warmupMs = 0, headers = {}, ok = defaultOk } = options;
  const maxRequests = options.maxRequests ?? Number.POSITIVE_INFINITY;
  const owned = options.histogram === undefined;
  const pool = new Pool(url, { connections: concurrency, pipelining: 1, keepAliveTimeout: 30_000 });
  const histogram = options.histogram ?? newLatencyHistogram();
  const random = seededRandom(seed);
  const statuses: Record<string, number> = {};
  let sequence = 0;
  let requests = 0;
  let errors = 0;

  const started = performance.now();
  const measureFrom = started + warmupMs;
  const end = measureFrom + durationMs;

  async function worker(): Promise<void> {
    // One client per worker, over the shared pool, so the status it records is its own request's.
    const answered = { status: 0 };
    const client = createFragranceClient({
      baseUrl: `${url}/v1`,
      ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
      fetch: dispatcherFetch(pool, { onStatus: (status) => (answered.status = status) }),
    });
    const sender: Sender = { pool, headers, ok, client, answered };
    while (performance.now() < end && sequence < maxRequests) {
      const request = next(random, sequence++);
      const t0 = performance.now();
      const { status, good } = await send(request, sender);
      const t1 = performance.now();
      if (t0 < measureFrom) continue;
      requests += 1;
      if (!good) errors += 1;
      statuses[status] = (statuses[status] ?? 0) + 1;
      histogram.recordValue(Math.max(1, Math.round((t1 - t0) * 1000)));
    }
  }

  try {
    await Promise.all(Array.from({ length: concurrency }, () => worker()));
  } finally {
    await pool.close();
  }
  const elapsed = (performance.now() - Math.max(started, measureFrom)) / 1000;
  const ms = (micros: number) => Math.round(micros) / 1000;
  const result: LoadResult = {
    requests,
    errors,
    duration_s: Math.round(elapsed * 100) / 100,
    rps: Math.round((requests / elapsed) * 10) / 10,
    p50_ms: ms(histogram.getValueAtPercentile(50)),
    p90_ms: ms(histogram.getValueAtPercentile(90)),
    p99_ms: ms(histogram.getValueAtPercentile(99)),
    max_ms: ms(histogram.maxValue),
    mean_ms: ms(histogram.mean),
    statuses,
  };
  if (owned) histogram.destroy();
  return result;
}

/** A latency histogram in microseconds, 1 µs to 120 s, 3 significant digits. */
export function newLatencyHistogram(): Histogram {
  return build({ lowestDiscernibleValue: 1, highestTrackableValue: 120_000_000, numberOfSignificantValueDigits: 3 });
}
