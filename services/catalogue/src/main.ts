import { pino } from 'pino';
import { defaultModelDirectory, loadEmbedderOffThread } from '@fragrance/embeddings';
import { createLogger, Lifecycle, serve } from '@fragrance/http';
import { configureMetrics, observeDependencies, serveMetrics } from '@fragrance/metrics';
import { createRedisClient } from '@fragrance/redis';
import { initTracing } from '@fragrance/tracing';
import { buildApp } from './app.ts';
import { createElasticsearchBreaker } from './breaker.ts';
import { createElasticsearchClient } from './elasticsearch.ts';
import { loadConfig } from './config.ts';

const config = loadConfig(process.env);
// Request lines are written 4 KB at a time, not one write(2) each (every search logs a line; a
// write per line was a tenth of the catalogue's CPU on uncached searches), synchronously so there
// is no thread-pool handoff. Quiet periods still see their lines within a second, and whatever
// is buffered is written when the process exits. The gateway does the same.
const logDestination = pino.destination({ dest: 1, minLength: 4096, sync: true });
const flushLogs = () => {
  try {
    logDestination.flushSync();
  } catch {
    // stdout gone (closed pipe): nothing left to write to.
  }
};
setInterval(flushLogs, 1_000).unref();
process.on('exit', flushLogs);
configureMetrics({ service: 'catalogue', enabled: config.METRICS_ENABLED });
const tracing = initTracing({ service: 'catalogue', otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });
const logger = createLogger('catalogue', config.LOG_LEVEL, logDestination);
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
