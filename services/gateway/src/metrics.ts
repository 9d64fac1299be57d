import { Counter, Histogram } from '@fragrance/metrics';

/** The gateway's own metrics (docs/observability.md); labels are outcomes, never keys or owners. */
export const admissions = new Counter({
  name: 'gateway_admissions_total',
  help: 'API-key admissions by mode (admit charges, peek does not) and outcome.',
  labelNames: ['mode', 'outcome'] as const,
});

export type AdmissionOutcome =
  | 'admitted'
  | 'quota_exceeded'
  | 'burst_limit_exceeded'
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

export const redisDuration = new Histogram({
  name: 'gateway_redis_duration_seconds',
  help: 'Latency of the Redis calls on the request path (admission, refund), by operation and result.',
  labelNames: ['operation', 'result'] as const,
  buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
});

/** Times one Redis-backed call: `result` is ok or error, whatever the call's own answer. */
export async function timedRedisCall<T>(operation: string, call: () => Promise<T>): Promise<T> {
  const end = redisDuration.startTimer({ operation });
  try {
    const value = await call();
    end({ result: 'ok' });
    return value;
  } catch (error) {
    end({ result: 'error' });
    throw error;
  }
}
