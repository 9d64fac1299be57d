import { createLogger, Lifecycle, serve } from '@fragrance/http';
import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';
import { createDeps } from './deps.ts';

const config = loadConfig(process.env);
const logger = createLogger('mcp', config.LOG_LEVEL);
const deps = createDeps(config, logger);
const lifecycle = new Lifecycle();

await serve({
  app: buildApp({ ...deps, lifecycle }),
  host: config.HOST,
  port: config.PORT,
  logger,
  lifecycle,
  shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  onShutdown: () => deps.close(),
});
