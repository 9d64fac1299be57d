import { Client, errors, Transport, type TransportRequestOptions, type TransportRequestParams } from '@elastic/elasticsearch';
import { Counter, Histogram } from '@fragrance/metrics';
import { currentTraceId } from '@fragrance/tracing';
import type { ElasticsearchBreaker } from './breaker.ts';
import { PreserialisedSerializer, withShardPreference } from './shard-preference.ts';

export const elasticsearchDuration = new Histogram({
  name: 'catalogue_elasticsearch_duration_seconds',
  help: 'Elasticsearch request latency by API (search, get, …) and result (ok, error).',
  labelNames: ['operation', 'result'] as const,
  buckets: [0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
});

export const elasticsearchErrors = new Counter({
  name: 'catalogue_elasticsearch_errors_total',
  help: 'Failed Elasticsearch requests by API and kind (response, timeout, connection, …).',
  labelNames: ['operation', 'kind'] as const,
});

/** A bounded name for a failure: the client's error class, never its message. */
function errorKind(error: unknown): string {
  if (error instanceof errors.ResponseError) return `http_${Math.floor((error.statusCode ?? 0) / 100)}xx`;
  if (error instanceof errors.TimeoutError) return 'timeout';
  if (error instanceof errors.ConnectionError || error instanceof errors.NoLivingConnectionsError) return 'connection';
  return 'other';
}

/**
 * Every Elasticsearch request carries the trace id of the request it serves as X-Opaque-Id
 * (shown in Elasticsearch's slow logs and task list), and is timed and counted by API name; every
 * search is pinned to the same shard copies per query (shard-preference.ts).
 */
export class TracedTransport extends Transport {
  // One signature stands for the base class's overloads: options and result pass through as given.
  override async request(params: TransportRequestParams, options: TransportRequestOptions = {}): Promise<never> {
    const operation = params.meta?.name ?? 'other';
    const traceId = currentTraceId();
    const end = elasticsearchDuration.startTimer({ operation });
    try {
      const result = await super.request<never>(
        withShardPreference(params),
        traceId && options.opaqueId === undefined ? { ...options, opaqueId: traceId } : options,
      );
      end({ result: 'ok' });
      return result;
    } catch (error) {
      end({ result: 'error' });
      elasticsearchErrors.inc({ operation, kind: errorKind(error) });
      throw error;
    }
  }
}

export interface ElasticsearchSettings {
  ELASTICSEARCH_URL: string;
  ELASTICSEARCH_TIMEOUT_MS: number;
}

/** A transport whose every request (its retry included) runs through the breaker. */
function breakerTransport(breaker: ElasticsearchBreaker): typeof TracedTransport {
  return class BreakerTransport extends TracedTransport {
    override request(params: TransportRequestParams, options: TransportRequestOptions = {}): Promise<never> {
      return breaker.run((signal) =>
        super.request(params, { ...options, signal: options.signal ? AbortSignal.any([options.signal, signal]) : signal }),
      );
    }
  };
}

/**
 * One client for the process: its keep-alive connection pool is reused by every request. With a
 * breaker, every request goes through it (searches, gets, the alias read of the response cache's
 * generation, readiness), so a frozen or stopped Elasticsearch is answered at once once it opened.
 */
export function createElasticsearchClient(config: ElasticsearchSettings, breaker?: ElasticsearchBreaker): Client {
  return new Client({
    node: config.ELASTICSEARCH_URL,
    maxRetries: 1,
    requestTimeout: config.ELASTICSEARCH_TIMEOUT_MS,
    compression: false,
    // A search body serialised for its shard preference is sent as that text, not serialised again.
    Serializer: PreserialisedSerializer,
    Transport: breaker ? breakerTransport(breaker) : TracedTransport,
  });
}
