import { errors } from '@elastic/elasticsearch';
import { BrokenCircuitError, circuitBreaker, CircuitState, ConsecutiveBreaker, handleWhen } from 'cockatiel';
import type { Logger } from '@fragrance/http';
import { Counter, Gauge } from '@fragrance/metrics';

/** The breaker's states as bounded metric labels. */
const STATES = ['closed', 'open', 'half_open'] as const;
type BreakerState = (typeof STATES)[number];

const stateGauge = new Gauge({
  name: 'catalogue_elasticsearch_breaker_state',
  help: 'Circuit breaker in front of Elasticsearch: 1 for the state it is in (closed, open, half_open), 0 for the others.',
  labelNames: ['state'] as const,
});
const transitions = new Counter({
  name: 'catalogue_elasticsearch_breaker_transitions_total',
  help: 'Circuit breaker state changes, by the state entered.',
  labelNames: ['state'] as const,
});
const rejections = new Counter({
  name: 'catalogue_elasticsearch_breaker_rejections_total',
  help: 'Elasticsearch requests refused at once because the circuit breaker was open or probing.',
});

/**
 * Raised instead of calling Elasticsearch while the breaker is open: the routes answer it 503
 * with Retry-After (or a stale cached answer), within milliseconds instead of a timeout.
 */
export class ElasticsearchUnavailableError extends Error {
  readonly code = 'elasticsearch_unavailable';
  readonly retryAfterSeconds: number;
  constructor(retryAfterSeconds: number, cause?: unknown) {
    super('Elasticsearch is not answering (circuit breaker open)', { cause });
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * Failures that say Elasticsearch is not answering: no connection, a timeout, a 5xx. A 4xx (a
 * missing index, a rejected query) is an answer and never opens the breaker; neither does an
 * abort the breaker itself caused.
 */
export function isOutage(error: unknown): boolean {
  if (error instanceof errors.ResponseError) return (error.statusCode ?? 0) >= 500;
  return (
    error instanceof errors.TimeoutError || error instanceof errors.ConnectionError || error instanceof errors.NoLivingConnectionsError
  );
}

export interface BreakerSettings {
  /** Consecutive failed requests (after the client's own retry) that open the breaker. */
  threshold: number;
  /** How long it stays open before one request is let through as a probe. */
  halfOpenAfterMs: number;
}

export interface ElasticsearchBreaker {
  /**
   * Runs one Elasticsearch request through the breaker. `fn` gets a signal that is aborted when
   * the breaker opens, so requests already waiting on a frozen node are answered at once too.
   */
  run: <T>(fn: (signal: AbortSignal) => Promise<T>) => Promise<T>;
  readonly state: BreakerState;
  /** Seconds until the breaker lets the next probe through (≥ 1): the Retry-After of its 503s. */
  retryAfterSeconds: () => number;
}

/**
 * A circuit breaker (cockatiel) in front of every Elasticsearch request of the catalogue: after
 * `threshold` consecutive outage failures it opens and every request fails at once with
 * ElasticsearchUnavailableError; after `halfOpenAfterMs` one request goes through as a probe
 * (a success closes it, a failure opens it again). While the probe runs, the others are refused
 * at once too (cockatiel would make them wait for the probe's verdict, a full timeout when
 * Elasticsearch is frozen). One log line when it opens, one when it closes with the period's
 * duration and how many requests it refused.
 */
export function createElasticsearchBreaker(settings: BreakerSettings, logger: Logger): ElasticsearchBreaker {
  const policy = circuitBreaker(handleWhen(isOutage), {
    halfOpenAfter: settings.halfOpenAfterMs,
    breaker: new ConsecutiveBreaker(settings.threshold),
  });
  let state: BreakerState = 'closed';
  let openedAt = 0;
  let degradedSince: number | undefined;
  let refused = 0;
  /** Aborted when the breaker opens: every request still waiting fails with it. */
  // Each request's own controller while it runs: opening the breaker aborts them all. A Set
  // rather than AbortSignal.any over a shared signal, whose per-request weak references and
  // finalization cost a few percent of the catalogue's CPU on uncached searches.
  const inFlight = new Set<AbortController>();
  const enter = (next: BreakerState) => {
    state = next;
    for (const s of STATES) stateGauge.set({ state: s }, s === next ? 1 : 0);
    transitions.inc({ state: next });
  };
  for (const s of STATES) stateGauge.set({ state: s }, s === 'closed' ? 1 : 0);
  policy.onStateChange((change) => {
    if (change === CircuitState.Open) {
      openedAt = Date.now();
      if (degradedSince === undefined) {
        degradedSince = openedAt;
        refused = 0;
        logger.warn({ threshold: settings.threshold }, 'elasticsearch circuit breaker open: answering from the cache or 503');
      }
      enter('open');
      // Aborted with the default reason (an AbortError): undici rejects with the signal's reason,
      // and the client maps only an AbortError to RequestAbortedError. Any other reason reads as
      // a lost connection: the client marked it dead and retried after its backoff (1-2 s), by
      // which time the breaker was half-open and the caller's next request (a generation re-read
      // the others waited on) became the probe, held for the full timeout by a frozen node.
      for (const controller of inFlight) controller.abort();
      inFlight.clear();
    } else if (change === CircuitState.HalfOpen) {
      enter('half_open');
    } else if (change === CircuitState.Closed) {
      enter('closed');
      if (degradedSince !== undefined) {
        logger.info(
          { duration_ms: Date.now() - degradedSince, refused },
          'elasticsearch circuit breaker closed: Elasticsearch answers again',
        );
      }
      degradedSince = undefined;
    }
  });
  const retryAfterSeconds = () => Math.max(1, Math.ceil((openedAt + settings.halfOpenAfterMs - Date.now()) / 1_000));
  const refuse = (cause?: unknown): never => {
    refused += 1;
    rejections.inc();
    throw new ElasticsearchUnavailableError(retryAfterSeconds(), cause);
  };

  return {
    get state() {
      return state;
    },
    retryAfterSeconds,
    run: async (fn) => {
      if (policy.state === CircuitState.HalfOpen) refuse();
      // A signal of its own per request: the client fires 'abort' on the signal it is given to
      // time a request out, which on a shared one would abort every request in flight.
      const controller = new AbortController();
      const { signal } = controller;
      inFlight.add(controller);
      try {
        return await policy.execute(() => fn(signal));
      } catch (error) {
        if (error instanceof BrokenCircuitError) return refuse(error);
        // Aborted because the breaker opened meanwhile: answered like a refusal.
        if (signal.aborted && error instanceof errors.RequestAbortedError) return refuse(error);
        throw error;
      } finally {
        inFlight.delete(controller);
      }
    },
  };
}
