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
export {
  CLUSTER_MAX_INSTANCES,
  CLUSTER_PORTS,
  clusterInstancePorts,
  clusterPortUses,
  DEV_PORTS,
  devStackPortUses,
  IMAGES_SMOKE_PORTS,
  STACK_SERVICES,
  TEST_PORTS,
  type StackService,
} from './ports.ts';
