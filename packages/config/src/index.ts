export { ConfigError, parseConfig } from './parse-config.ts';
export {
  booleanFlag,
  cacheBytes,
  catalogueAlias,
  host,
  httpUrl,
  logLevel,
  millis,
  observabilityFields,
  port,
  redisConnectionFields,
  redisPrefix,
  seconds,
  shutdownTimeout,
  timeZone,
} from './fields.ts';
