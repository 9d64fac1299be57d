// `npm run cluster`: the production topology on loopback. HAProxy on :8080 (and loopback
// frontends for service-to-service calls and Elasticsearch), N instances of every service under
// one supervisor, a 3-node Elasticsearch, a Redis primary + replica guarded by 3 Sentinels.
//
//   npm run cluster [-- --gateway 3 --catalogue 2 --auth 2 --mcp 2 --worker 2 --es-replicas 1]
//   npm run cluster -- restart <service>    rolling restart of a running cluster, one instance at a time
//   npm run cluster -- status               instances, pids, HAProxy states, ES nodes, Redis primary
//
// Instances that crash are restarted by the supervisor (backoff + log line); Elasticsearch
// nodes, Redis nodes and Sentinels run as daemons and a watchdog starts a dead one again.
// Ctrl-C/SIGTERM stops the services, HAProxy, then the infra this cluster started. Like
// `npm start`, it refuses before touching anything while a stack runs or a port it needs is taken.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { clusterPortUses } from '@fragrance/config';
import {
  acquireStackLock,
  haproxyConfig,
  sendControl,
  serveControl,
  StackRunningError,
  Supervisor,
  type ControlRequest,
} from '@fragrance/stack';
import { inheritedEnv, scriptsConfig } from '../config.ts';
import {
  createDemoKey,
  cursorSecret,
  ensureDemoUser,
  fillRecordVectors,
  prepareCatalogue,
  printWelcome,
  ROOT,
  runStep,
  sayAs,
  STACK_LOCK,
  waitForOk,
} from '../lib/stack-steps.ts';
import { initialPrimaryPort, infraWatchdog, setReplicas, startDataStores, startPrometheus, type StartedInfra } from './infra.ts';
import { controlHandler, instanceSpec, waitForInstances } from './instances.ts';
import { CLUSTER_DIR, CONTROL_SOCKET, EDGE_URL, HAPROXY_SOCKET, PROMETHEUS_URL, READY_PATH } from './paths.ts';
import {
  backendsOf,
  ES_NODES,
  instancesOf,
  INTERNAL_PORTS,
  parseCounts,
  SENTINEL_NAME,
  SENTINEL_PORTS,
  SERVICES,
  type Counts,
  type Instance,
} from './topology.ts';

const say = sayAs('cluster');

/**
 * One environment for every instance and the ops CLI: Redis through Sentinel (REDIS_URL is the
 * initial primary, for tools that do not speak Sentinel), every internal call through HAProxy.
 */
function clusterEnv(primaryPort: number): NodeJS.ProcessEnv {
  return {
    ...inheritedEnv(),
    REDIS_URL: `redis://127.0.0.1:${primaryPort}`,
    REDIS_SENTINELS: SENTINEL_PORTS.map((port) => `127.0.0.1:${port}`).join(','),
    REDIS_SENTINEL_NAME: SENTINEL_NAME,
    ELASTICSEARCH_URL: `http://127.0.0.1:${INTERNAL_PORTS.elasticsearch}`,
    CATALOGUE_SERVICE_URL: `http://127.0.0.1:${INTERNAL_PORTS.catalogue}`,
    AUTH_SERVICE_URL: `http://127.0.0.1:${INTERNAL_PORTS.auth}`,
    MCP_SERVICE_URL: `http://127.0.0.1:${INTERNAL_PORTS.mcp}`,
    MCP_URL: EDGE_URL,
    PUBLIC_BASE_URL: `${EDGE_URL}/v1`,
    // HAProxy checks every instance each second: request lines at info would drown the terminal.
    LOG_LEVEL: scriptsConfig.LOG_LEVEL ?? 'warn',
  };
}

/** The instance counts and replicas asked for; a usage error exits 2. */
function countsOrExit(args: string[]): ReturnType<typeof parseCounts> {
  try {
    return parseCounts(args);
  } catch (error) {
    say(error instanceof Error ? error.message : String(error));
    process.exit(2);
  }
}

/** The stack lock: refuses (exit 1) before anything else if a stack runs or a port is taken. */
async function lockOrExit(counts: Counts): Promise<() => void> {
  mkdirSync(CLUSTER_DIR, { recursive: true });
  try {
    return await acquireStackLock({ file: STACK_LOCK, kind: 'cluster', ports: clusterPortUses(counts) });
  } catch (error) {
    if (!(error instanceof StackRunningError)) throw error;
    say(`not starting: ${error.message}`);
    process.exit(1);
  }
}

/** What a running cluster holds, so stopping it stops exactly that. */
interface Running {
  supervisor: Supervisor;
  started: StartedInfra[];
  release: () => void;
  watchdog?: NodeJS.Timeout;
  controlServer?: Awaited<ReturnType<typeof serveControl>>;
  stopping: boolean;
}

/** Stops the instances and HAProxy, then the infra this cluster started (newest first), and exits. */
async function stop(cluster: Running, code: number): Promise<void> {
  if (cluster.stopping) return;
  cluster.stopping = true;
  clearInterval(cluster.watchdog);
  cluster.controlServer?.close();
  say('stopping instances and HAProxy');
  await cluster.supervisor.stopAll();
  for (const { what, stop: stopInfra } of cluster.started.reverse()) {
    say(`stopping ${what}`);
    stopInfra();
  }
  cluster.release();
  say('stopped');
  process.exit(code);
}

/** Stops on Ctrl-C, SIGTERM, SIGHUP, or when whatever launched us dies without passing the signal on. */
function stopOnSignals(cluster: Running): void {
  process.on('SIGINT', () => void stop(cluster, 0));
  process.on('SIGTERM', () => void stop(cluster, 0));
  process.on('SIGHUP', () => void stop(cluster, 0));
  const launcher = process.ppid;
  setInterval(() => {
    if (process.ppid !== launcher) void stop(cluster, 0);
  }, 1_000).unref();
}

