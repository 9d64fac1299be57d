// The cluster's service instances: how each runs, waiting for them behind HAProxy, rolling
// restarts, and the state `npm run cluster -- status` prints.
import { existsSync, readFileSync } from 'node:fs';
import pWaitFor, { TimeoutError } from 'p-wait-for';
import { fallbackName, haproxyCommand, haproxyServers, type ControlRequest, type Supervisor } from '@fragrance/stack';
import { LOCAL_DIR, ROOT, waitForOk } from '../lib/stack-steps.ts';
import { elasticsearchNodePid, sentinelPrimary } from './infra.ts';
import { EDGE_URL, HAPROXY_SOCKET, PROMETHEUS_URL, READY_PATH } from './paths.ts';
import {
  ES_CLUSTER_NAME,
  ES_HTTP_PORT,
  ES_NODES,
  INTERNAL_PORTS,
  REDIS_PRIMARY_PORT,
  REDIS_REPLICA_PORT,
  SENTINEL_NAME,
  SENTINEL_PORTS,
  SERVICES,
  type Instance,
  type ServiceName,
} from './topology.ts';

/**
 * The cluster shares two cores with everything else on the machine (load 25-30 while test suites
 * run): an Elasticsearch search then takes 5-10 s, past the 5 s the catalogue waits by default,
 * and a catalogue answer past the gateway's 10 s. Each tier waits longer than the one below it
 * (with one retry of HAProxy's), inside HAProxy's 30 s server timeout. A real outage is still cut
 * short by the catalogue's breaker and HAProxy's checks, not by these.
 */
const LOADED_MACHINE_TIMEOUTS: Partial<Record<Instance['service'], Record<string, string>>> = {
  catalogue: { ELASTICSEARCH_TIMEOUT_MS: '10000' },
  mcp: { CATALOGUE_TIMEOUT_MS: '22000' },
  gateway: { UPSTREAM_TIMEOUT_MS: '25000' },
};

/** Instance i's process: its own port, everything else shared. */
export function instanceSpec(instance: Instance, sharedEnv: NodeJS.ProcessEnv, secret: string) {
  return {
    name: instance.name,
    command: process.execPath,
    args: [`services/${instance.service}/src/main.ts`],
    cwd: ROOT,
    env: {
      ...sharedEnv,
      PORT: String(instance.port),
      METRICS_PORT: String(instance.metricsPort),
      ...(instance.service === 'catalogue' ? { CURSOR_SECRET: secret } : {}),
      // The edge sets X-Edge-Request-Id on every request, overwriting the client's: admission
      // counts a request the edge retries on another gateway once.
      // It also appends the client's address to X-Forwarded-For, which the gateways (behind it on
      // loopback) read for publishable keys' per-visitor limits.
      ...(instance.service === 'gateway' ? { TRUST_EDGE_REQUEST_ID: 'true', TRUST_PROXY: 'loopback' } : {}),
      // A token request makes a few Redis calls and nothing serves it locally: a spurious timeout
      // (a 500 ms timer firing after an event-loop stall on a loaded machine, the reply already
      // there) is a refused refresh. The hot-path services keep 500 ms: they admit or skip the
      // cache on a timeout instead of failing.
      ...(instance.service === 'auth' ? { REDIS_COMMAND_TIMEOUT_MS: '2000' } : {}),
      ...LOADED_MACHINE_TIMEOUTS[instance.service],
    },
    stopTimeoutMs: 25_000,
  };
}

export async function waitForHaproxy(servers: string[], state: string, timeoutMs: number): Promise<void> {
  let pending = servers;
  const seen = async () => {
    const current = await haproxyServers(HAPROXY_SOCKET);
    pending = servers.filter((s) => !current.get(s)?.status.startsWith(state));
    return pending.length === 0;
  };
  try {
    await pWaitFor(seen, { interval: 200, timeout: timeoutMs });
  } catch (error) {
    if (error instanceof TimeoutError) throw new Error(`HAProxy does not see ${pending.join(', ')} as ${state}`, { cause: error });
    throw error;
  }
}

/** Every instance answers ready while its process runs, and HAProxy has seen it (rise 2): the edge routes to all. */
export async function waitForInstances(supervisor: Supervisor, list: Instance[], timeoutMs: number): Promise<void> {
  await Promise.all(
    list.map((instance) =>
      waitForOk(`http://127.0.0.1:${instance.port}${READY_PATH}`, timeoutMs, () =>
        supervisor.list().some((p) => p.name === instance.name && p.running),
      ),
    ),
  );
  await waitForHaproxy(
    list.filter((i) => i.service !== 'worker').map((i) => `${i.service}/${i.name}`),
    'UP',
    30_000,
  );
}

