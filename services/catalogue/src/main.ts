import { Client } from '@elastic/elasticsearch';
import { createLogger, serve } from '@fragrance/http';
import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';

const config = loadConfig(process.env);
const logger = createLogger('catalogue', config.LOG_LEVEL);
const elasticsearch = new Client({ node: config.ELASTICSEARCH_URL, maxRetries: 1, requestTimeout: 5_000 });

await serve({
  app: buildApp({ config, logger, elasticsearch }),
  host: config.HOST,
  port: config.PORT,
  logger,
  onShutdown: () => elasticsearch.close(),
});
