export { ConfigError, parseConfig } from './parse-config.ts';
export {
  booleanFlag,
  catalogueAlias,
  DEFAULT_REDIS_PREFIX,
  host,
  httpUrl,
  isValidTimeZone,
  logLevel,
  millis,
  observabilityFields,
  port,
  redisPrefix,
  redisUrl,
  seconds,
  timeZone,
} from './fields.ts';