/** One instance at a time: out of rotation, drained, restarted, ready, back in rotation. */
async function rollingRestart(sup: Supervisor, list: Instance[], progress: (m: string) => void): Promise<void> {
  for (const instance of list) {
    const server = `${instance.service}/${instance.name}`;
    const balanced = instance.service !== 'worker';
    // Its last-resort entry (used only while every instance fails its checks) leaves with it.
    const entries = [server, `${instance.service}/${fallbackName(instance.name)}`];
    if (balanced) {
      // Out of rotation first: no new requests, in-flight ones finish (drain waits for them).
      for (const entry of entries) await haproxyCommand(HAPROXY_SOCKET, `set server ${entry} state drain`);
      const drained = async () => {
        const current = await haproxyServers(HAPROXY_SOCKET);
        return entries.every((entry) => (current.get(entry)?.sessions ?? 0) === 0);
      };
      // At most 10 s: a request still running then is cut by the restart, as a deploy would.
      await pWaitFor(drained, { interval: 100, timeout: { milliseconds: 10_000, fallback: () => undefined } });
    }
    progress(`${instance.name}: restarting (pid ${sup.pid(instance.name) ?? '?'})`);
    try {
      await sup.restart(instance.name);
      await waitForOk(`http://127.0.0.1:${instance.port}${READY_PATH}`, 300_000);
    } finally {
      // Back in rotation even when it is slow to come up: HAProxy's checks decide when it gets traffic,
      // and a failed roll must not leave an instance drained for good.
      if (balanced) for (const entry of entries) await haproxyCommand(HAPROXY_SOCKET, `set server ${entry} state ready`);
    }
    if (balanced) await waitForHaproxy([server], 'UP', 60_000);
    progress(`${instance.name}: ready again (pid ${sup.pid(instance.name) ?? '?'})`);
  }
}

/** The control socket's handler: `status`, or a rolling restart of one service (one at a time per service). */
export function controlHandler(supervisor: Supervisor, instances: Instance[]) {
  const busy = new Set<string>();
  return async (request: ControlRequest, progress: (m: string) => void): Promise<unknown> => {
    if (request.command === 'status') return clusterStatus(supervisor, instances);
    const service = request.service as ServiceName;
    if (!SERVICES.includes(service)) throw new Error(`unknown service ${request.service}`);
    if (busy.has(service)) throw new Error(`a rolling restart of ${service} is already under way`);
    busy.add(service);
    try {
      await rollingRestart(
        supervisor,
        instances.filter((i) => i.service === service),
        progress,
      );
    } finally {
      busy.delete(service);
    }
    return null;
  };
}

async function clusterStatus(supervisor: Supervisor, instances: Instance[]): Promise<unknown> {
  const servers = await haproxyServers(HAPROXY_SOCKET);
  const processes = new Map(supervisor.list().map((p) => [p.name, p]));
  const es = await Promise.all(
    Array.from({ length: ES_NODES }, async (_, i) => ({
      node: `${ES_CLUSTER_NAME}-${i + 1}`,
      port: ES_HTTP_PORT + i,
      pid: await elasticsearchNodePid(i + 1),
    })),
  );
  const master = await fetch(`http://127.0.0.1:${INTERNAL_PORTS.elasticsearch}/_cat/master?h=node`)
    .then((r) => r.text())
    .then((t) => t.trim())
    .catch(() => null);
  const primary = await sentinelPrimary();
  const redisPid = (name: string) => {
    const file = `${LOCAL_DIR}/redis/${name}/redis.pid`;
    return existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) : null;
  };
  return {
    edge: EDGE_URL,
    haproxy: { pid: processes.get('haproxy')?.pid ?? null, socket: HAPROXY_SOCKET },
    prometheus: PROMETHEUS_URL,
    instances: instances.map((i) => ({
      ...i,
      pid: processes.get(i.name)?.pid ?? null,
      restarts: processes.get(i.name)?.restarts ?? 0,
      haproxy: servers.get(`${i.service}/${i.name}`)?.status ?? null,
    })),
    elasticsearch: { master, nodes: es },
    redis: {
      primary,
      nodes: [
        { name: 'cluster-a', port: REDIS_PRIMARY_PORT, pid: redisPid('cluster-a') },
        { name: 'cluster-b', port: REDIS_REPLICA_PORT, pid: redisPid('cluster-b') },
      ],
      sentinels: SENTINEL_PORTS,
      sentinelName: SENTINEL_NAME,
    },
  };
}