/** HAProxy's binary (infra/haproxy.sh installs Debian's when missing). */
function ensureHaproxy(): string {
  const haproxy = spawnSync('bash', ['infra/haproxy.sh', 'ensure'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (haproxy.status !== 0) throw new Error('infra/haproxy.sh ensure failed');
  return haproxy.stdout.trim();
}

/** HAProxy in front of the instances, supervised like them. */
function addHaproxy(supervisor: Supervisor, haproxyBin: string, instances: Instance[]): void {
  const config = `${CLUSTER_DIR}/haproxy.cfg`;
  writeFileSync(config, haproxyConfig({ adminSocket: HAPROXY_SOCKET, backends: backendsOf(instances, READY_PATH) }));
  // No -q: quiet mode also silences the log lines of failed requests (stdout).
  supervisor.add({ name: 'haproxy', command: haproxyBin, args: ['-db', '-f', config], cwd: ROOT });
}

/** The catalogue with its replicas, then every instance, ready behind the edge. */
async function startInstances(supervisor: Supervisor, env: NodeJS.ProcessEnv, instances: Instance[], replicas: number): Promise<void> {
  const elasticsearchUrl = env.ELASTICSEARCH_URL ?? '';
  await waitForOk(`${elasticsearchUrl}/_cluster/health?wait_for_status=yellow&timeout=1s`, 120_000);
  prepareCatalogue(say, env, ['--replicas', String(replicas)]);
  await setReplicas(elasticsearchUrl, replicas);
  const secret = cursorSecret();
  for (const instance of instances) supervisor.add(instanceSpec(instance, env, secret));
  await waitForInstances(supervisor, instances, 240_000);
  await waitForOk(`${EDGE_URL}${READY_PATH}`, 30_000);
  // Record vectors for semantic search, in the background through the workers (as npm start).
  await fillRecordVectors(say, env, elasticsearchUrl);
}

/** The control socket (`npm run cluster -- restart|status`) and the infra watchdog, one pass at a time. */
async function serveOperations(cluster: Running, instances: Instance[], primaryPort: number): Promise<void> {
  cluster.controlServer = await serveControl(CONTROL_SOCKET, controlHandler(cluster.supervisor, instances));
  const keepInfraUp = infraWatchdog(primaryPort, () => cluster.stopping);
  // One pass at a time: starting an Elasticsearch node takes longer than the interval.
  let checking = false;
  cluster.watchdog = setInterval(() => {
    if (checking) return;
    checking = true;
    void keepInfraUp().finally(() => (checking = false));
  }, 2_000);
}

async function start(args: string[]): Promise<void> {
  const { counts, replicas } = countsOrExit(args);
  const instances = instancesOf(counts);
  const release = await lockOrExit(counts);
  const primaryPort = initialPrimaryPort();
  const env = clusterEnv(primaryPort);
  const supervisor = new Supervisor({
    onLine: (name, line) =>
      void process.stdout.write(
        name === 'supervisor' ? `\x1b[1m[cluster]\x1b[0m ${line}\n` : `\x1b[36m${name.padEnd(11)}\x1b[0m| ${line}\n`,
      ),
  });
  const cluster: Running = { supervisor, started: [], release, stopping: false };
  stopOnSignals(cluster);
  try {
    const haproxyBin = ensureHaproxy();
    // catalogue and worker load the embedding model at start; fetch it as npm start does
    runStep(say, env, 'embedding model: fetching it if missing (cached under .local)', 'bash', ['infra/embedding-model.sh', 'fetch']);
    startDataStores(env, primaryPort, cluster.started);
    startPrometheus(env, instances, cluster.started);
    addHaproxy(supervisor, haproxyBin, instances);
    await startInstances(supervisor, env, instances, replicas);
    const demoKey = await createDemoKey(env);
    const demoUser = await ensureDemoUser(env);
    await serveOperations(cluster, instances, primaryPort);
    const summary = SERVICES.map((s) => `${counts[s]} ${s}`).join(', ');
    say(
      `ready: ${EDGE_URL}  (${summary}; Elasticsearch ${ES_NODES} nodes, ${replicas} replica; Redis primary + replica, ${SENTINEL_PORTS.length} Sentinels)`,
    );
    printWelcome(say, EDGE_URL, demoKey, demoUser);
    say(`Prometheus: ${PROMETHEUS_URL} (alerts: ${PROMETHEUS_URL}/alerts); one screen: npm run ops -- status`);
    say('rolling restart: npm run cluster -- restart <service>; state: npm run cluster -- status');
  } catch (error) {
    say(error instanceof Error ? error.message : String(error));
    await stop(cluster, 1);
  }
}

async function control(request: ControlRequest): Promise<void> {
  if (request.command === 'restart' && !(SERVICES as readonly string[]).includes(request.service)) {
    say(`usage: npm run cluster -- restart <${SERVICES.join('|')}>`);
    process.exit(2);
  }
  try {
    const data = await sendControl(CONTROL_SOCKET, request, (message) => say(message));
    if (request.command === 'status') process.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
    else say(`rolling restart of ${request.service} done`);
  } catch (error) {
    say(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}

// Last, after every declaration: the top-level await runs start() and control() at once.
const [command, ...rest] = process.argv.slice(2);
if (command === 'restart' || command === 'status') {
  await control(command === 'restart' ? { command, service: rest[0] ?? '' } : { command });
} else {
  await start(process.argv.slice(2));
}
