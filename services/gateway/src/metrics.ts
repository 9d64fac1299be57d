import { cacheGauges, Counter, Gauge, Histogram } from '@fragrance/metrics';

/** The gateway's own metrics (docs/observability.md); labels are outcomes, never keys or owners. */
export const admissions = new Counter({
  name: 'gateway_admissions_total',
  help: 'API-key admissions by mode (admit charges, peek does not) and outcome.',
  labelNames: ['mode', 'outcome'] as const,
});

export type AdmissionOutcome =
  | 'admitted'
  | 'admitted_locally'
  | 'quota_exceeded_locally'
  | 'local_allowance_exhausted'
  | 'quota_exceeded'
  | 'burst_limit_exceeded'
  | 'visitor_limit_exceeded'
  | 'key_expired'
  | 'key_rolled'
  | 'not_allowed_scope'
  | 'not_allowed_origin'
  | 'not_allowed_limit'
  | 'secret_key_in_browser'
  | 'unknown_key'
  | 'revoked'
  | 'malformed_key'
  | 'missing_key'
  | 'redis_unavailable';

export const upstreamErrors = new Counter({
  name: 'gateway_upstream_errors_total',
  help: 'Proxied requests that failed on the way to or from an upstream service, by upstream and kind.',
  labelNames: ['upstream', 'kind'] as const,
});

export const edgeCacheLookups = new Counter({
  name: 'gateway_edge_cache_lookups_total',
  help: 'Edge cache lookups of GET data requests by route and outcome (hit, miss, stale, shared, uncacheable, bypass).',
  labelNames: ['route', 'outcome'] as const,
});

export type EdgeCacheOutcome = 'hit' | 'miss' | 'stale' | 'shared' | 'uncacheable' | 'bypass';

/** What the edge cache holds (gateway_edge_cache_bytes, _entries), read at scrape time. */
export const {
  observe: observeEdgeCache,
  bytes: edgeCacheBytes,
  entries: edgeCacheEntries,
} = cacheGauges('gateway_edge_cache', 'edge cache');

export const redisDuration = new Histogram({
  name: 'gateway_redis_duration_seconds',
  help: 'Latency of the Redis calls on the request path (admission, refund), by operation and result.',
  labelNames: ['operation', 'result'] as const,
  buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
});

/** One labels object per operation and result, made once: every data request observes one. */
const redisLabels = new Map<string, { ok: { operation: string; result: 'ok' }; error: { operation: string; result: 'error' } }>();
function redisLabelsOf(operation: string) {
  let labels = redisLabels.get(operation);
  if (!labels) {
    labels = { ok: { operation, result: 'ok' }, error: { operation, result: 'error' } };
    redisLabels.set(operation, labels);
  }
  return labels;
}

/**
 * Times one Redis-backed call: `result` is ok or error, whatever the call's own answer. (Not
 * prom-client's startTimer, which makes a closure and merges two label objects per call.)
 */
export async function timedRedisCall<T>(operation: string, call: () => Promise<T>): Promise<T> {
  const labels = redisLabelsOf(operation);
  const started = performance.now();
  try {
    const value = await call();
    redisDuration.observe(labels.ok, (performance.now() - started) / 1000);
    return value;
  } catch (error) {
    redisDuration.observe(labels.error, (performance.now() - started) / 1000);
    throw error;
  }
}

/** What the degraded admission reports at scrape time (degraded-admission.ts registers it). */
let degradedSource: { degraded: () => boolean; backlog: () => number } | undefined;
export const observeDegradedAdmission = (source: typeof degradedSource) => void (degradedSource = source);

export const degradedGauge = new Gauge({
  name: 'gateway_admission_degraded',
  help: '1 while this instance admits without Redis (a degraded period), else 0.',
  collect() {
    this.set(degradedSource?.degraded() ? 1 : 0);
  },
});

export const journalBacklog = new Gauge({
  name: 'gateway_admission_journal_backlog',
  help: 'Requests admitted without Redis and not yet replayed into it (the local journal).',
  collect() {
    this.set(degradedSource?.backlog() ?? 0);
  },
});

export const replayedAdmissions = new Counter({
  name: 'gateway_admission_replayed_total',
  help: 'Journalled local admissions acknowledged by Redis on replay, by result (counted now, or already counted before).',
  labelNames: ['result'] as const,
});

export const failoverReplays = new Counter({
  name: 'gateway_admission_failover_replayed_total',
  help: 'Recent admissions and refunds replayed after Redis changed server (failover, restart), by result.',
  labelNames: ['result'] as const,
});

export const degradedPeriods = new Counter({
  name: 'gateway_admission_degraded_periods_total',
  help: 'Degraded periods (Redis unreachable for admission) that ended.',
});

export const degradedSeconds = new Counter({
  name: 'gateway_admission_degraded_seconds_total',
  help: 'Seconds spent in degraded periods that ended.',
});
