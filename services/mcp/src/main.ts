import { createLogger, serve } from '@fragrance/http';
import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';
import { createDeps } from './deps.ts';

const config = loadConfig(process.env);
const logger = createLogger('mcp', config.LOG_LEVEL);
const deps = createDeps(config, logger);

await serve({
  app: buildApp(deps),
  host: config.HOST,
  port: config.PORT,
  logger,
  onShutdown: () => deps.close(),
});
