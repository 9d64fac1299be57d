import { Client } from '@elastic/elasticsearch';
import { createLogger, Lifecycle, serve } from '@fragrance/http';
import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';

const config = loadConfig(process.env);
const logger = createLogger('catalogue', config.LOG_LEVEL);
// One client for the process: its keep-alive connection pool is reused by every request.
const elasticsearch = new Client({
  node: config.ELASTICSEARCH_URL,
  maxRetries: 1,
  requestTimeout: config.ELASTICSEARCH_TIMEOUT_MS,
  compression: false,
});

const lifecycle = new Lifecycle();

await serve({
  app: buildApp({ config, logger, elasticsearch, lifecycle }),
  host: config.HOST,
  port: config.PORT,
  logger,
  lifecycle,
  shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  onShutdown: () => elasticsearch.close(),
});
