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
export { freePort, startService, waitForHealthy, type RunningService } from './processes.ts';
