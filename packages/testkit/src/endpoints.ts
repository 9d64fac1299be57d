import { readFileSync } from 'node:fs';
import { startContainers } from './containers.ts';
import { REPO_ROOT, startLocalElasticsearch, startLocalRedis } from './local.ts';

export interface Endpoints {
  elasticsearchUrl: string;
  redisUrl: string;
  source: 'environment' | 'testcontainers' | 'local';
  stop: () => Promise<void>;
}

function pinnedElasticsearchVersion(): string {
  const versions = readFileSync(`${REPO_ROOT}infra/versions.env`, 'utf8');
  const match = /^ELASTICSEARCH_VERSION=(\S+)$/m.exec(versions);
  if (!match?.[1]) throw new Error('ELASTICSEARCH_VERSION missing from infra/versions.env');
  return match[1];
}

/**
 * Where tests find Elasticsearch and Redis, in order: ELASTICSEARCH_URL/REDIS_URL, containers
 * when a Docker engine answers, else the project's own local processes (shared, left running
 * for the next run; `npm run infra:stop` stops them).
 */
export async function resolveEndpoints(env: NodeJS.ProcessEnv = process.env): Promise<Endpoints> {
  const fromEnv = { elasticsearchUrl: env.ELASTICSEARCH_URL, redisUrl: env.REDIS_URL };
  if (fromEnv.elasticsearchUrl && fromEnv.redisUrl) {
    return {
      ...fromEnv,
      elasticsearchUrl: fromEnv.elasticsearchUrl,
      redisUrl: fromEnv.redisUrl,
      source: 'environment',
      stop: async () => {},
    };
  }
  const containers = await startContainers(pinnedElasticsearchVersion(), env);
  if (containers) {
    return {
      elasticsearchUrl: fromEnv.elasticsearchUrl ?? containers.elasticsearchUrl,
      redisUrl: fromEnv.redisUrl ?? containers.redisUrl,
      source: 'testcontainers',
      stop: containers.stop,
    };
  }
  const [elasticsearchUrl, redisUrl] = await Promise.all([
    fromEnv.elasticsearchUrl ?? startLocalElasticsearch(),
    fromEnv.redisUrl ?? startLocalRedis(),
  ]);
  return { elasticsearchUrl, redisUrl, source: 'local', stop: async () => {} };
}
