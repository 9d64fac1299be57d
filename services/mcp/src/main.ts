import { createLogger, Lifecycle, serve } from '@fragrance/http';
import { configureMetrics, observeDependencies, serveMetrics } from '@fragrance/metrics';
import { initTracing } from '@fragrance/tracing';
import { buildApp } from './app.ts';
import { viewDocuments } from './apps/html.ts';
import { loadConfig } from './config.ts';
import { createDeps } from './deps.ts';

const config = loadConfig(process.env);
configureMetrics({ service: 'mcp', enabled: config.METRICS_ENABLED });
const tracing = initTracing({ service: 'mcp', otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });
const logger = createLogger('mcp', config.LOG_LEVEL);
const deps = createDeps(config, logger);
const lifecycle = new Lifecycle();

// The MCP App views are bundled once, here: a view that cannot be built fails the start, and the
// first host to read one does not wait for the bundler.
await viewDocuments();

const metrics = await serveMetrics({ host: config.METRICS_HOST, port: config.METRICS_PORT, logger });
observeDependencies({ redis: () => deps.redis.status === 'ready' });

await serve({
  app: buildApp({ ...deps, lifecycle }),
  host: config.HOST,
  port: config.PORT,
  logger,
  lifecycle,
  shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  onShutdown: async () => void (await Promise.all([deps.close(), metrics.close(), tracing.shutdown()])),
});
