export { testElasticsearch, testRedis, uniquePrefix, type TestElasticsearch, type TestRedis } from './fixtures.ts';
export {
  LOCAL_TEST_PORTS,
  REPO_ROOT,
  startLocalElasticsearch,
  startLocalRedis,
  stopLocalElasticsearch,
  stopLocalElasticsearchNode,
  stopLocalRedis,
} from './local.ts';
export { resolveEndpoints, type Endpoints } from './endpoints.ts';
export { startSentinelRedis, type SentinelRedis } from './sentinel.ts';
export { freePort, startService, waitForHealthy, type RunningService } from './processes.ts';
export { close, listen } from './http-server.ts';
export { waitFor, type WaitOptions } from './wait.ts';
export { FormUser, parseForms, type Page, type ParsedForm } from './form-user.ts';
