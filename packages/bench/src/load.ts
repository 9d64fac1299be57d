import { build, type Histogram } from 'hdr-histogram-js';
import { Pool } from 'undici';
import { seededRandom } from './random.ts';

/** One request of a load mix. `path` includes the query string. */
export interface LoadRequest {
  method?: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadOptions {
  /** Origin only, e.g. http://127.0.0.1:8081. */
  url: string;
  concurrency: number;
  durationMs: number;
  /** Builds the next request; `random` is seeded, so the mix is reproducible. */
  next: (random: () => number, sequence: number) => LoadRequest;
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

/**
 * Closed-loop load: `concurrency` workers each send a request, wait for the full response,
 * and send the next, until the duration ends. Latency is recorded in microseconds in an HDR
 * histogram; non-ok statuses and transport failures count as errors (and are still timed).
 */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const { url, concurrency, durationMs, next, seed = 42, warmupMs = 0, headers = {}, ok = defaultOk } = options;
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
    while (performance.now() < end) {
      const request = next(random, sequence++);
      const t0 = performance.now();
      let status = 'error';
      let good: boolean;
      try {
        const res = await pool.request({
          method: request.method ?? 'GET',
          path: request.path,
          headers: { ...headers, ...request.headers },
          body: request.body,
        });
        await res.body.dump({ limit: Number.POSITIVE_INFINITY });
        status = String(res.statusCode);
        good = ok(res.statusCode);
      } catch {
        good = false;
      }
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
