import { Redis } from 'ioredis';
import { createLogger, serve } from '@fragrance/http';
import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';

const config = loadConfig(process.env);
const logger = createLogger('auth', config.LOG_LEVEL);
const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: 2, connectTimeout: 2_000 });
redis.on('error', (err) => logger.warn({ err: { message: err.message } }, 'redis connection error'));

const { app } = await buildApp({
  issuer: config.MCP_URL,
  resource: config.MCP_RESOURCE ?? `${config.MCP_URL}/mcp`,
  redis,
  prefix: config.REDIS_PREFIX,
  logger,
  ttl: {
    accessToken: config.ACCESS_TOKEN_TTL_SECONDS,
    authorizationCode: config.AUTHORIZATION_CODE_TTL_SECONDS,
    refreshToken: config.REFRESH_TOKEN_TTL_SECONDS,
    session: config.SESSION_TTL_SECONDS,
  },
  registrationLimitPerHour: config.REGISTRATION_LIMIT_PER_HOUR,
  login: {
    perAccount: config.LOGIN_LIMIT_PER_ACCOUNT,
    perAddress: config.LOGIN_LIMIT_PER_ADDRESS,
    windowSeconds: config.LOGIN_THROTTLE_WINDOW_SECONDS,
  },
  trustProxy: config.TRUST_PROXY === 'true' ? true : config.TRUST_PROXY === 'false' ? false : config.TRUST_PROXY,
});

await serve({
  app,
  host: config.HOST,
  port: config.PORT,
  logger,
  onShutdown: async () => void (await redis.quit()),
});
