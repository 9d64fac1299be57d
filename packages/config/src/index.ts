export { ConfigError, parseConfig } from './parse-config.ts';
export { booleanFlag, host, httpUrl, logLevel, millis, port, redisUrl } from './fields.ts';
