import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { TEST_PORTS } from '@fragrance/config';

const run = promisify(execFile);

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Ports of the shared local instances tests use, apart from the dev stack's 9200/6379 (the port map's). */
const LOCAL_TEST_PORTS = TEST_PORTS;

async function infra(script: 'elasticsearch.sh' | 'redis.sh', args: string[]): Promise<void> {
  try {
    await run('bash', [`${REPO_ROOT}infra/${script}`, ...args], { cwd: REPO_ROOT, timeout: 300_000 });
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    throw new Error(`infra/${script} ${args.join(' ')} failed:\n${stderr ?? String(error)}`, { cause: error });
  }
}

/** Starts (or reuses, under a lock) a local Elasticsearch cluster; returns its URL. */
export async function startLocalElasticsearch(
  options: { name?: string; port?: number; nodes?: number; heap?: string } = {},
): Promise<string> {
  const { name = 'test', port = LOCAL_TEST_PORTS.elasticsearch, nodes = 1, heap = '768m' } = options;
  await infra('elasticsearch.sh', ['start', '--name', name, '--port', String(port), '--nodes', String(nodes), '--heap', heap]);
  return `http://127.0.0.1:${port}`;
}

export async function stopLocalElasticsearch(name = 'test'): Promise<void> {
  await infra('elasticsearch.sh', ['stop', '--name', name]);
}

/** Kills one node of a local cluster (fault tests). */
export async function stopLocalElasticsearchNode(name: string, node: number): Promise<void> {
  await infra('elasticsearch.sh', ['stop-node', '--name', name, '--node', String(node)]);
}

/** Starts (or reuses) a local redis-server with AOF persistence; returns its URL. */
export async function startLocalRedis(options: { name?: string; port?: number } = {}): Promise<string> {
  const { name = 'test', port = LOCAL_TEST_PORTS.redis } = options;
  await infra('redis.sh', ['start', '--name', name, '--port', String(port)]);
  return `redis://127.0.0.1:${port}`;
}

/** SHUTDOWN (which flushes the AOF) of a local redis-server. */
export async function stopLocalRedis(options: { name?: string; port?: number } = {}): Promise<void> {
  const { name = 'test', port = LOCAL_TEST_PORTS.redis } = options;
  await infra('redis.sh', ['stop', '--name', name, '--port', String(port)]);
}
