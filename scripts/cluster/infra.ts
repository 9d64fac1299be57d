// The cluster's infrastructure: a 3-node Elasticsearch, a Redis primary + replica, 3 Sentinels and
// Prometheus, started as daemons; a watchdog starts a dead one again (Redis only once Sentinel
// has had its chance to fail over).
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { prometheusConfig } from '@fragrance/metrics';
import { LOCAL_DIR, ROOT, runStep, sayAs, waitForOk, type Env } from '../lib/stack-steps.ts';
import { CLUSTER_DIR } from './paths.ts';
import { redisRestart } from './redis-restart.ts';
import {
  ES_CLUSTER_NAME,
  ES_HTTP_PORT,
  ES_NODES,
  PROMETHEUS_PORT,
  REDIS_PRIMARY_PORT,
  REDIS_REPLICA_PORT,
  scrapeTargetsOf,
  SENTINEL_NAME,
  SENTINEL_PORTS,
  type Instance,
} from './topology.ts';

const say = sayAs('cluster');
const run = promisify(execFile);
/** Sentinel's failover timeout (--failover-timeout-ms below) plus its down-after: then the watchdog restarts a dead primary itself. */
const REDIS_FAILOVER_GRACE_MS = 12_000;
export const ES_ARGS = ['--name', ES_CLUSTER_NAME, '--port', String(ES_HTTP_PORT), '--nodes', String(ES_NODES)];

/** Something this cluster started, and how to stop it (in reverse order, on exit). */
export interface StartedInfra {
  what: string;
  stop: () => void;
}

export interface RedisNode {
  name: string;
  port: number;
  /** `--primary` or `--replica-of <primary>`. */
  args: string[];
}

const infra = (script: string, ...scriptArgs: string[]) => spawnSync('bash', [script, ...scriptArgs], { cwd: ROOT, stdio: 'inherit' });

function sentinelConfigFile(port: number): string {
  return `${LOCAL_DIR}/redis-sentinel/${port}/sentinel.conf`;
}

/**
 * The node the Sentinels called primary when the last cluster stopped (after a failover, the
 * other one: it holds the newest writes) starts as primary, the other as its replica, and the
 * Sentinels start afresh watching it. Starting from the Sentinels' old files instead would have
 * them name a node that now runs as a replica, and every client would wait for a primary.
 */
export function initialPrimaryPort(): number {
  for (const port of SENTINEL_PORTS) {
    const file = sentinelConfigFile(port);
    if (!existsSync(file)) continue;
    const monitored = /^sentinel monitor \S+ \S+ (\d+)/m.exec(readFileSync(file, 'utf8'));
    if (monitored) return Number(monitored[1]) === REDIS_REPLICA_PORT ? REDIS_REPLICA_PORT : REDIS_PRIMARY_PORT;
  }
  return REDIS_PRIMARY_PORT;
}

/** Both Redis nodes, the primary first. */
export function redisNodesOf(primaryPort: number): RedisNode[] {
  return [
    { name: 'cluster-a', port: REDIS_PRIMARY_PORT },
    { name: 'cluster-b', port: REDIS_REPLICA_PORT },
  ]
    .map((node) => ({ ...node, args: node.port === primaryPort ? ['--primary'] : ['--replica-of', `127.0.0.1:${primaryPort}`] }))
    .sort((a, b) => (a.port === primaryPort ? -1 : b.port === primaryPort ? 1 : 0));
}

/** A Sentinel on `port` watching the primary; fast failover on one machine: a primary silent for 2 s is down. */
export const sentinelArgs = (primaryPort: number, port: number) => [
  '--port',
  String(port),
  '--monitor',
  `127.0.0.1:${primaryPort}`,
  '--name',
  SENTINEL_NAME,
  '--down-after-ms',
  '2000',
  '--failover-timeout-ms',
  '10000',
];

/** Elasticsearch, both Redis nodes and the Sentinels, each recorded in `started` as it comes up. */
export function startDataStores(env: Env, primaryPort: number, started: StartedInfra[]): void {
  runStep(say, env, `starting Elasticsearch (${ES_NODES} nodes)`, 'bash', [
    'infra/elasticsearch.sh',
    'start',
    ...ES_ARGS,
    '--heap',
    '512m',
  ]);
  started.push({ what: 'Elasticsearch', stop: () => infra('infra/elasticsearch.sh', 'stop', '--name', ES_CLUSTER_NAME) });
  for (const node of redisNodesOf(primaryPort)) {
    const nodeArgs = ['--name', node.name, '--port', String(node.port)];
    runStep(say, env, `starting Redis ${node.name} on ${node.port}`, 'bash', ['infra/redis.sh', 'start', ...nodeArgs, ...node.args]);
    started.push({ what: `Redis ${node.name}`, stop: () => infra('infra/redis.sh', 'stop', ...nodeArgs) });
  }
  for (const port of SENTINEL_PORTS) {
    rmSync(sentinelConfigFile(port), { force: true });
    runStep(say, env, `starting Redis Sentinel on ${port}`, 'bash', [
      'infra/redis-sentinel.sh',
      'start',
      ...sentinelArgs(primaryPort, port),
    ]);
    started.push({ what: `Sentinel ${port}`, stop: () => infra('infra/redis-sentinel.sh', 'stop', '--port', String(port)) });
  }
}

/**
 * Prometheus before the instances, so it sees them come up: every instance's metrics port (the
 * same generator as `npm start --with-prometheus`), with the recording and alert rules.
 */
