import { createLogger, serve } from '@fragrance/http';
import { configureMetrics, observeDependencies, serveMetrics } from '@fragrance/metrics';
import { initTracing } from '@fragrance/tracing';
import { buildApp } from './app.ts';
import { createElasticsearchClient } from './elasticsearch.ts';
import { loadConfig } from './config.ts';

const config = loadConfig(process.env);
configureMetrics({ service: 'catalogue', enabled: config.METRICS_ENABLED });
const tracing = initTracing({ service: 'catalogue', otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });
const logger = createLogger('catalogue', config.LOG_LEVEL);
const elasticsearch = createElasticsearchClient(config);

const metrics = await serveMetrics({ host: config.METRICS_HOST, port: config.METRICS_PORT, logger });
observeDependencies({ elasticsearch: () => elasticsearch.ping({}, { requestTimeout: 1_000 }) });

await serve({
  app: buildApp({ config, logger, elasticsearch }),
  host: config.HOST,
  port: config.PORT,
  logger,
  onShutdown: async () => void (await Promise.all([elasticsearch.close(), metrics.close(), tracing.shutdown()])),
});
