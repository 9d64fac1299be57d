import { defaultModelDirectory, loadEmbedderOffThread } from '@fragrance/embeddings';
import { bufferedStdout, createLogger, Lifecycle, serve } from '@fragrance/http';
import { configureMetrics, observeDependencies, serveMetrics } from '@fragrance/metrics';
import { createRedisClient } from '@fragrance/redis';
import { initTracing } from '@fragrance/tracing';
import { buildApp } from './app.ts';
import { createElasticsearchBreaker } from './breaker.ts';
import { createElasticsearchClient } from './elasticsearch.ts';
import { loadConfig } from './config.ts';

const config = loadConfig(process.env);
configureMetrics({ service: 'catalogue', enabled: config.METRICS_ENABLED });
const tracing = initTracing({ service: 'catalogue', otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });
const logger = createLogger('catalogue', config.LOG_LEVEL, bufferedStdout());
// Every Elasticsearch request goes through the breaker: a frozen or stopped cluster is answered
// at once (503, or a stale cached answer) once it opened, not after each request's timeout.
const breaker = createElasticsearchBreaker(
  { threshold: config.ELASTICSEARCH_BREAKER_THRESHOLD, halfOpenAfterMs: config.ELASTICSEARCH_BREAKER_HALF_OPEN_MS },
  logger,
);
const elasticsearch = createElasticsearchClient(config, breaker);

const metrics = await serveMetrics({ host: config.METRICS_HOST, port: config.METRICS_PORT, logger });
observeDependencies({ elasticsearch: () => elasticsearch.ping({}, { requestTimeout: 1_000 }) });

// Request-path role: a Redis outage fails the generation read at once and the request is
// answered without the response cache, never queued behind a reconnect.
const redis = createRedisClient(config, logger, 'request-path');
// The generation's change messages: a subscribed connection runs no other command.
const subscriber = createRedisClient(config, logger, 'request-path');
const lifecycle = new Lifecycle();
// Loaded once per process, on a thread of its own (a model call would block the event loop); a
// missing model fails the start naming the directory and the fetch command.
const embedder = config.EMBEDDINGS_ENABLED
  ? await loadEmbedderOffThread({ directory: config.EMBEDDING_MODEL_DIR ?? defaultModelDirectory() })
  : undefined;

await serve({
  app: buildApp({ config, logger, elasticsearch, redis, subscriber, lifecycle, embedder }),
  host: config.HOST,
  port: config.PORT,
  logger,
  lifecycle,
  shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  onShutdown: async () =>
    void (await Promise.all([
      elasticsearch.close(),
      redis.quit().catch(() => redis.disconnect()),
      subscriber.quit().catch(() => subscriber.disconnect()),
      metrics.close(),
      tracing.shutdown(),
      embedder?.close(),
    ])),
});