export function startPrometheus(env: Env, instances: Instance[], started: StartedInfra[]): void {
  const file = `${CLUSTER_DIR}/prometheus.yml`;
  writeFileSync(file, prometheusConfig({ targets: scrapeTargetsOf(instances), ruleFiles: [`${ROOT}infra/prometheus/rules/*.yml`] }));
  runStep(say, env, `starting Prometheus on ${PROMETHEUS_PORT} (${instances.length} targets)`, 'bash', [
    'infra/prometheus.sh',
    'start',
    '--name',
    'cluster',
    '--port',
    String(PROMETHEUS_PORT),
    '--config',
    file,
  ]);
  started.push({ what: 'Prometheus', stop: () => infra('infra/prometheus.sh', 'stop', '--name', 'cluster') });
}

/**
 * Applies the replica count to the live catalogue index and its suggestion index (ingest sets it
 * only on new versions): one copy-less index turns the cluster red when its node dies.
 */
export async function setReplicas(esUrl: string, replicas: number): Promise<void> {
  const res = await fetch(`${esUrl}/fragrances,fragrances-suggest/_settings`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ index: { number_of_replicas: replicas } }),
  });
  if (!res.ok) throw new Error(`setting ${replicas} replica(s) on the catalogue failed: ${res.status} ${await res.text()}`);
  await waitForOk(`${esUrl}/_cluster/health/fragrances,fragrances-suggest?wait_for_status=green&timeout=5s`, 120_000);
}

export function pidAlive(pidFile: string): boolean {
  if (!existsSync(pidFile)) return false;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** `host:port` of the Redis primary as the first Sentinel that answers sees it. */
export async function sentinelPrimary(): Promise<string | null> {
  for (const port of SENTINEL_PORTS) {
    const reply = await run('redis-cli', ['-p', String(port), 'sentinel', 'get-master-addr-by-name', SENTINEL_NAME]).catch(() => null);
    const address = reply?.stdout.trim().split('\n');
    if (address?.length === 2) return address.join(':');
  }
  return null;
}

/** The pid of Elasticsearch node `node` (1-based), or null when it is not running. */
export async function elasticsearchNodePid(node: number): Promise<number | null> {
  return run('bash', ['infra/elasticsearch.sh', 'node-pid', ...ES_ARGS, '--node', String(node)], { cwd: ROOT }).then(
    (r) => Number(r.stdout.trim()),
    () => null,
  );
}

/**
 * A check that starts again an Elasticsearch node, Redis node or Sentinel whose process is gone;
 * `stopping` says the cluster is on its way down (nothing is started then).
 */
export function infraWatchdog(primaryPort: number, stopping: () => boolean): () => Promise<void> {
  /** When the watchdog first saw each Redis node dead (it leaves a dead primary to Sentinel for a while). */
  const redisDeadSince = new Map<string, number>();

  async function elasticsearchNodes(): Promise<void> {
    for (let node = 1; node <= ES_NODES; node++) {
      if ((await elasticsearchNodePid(node)) !== null || stopping()) continue;
      say(`Elasticsearch node ${node} is gone; starting it again`);
      await run('bash', ['infra/elasticsearch.sh', 'start-node', ...ES_ARGS, '--node', String(node)], { cwd: ROOT }).catch(
        (error: unknown) => say(`restarting Elasticsearch node ${node} failed: ${String(error)}`),
      );
    }
  }

  async function redisNode(node: RedisNode): Promise<void> {
    if (pidAlive(`${LOCAL_DIR}/redis/${node.name}/redis.pid`)) {
      redisDeadSince.delete(node.name);
      return;
    }
    if (stopping()) return;
    // Left to Sentinel while it may still fail over; then back as a replica of the primary.
    const deadSince = redisDeadSince.get(node.name) ?? Date.now();
    redisDeadSince.set(node.name, deadSince);
    const decision = redisRestart({
      address: `127.0.0.1:${node.port}`,
      sentinelPrimary: await sentinelPrimary(),
      deadForMs: Date.now() - deadSince,
      graceMs: REDIS_FAILOVER_GRACE_MS,
    });
    if (decision.action === 'wait') return;
    const primary = decision.replicaOf;
    const role = primary ? ['--replica-of', primary] : [];
    say(`Redis ${node.name} (port ${node.port}) is gone; starting it again${primary ? ` as a replica of ${primary}` : ''}`);
    await run('bash', ['infra/redis.sh', 'start', '--name', node.name, '--port', String(node.port), ...role], { cwd: ROOT }).then(
      () => redisDeadSince.delete(node.name),
      (error: unknown) => say(`restarting Redis ${node.name} failed: ${String(error)}`),
    );
  }

  async function sentinels(): Promise<void> {
    for (const port of SENTINEL_PORTS) {
      if (pidAlive(`${LOCAL_DIR}/redis-sentinel/${port}/sentinel.pid`) || stopping()) continue;
      say(`Sentinel ${port} is gone; starting it again`);
      await run('bash', ['infra/redis-sentinel.sh', 'start', ...sentinelArgs(primaryPort, port)], { cwd: ROOT }).catch((error: unknown) =>
        say(`restarting Sentinel ${port} failed: ${String(error)}`),
      );
    }
  }

  return async () => {
    if (stopping()) return;
    await elasticsearchNodes();
    for (const node of redisNodesOf(primaryPort)) await redisNode(node);
    await sentinels();
  };
}
