export { testElasticsearch, testRedis, uniquePrefix, type TestElasticsearch, type TestRedis } from './fixtures.ts';
export { REPO_ROOT, startLocalElasticsearch, startLocalRedis, stopLocalRedis } from './local.ts';
export { startSentinelRedis, type SentinelRedis } from './sentinel.ts';
export { freePort, spawnService, startService, waitForHealthy, type RunningService, type SpawnedService } from './processes.ts';
export { close, listen } from './http-server.ts';
export { startFaultProxy, type FaultProxy } from './fault-proxy.ts';
export { waitFor } from './wait.ts';
export { FormUser, parseForms, type Page } from './form-user.ts';
export { startStack, type Stack, type StackOptions, type StackService } from './stack.ts';
