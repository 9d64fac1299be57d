import { Redis } from 'ioredis';
import { RevocationStore } from '@fragrance/identity';
import { createLogger, serve } from '@fragrance/http';
import { buildApp } from './app.ts';
import { tokenVerifierFor } from './auth/verify-token.ts';
import { createCatalogueClient } from './catalogue/client.ts';
import { loadConfig } from './config.ts';
import { createRateLimiter } from './rate-limit.ts';

const config = loadConfig(process.env);
const logger = createLogger('mcp', config.LOG_LEVEL);
// Fail fast rather than queue commands while Redis is away: requests get a 503 instead.
const redis = new Redis(config.REDIS_URL, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 1_000 });
redis.on('error', (err) => logger.warn({ err: { message: err.message } }, 'redis connection error'));
const catalogue = createCatalogueClient({ baseUrl: config.CATALOGUE_SERVICE_URL, timeoutMs: config.CATALOGUE_TIMEOUT_MS });
const verify = tokenVerifierFor(config, new RevocationStore(redis));
const rateLimiter = createRateLimiter({
  redis,
  prefix: 'fcs:',
  perMinute: config.MCP_RATE_LIMIT_PER_MINUTE,
  burst: config.MCP_RATE_LIMIT_BURST,
});

await serve({
  app: buildApp({ config, logger, redis, verify, rateLimiter, catalogue }),
  host: config.HOST,
  port: config.PORT,
  logger,
  onShutdown: async () => {
    await Promise.all([redis.quit(), catalogue.close()]);
  },
});
