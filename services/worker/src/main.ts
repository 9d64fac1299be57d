// The worker: BullMQ consumers for catalogue ingest and enrichment, the nightly Job Scheduler
// entry, and a small health endpoint. SIGTERM lets in-flight batches finish (or hands them back).
import { Client } from '@elastic/elasticsearch';
import { defaultModelDirectory, loadEmbedder } from '@fragrance/embeddings';
import { createLogger, Lifecycle } from '@fragrance/http';
import { createRedisClient } from '@fragrance/redis';
import { configureMetrics, observeDependencies, serveMetrics } from '@fragrance/metrics';
import { initTracing } from '@fragrance/tracing';
import { healthServer, startWorker } from './app.ts';
import { loadConfig } from './config.ts';
import { startSimilarRefresher } from './similar.ts';

const config = loadConfig(process.env);
configureMetrics({ service: 'worker', enabled: config.METRICS_ENABLED });
const tracing = initTracing({ service: 'worker', otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });
const logger = createLogger('worker', config.LOG_LEVEL);
// BullMQ's role: commands wait for a reconnect instead of failing (maxRetriesPerRequest: null).
const redis = createRedisClient(config, logger, 'queue');
const elasticsearch = new Client({ node: config.ELASTICSEARCH_URL, requestTimeout: 120_000, maxRetries: 2 });

const metrics = await serveMetrics({ host: config.METRICS_HOST, port: config.METRICS_PORT, logger });
observeDependencies({ redis: () => redis.status === 'ready', elasticsearch: () => elasticsearch.ping({}, { requestTimeout: 1_000 }) });
// Loaded once per process; a missing model fails the start naming the directory and the fetch command.
const embedder = config.EMBEDDINGS_ENABLED
  ? await loadEmbedder({ directory: config.EMBEDDING_MODEL_DIR ?? defaultModelDirectory(), batchSize: config.EMBEDDING_BATCH_SIZE })
  : undefined;
// In the background: until a pass has computed them, similar requests are answered live.
const similar =
  config.SIMILAR_LISTS_RATE > 0
    ? startSimilarRefresher({
        elasticsearch,
        alias: config.CATALOGUE_ALIAS,
        logger,
        ratePerSecond: config.SIMILAR_LISTS_RATE,
        // One pass at a time across the worker replicas sharing this Redis (a lease under JOBS_PREFIX).
        redis,
        jobsPrefix: config.JOBS_PREFIX,
      })
    : undefined;
const running = await startWorker({ config, logger, redis, elasticsearch, embedder, similar });
// A minute after start, so the pass does not compete with the stack's other services starting.
setTimeout(() => similar?.request('worker started'), 60_000).unref();
const lifecycle = new Lifecycle();
const server = healthServer(running, lifecycle);
await new Promise<void>((resolve, reject) => {
  server.once('error', reject);
  server.listen(config.PORT, config.HOST, () => resolve());
});
const address = server.address();
logger.info({ host: config.HOST, port: typeof address === 'object' && address ? address.port : config.PORT }, 'health endpoint listening');

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'shutting down: finishing in-flight jobs');
  // Last resort: whatever is still locked is redone by another worker once its lock expires.
  setTimeout(() => {
    logger.error('shutdown timed out; exiting');
    process.exit(1);
  }, config.SHUTDOWN_TIMEOUT_MS + 10_000).unref();
  // Readiness answers 503 while in-flight batches finish; the health port closes after them.
  lifecycle.startDraining();
  try {
    await similar?.stop();
    await running.close(config.SHUTDOWN_TIMEOUT_MS);
    server.close();
    server.closeAllConnections();
    await Promise.all([
      redis.quit().catch(() => redis.disconnect()),
      elasticsearch.close(),
      metrics.close(),
      tracing.shutdown(),
      embedder?.close(),
    ]);
    logger.info('stopped');
    process.exit(0);
  } catch (error) {
    logger.error({ err: error }, 'error during shutdown');
    process.exit(1);
  }
}
process.once('SIGTERM', () => void shutdown('SIGTERM'));
process.once('SIGINT', () => void shutdown('SIGINT'));
