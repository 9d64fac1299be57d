import { existsSync } from 'node:fs';

export interface ContainerEndpoints {
  elasticsearchUrl: string;
  redisUrl: string;
  stop: () => Promise<void>;
}

/** Cheap first look, so machines without Docker never pay for testcontainers' probing. */
function dockerMayExist(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.DOCKER_HOST) || existsSync('/var/run/docker.sock');
}

/**
 * Starts Elasticsearch and Redis containers when a Docker engine answers; returns undefined
 * when none does, so the caller falls back to local processes.
 */
export async function startContainers(
  elasticsearchVersion: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ContainerEndpoints | undefined> {
  if (!dockerMayExist(env)) return undefined;
  const { GenericContainer, Wait, getContainerRuntimeClient } = await import('testcontainers');
  try {
    await getContainerRuntimeClient();
  } catch {
    return undefined;
  }
  const [elasticsearch, redis] = await Promise.all([
    new GenericContainer(`docker.elastic.co/elasticsearch/elasticsearch:${elasticsearchVersion}`)
      .withEnvironment({
        'discovery.type': 'single-node',
        'xpack.security.enabled': 'false',
        'action.destructive_requires_name': 'false',
        ES_JAVA_OPTS: '-Xms768m -Xmx768m',
      })
      .withExposedPorts(9200)
      .withWaitStrategy(Wait.forHttp('/_cluster/health?wait_for_status=yellow', 9200).forStatusCode(200))
      .withStartupTimeout(180_000)
      .start(),
    new GenericContainer('redis:7')
      .withCommand(['redis-server', '--appendonly', 'yes'])
      .withExposedPorts(6379)
      .withWaitStrategy(Wait.forLogMessage('Ready to accept connections'))
      .start(),
  ]);
  return {
    elasticsearchUrl: `http://${elasticsearch.getHost()}:${elasticsearch.getMappedPort(9200)}`,
    redisUrl: `redis://${redis.getHost()}:${redis.getMappedPort(6379)}`,
    stop: async () => {
      await Promise.all([elasticsearch.stop(), redis.stop()]);
    },
  };
}
