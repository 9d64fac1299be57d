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
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { prometheusConfig } from '../../packages/metrics/src/prometheus-config.ts';
import {
  acquireStackLock,
  haproxyCommand,
  haproxyConfig,
  haproxyServers,
  sendControl,
  serveControl,
  StackRunningError,
  Supervisor,
  type ControlRequest,
} from '../../packages/stack/src/index.ts';
import {
  createDemoKey,
  cursorSecret,
  ensureDemoUser,
  fillRecordVectors,
  LOCAL_DIR,
  prepareCatalogue,
  printWelcome,
  ROOT,
  runStep,
  sayAs,
  STACK_LOCK,
  waitForOk,
} from '../lib/stack-steps.ts';
import { redisRestart } from './redis-restart.ts';
import {
  backendsOf,
  EDGE_PORT,
  ES_CLUSTER_NAME,
  ES_HTTP_PORT,
  ES_NODES,
  instancesOf,
  INTERNAL_PORTS,
  parseCounts,
  portsOf,
  PROMETHEUS_PORT,
  REDIS_PRIMARY_PORT,
  REDIS_REPLICA_PORT,
  scrapeTargetsOf,
  SENTINEL_NAME,
  SENTINEL_PORTS,
  SERVICES,
  type Instance,
  type ServiceName,
} from './topology.ts';

const say = sayAs('cluster');
const CLUSTER_DIR = `${LOCAL_DIR}/cluster`;
export const CONTROL_SOCKET = `${CLUSTER_DIR}/control.sock`;
const HAPROXY_SOCKET = `${CLUSTER_DIR}/haproxy.sock`;
const READY_PATH = '/health/ready';
const EDGE_URL = `http://127.0.0.1:${EDGE_PORT}`;
const PROMETHEUS_URL = `http://127.0.0.1:${PROMETHEUS_PORT}`;
const run = promisify(execFile);
/** Sentinel's failover timeout (--failover-timeout-ms below) plus its down-after: then the watchdog restarts a dead primary itself. */
const REDIS_FAILOVER_GRACE_MS = 12_000;

const [command, ...rest] = process.argv.slice(2);
if (command === 'restart' || command === 'status') {
  await control(command === 'restart' ? { command, service: rest[0] ?? '' } : { command });
} else {
  await start(process.argv.slice(2));
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

async function start(args: string[]): Promise<void> {
  let parsed: ReturnType<typeof parseCounts>;
  try {
    parsed = parseCounts(args);
  } catch (error) {
    say(error instanceof Error ? error.message : String(error));
    process.exit(2);
  }
  const { counts, replicas } = parsed;
  const instances = instancesOf(counts);

  // 1. Refuse before anything else if a stack runs or a port is taken.
  mkdirSync(CLUSTER_DIR, { recursive: true });
  let release: () => void;
  try {
    release = await acquireStackLock({ file: STACK_LOCK, kind: 'cluster', ports: portsOf(instances) });
  } catch (error) {
    if (!(error instanceof StackRunningError)) throw error;
    say(`not starting: ${error.message}`);
    process.exit(1);
  }

  // The node the Sentinels called primary when the last cluster stopped (after a failover, the
  // other one: it holds the newest writes) starts as primary, the other as its replica, and the
  // Sentinels start afresh watching it. Starting from the Sentinels' old files instead would have
  // them name a node that now runs as a replica, and every client would wait for a primary.
  const primaryPort = lastSentinelPrimary() === REDIS_REPLICA_PORT ? REDIS_REPLICA_PORT : REDIS_PRIMARY_PORT;
  const sentinels = SENTINEL_PORTS.map((port) => `127.0.0.1:${port}`).join(',');
  // One environment for every instance and the ops CLI: Redis through Sentinel (REDIS_URL is
  // the initial primary, for tools that do not speak Sentinel), every internal call through HAProxy.
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    REDIS_URL: `redis://127.0.0.1:${primaryPort}`,
    REDIS_SENTINELS: sentinels,
    REDIS_SENTINEL_NAME: SENTINEL_NAME,
    ELASTICSEARCH_URL: `http://127.0.0.1:${INTERNAL_PORTS.elasticsearch}`,
    CATALOGUE_SERVICE_URL: `http://127.0.0.1:${INTERNAL_PORTS.catalogue}`,
    AUTH_SERVICE_URL: `http://127.0.0.1:${INTERNAL_PORTS.auth}`,
    MCP_SERVICE_URL: `http://127.0.0.1:${INTERNAL_PORTS.mcp}`,
    MCP_URL: EDGE_URL,
    PUBLIC_BASE_URL: `${EDGE_URL}/v1`,
    // HAProxy checks every instance each second: request lines at info would drown the terminal.
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
  };

  const supervisor = new Supervisor({
    onLine: (name, line) =>
      void process.stdout.write(
        name === 'supervisor' ? `\x1b[1m[cluster]\x1b[0m ${line}\n` : `\x1b[36m${name.padEnd(11)}\x1b[0m| ${line}\n`,
      ),
  });
  const startedInfra: { what: string; stop: () => void }[] = [];
  const infra = (script: string, ...scriptArgs: string[]) => spawnSync('bash', [script, ...scriptArgs], { cwd: ROOT, stdio: 'inherit' });
  let watchdog: NodeJS.Timeout | undefined;
  let controlServer: Awaited<ReturnType<typeof serveControl>> | undefined;
  let stopping = false;
  const busy = new Set<string>(); // services being rolled: one rolling restart per service at a time
  /** When the watchdog first saw each Redis node dead (it leaves a dead primary to Sentinel for a while). */
  const redisDeadSince = new Map<string, number>();

  async function stop(code: number): Promise<void> {
    if (stopping) return;
    stopping = true;
    clearInterval(watchdog);
    controlServer?.close();
    say('stopping instances and HAProxy');
    await supervisor.stopAll();
    for (const { what, stop: stopInfra } of startedInfra.reverse()) {
      say(`stopping ${what}`);
      stopInfra();
    }
    release();
    say('stopped');
    process.exit(code);
  }
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
  process.on('SIGHUP', () => void stop(0));
  const launcher = process.ppid;
  setInterval(() => {
    if (process.ppid !== launcher) void stop(0);
  }, 1_000).unref();

  const esArgs = ['--name', ES_CLUSTER_NAME, '--port', String(ES_HTTP_PORT), '--nodes', String(ES_NODES)];
  const redisNodes = [
    { name: 'cluster-a', port: REDIS_PRIMARY_PORT },
    { name: 'cluster-b', port: REDIS_REPLICA_PORT },
  ]
    .map((node) => ({ ...node, args: node.port === primaryPort ? ['--primary'] : ['--replica-of', `127.0.0.1:${primaryPort}`] }))
    .sort((a, b) => (a.port === primaryPort ? -1 : b.port === primaryPort ? 1 : 0));

  try {
    const haproxy = spawnSync('bash', ['infra/haproxy.sh', 'ensure'], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    if (haproxy.status !== 0) throw new Error('infra/haproxy.sh ensure failed');
    const haproxyBin = haproxy.stdout.trim();

    // catalogue and worker load the embedding model at start; fetch it as npm start does
    runStep(say, env, 'embedding model: fetching it if missing (cached under .local)', 'bash', ['infra/embedding-model.sh', 'fetch']);
    runStep(say, env, `starting Elasticsearch (${ES_NODES} nodes)`, 'bash', [
      'infra/elasticsearch.sh',
      'start',
      ...esArgs,
      '--heap',
      '512m',
    ]);
    startedInfra.push({ what: 'Elasticsearch', stop: () => infra('infra/elasticsearch.sh', 'stop', '--name', ES_CLUSTER_NAME) });
    for (const node of redisNodes) {
      runStep(say, env, `starting Redis ${node.name} on ${node.port}`, 'bash', [
        'infra/redis.sh',
        'start',
        '--name',
        node.name,
        '--port',
        String(node.port),
        ...node.args,
      ]);
      startedInfra.push({
        what: `Redis ${node.name}`,
        stop: () => infra('infra/redis.sh', 'stop', '--name', node.name, '--port', String(node.port)),
      });
    }
    const sentinelArgs = (port: number) => [
      '--port',
      String(port),
      '--monitor',
      `127.0.0.1:${primaryPort}`,
      '--name',
      SENTINEL_NAME,
      // Fast failover on one machine: a primary silent for 2 s is down.
      '--down-after-ms',
      '2000',
      '--failover-timeout-ms',
      '10000',
    ];
    for (const port of SENTINEL_PORTS) {
      rmSync(sentinelConfigFile(port), { force: true });
      runStep(say, env, `starting Redis Sentinel on ${port}`, 'bash', ['infra/redis-sentinel.sh', 'start', ...sentinelArgs(port)]);
      startedInfra.push({ what: `Sentinel ${port}`, stop: () => infra('infra/redis-sentinel.sh', 'stop', '--port', String(port)) });
    }

    // Prometheus before the instances, so it sees them come up: every instance's metrics port
    // (the same generator as `npm start --with-prometheus`), with the recording and alert rules.
    const prometheusFile = `${CLUSTER_DIR}/prometheus.yml`;
    writeFileSync(
      prometheusFile,
      prometheusConfig({ targets: scrapeTargetsOf(instances), ruleFiles: [`${ROOT}infra/prometheus/rules/*.yml`] }),
    );
    runStep(say, env, `starting Prometheus on ${PROMETHEUS_PORT} (${instances.length} targets)`, 'bash', [
      'infra/prometheus.sh',
      'start',
      '--name',
      'cluster',
      '--port',
      String(PROMETHEUS_PORT),
      '--config',
      prometheusFile,
    ]);
    startedInfra.push({ what: 'Prometheus', stop: () => infra('infra/prometheus.sh', 'stop', '--name', 'cluster') });

    const config = `${CLUSTER_DIR}/haproxy.cfg`;
    writeFileSync(config, haproxyConfig({ adminSocket: HAPROXY_SOCKET, backends: backendsOf(instances, READY_PATH) }));
    // No -q: quiet mode also silences the log lines of failed requests (stdout).
    supervisor.add({ name: 'haproxy', command: haproxyBin, args: ['-db', '-f', config], cwd: ROOT });

    await waitForOk(`${env.ELASTICSEARCH_URL}/_cluster/health?wait_for_status=yellow&timeout=1s`, 120_000);
    prepareCatalogue(say, env, ['--replicas', String(replicas)]);
    await setReplicas(env.ELASTICSEARCH_URL ?? '', replicas);

    const secret = cursorSecret();
    for (const instance of instances) supervisor.add(instanceSpec(instance, env, secret));
    await waitForInstances(instances, 240_000);
    await waitForOk(`${EDGE_URL}${READY_PATH}`, 30_000);
    // Record vectors for semantic search, in the background through the workers (as npm start).
    await fillRecordVectors(say, env, env.ELASTICSEARCH_URL ?? '');

    const demoKey = await createDemoKey(env);
    const demoUser = await ensureDemoUser(env);
    controlServer = await serveControl(CONTROL_SOCKET, async (request, progress) => {
      if (request.command === 'status') return status(supervisor, instances);
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
    });
    // One pass at a time: starting an Elasticsearch node takes longer than the interval.
    let checking = false;
    watchdog = setInterval(() => {
      if (checking) return;
      checking = true;
      void keepInfraUp(redisNodes, sentinelArgs).finally(() => (checking = false));
    }, 2_000);

    const summary = SERVICES.map((s) => `${counts[s]} ${s}`).join(', ');
    say(
      `ready: ${EDGE_URL}  (${summary}; Elasticsearch ${ES_NODES} nodes, ${replicas} replica; Redis primary + replica, ${SENTINEL_PORTS.length} Sentinels)`,
    );
    printWelcome(say, EDGE_URL, demoKey, demoUser);
    say(`Prometheus: ${PROMETHEUS_URL} (alerts: ${PROMETHEUS_URL}/alerts); one screen: npm run ops -- status`);
    say('rolling restart: npm run cluster -- restart <service>; state: npm run cluster -- status');
  } catch (error) {
    say(error instanceof Error ? error.message : String(error));
    await stop(1);
  }

  /** Instance i's process: its own port, everything else shared. */
  function instanceSpec(instance: Instance, sharedEnv: NodeJS.ProcessEnv, secret: string) {
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
        ...(instance.service === 'gateway' ? { TRUST_EDGE_REQUEST_ID: 'true' } : {}),
      },
      stopTimeoutMs: 25_000,
    };
  }

  async function waitForInstances(list: Instance[], timeoutMs: number): Promise<void> {
    await Promise.all(
      list.map((instance) =>
        waitForOk(`http://127.0.0.1:${instance.port}${READY_PATH}`, timeoutMs, () =>
          supervisor.list().some((p) => p.name === instance.name && p.running),
        ),
      ),
    );
    // …and HAProxy has seen them (rise 2): the edge routes to every instance.
    await waitForHaproxy(
      list.filter((i) => i.service !== 'worker').map((i) => `${i.service}/${i.name}`),
      'UP',
      30_000,
    );
  }

  async function rollingRestart(sup: Supervisor, list: Instance[], progress: (m: string) => void): Promise<void> {
    for (const instance of list) {
      const server = `${instance.service}/${instance.name}`;
      const balanced = instance.service !== 'worker';
      if (balanced) {
        // Out of rotation first: no new requests, in-flight ones finish (drain waits for them).
        await haproxyCommand(HAPROXY_SOCKET, `set server ${server} state drain`);
        const deadline = Date.now() + 10_000;
        while (((await haproxyServers(HAPROXY_SOCKET)).get(server)?.sessions ?? 0) > 0 && Date.now() < deadline) await sleep(100);
      }
      progress(`${instance.name}: restarting (pid ${sup.pid(instance.name) ?? '?'})`);
      try {
        await sup.restart(instance.name);
        await waitForOk(`http://127.0.0.1:${instance.port}${READY_PATH}`, 300_000);
      } finally {
        // Back in rotation even when it is slow to come up: HAProxy's checks decide when it gets traffic,
        // and a failed roll must not leave an instance drained for good.
        if (balanced) await haproxyCommand(HAPROXY_SOCKET, `set server ${server} state ready`);
      }
      if (balanced) await waitForHaproxy([server], 'UP', 60_000);
      progress(`${instance.name}: ready again (pid ${sup.pid(instance.name) ?? '?'})`);
    }
  }

  /** Starts again an Elasticsearch node, Redis node or Sentinel whose process is gone. */
  async function keepInfraUp(nodes: typeof redisNodes, sentinelArgs: (port: number) => string[]): Promise<void> {
    if (stopping) return;
    for (let node = 1; node <= ES_NODES; node++) {
      const alive = await run('bash', ['infra/elasticsearch.sh', 'node-pid', ...esArgs, '--node', String(node)], { cwd: ROOT }).then(
        () => true,
        () => false,
      );
      if (!alive && !stopping) {
        say(`Elasticsearch node ${node} is gone; starting it again`);
        await run('bash', ['infra/elasticsearch.sh', 'start-node', ...esArgs, '--node', String(node)], { cwd: ROOT }).catch(
          (error: unknown) => say(`restarting Elasticsearch node ${node} failed: ${String(error)}`),
        );
      }
    }
    for (const node of nodes) {
      if (pidAlive(`${LOCAL_DIR}/redis/${node.name}/redis.pid`)) {
        redisDeadSince.delete(node.name);
      } else if (!stopping) {
        // Left to Sentinel while it may still fail over; then back as a replica of the primary.
        const deadSince = redisDeadSince.get(node.name) ?? Date.now();
        redisDeadSince.set(node.name, deadSince);
        const decision = redisRestart({
          address: `127.0.0.1:${node.port}`,
          sentinelPrimary: await sentinelPrimary(),
          deadForMs: Date.now() - deadSince,
          graceMs: REDIS_FAILOVER_GRACE_MS,
        });
        if (decision.action === 'wait') continue;
        const primary = decision.replicaOf;
        const role = primary ? ['--replica-of', primary] : [];
        say(`Redis ${node.name} (port ${node.port}) is gone; starting it again${primary ? ` as a replica of ${primary}` : ''}`);
        await run('bash', ['infra/redis.sh', 'start', '--name', node.name, '--port', String(node.port), ...role], { cwd: ROOT }).then(
          () => redisDeadSince.delete(node.name),
          (error: unknown) => say(`restarting Redis ${node.name} failed: ${String(error)}`),
        );
      }
    }
    for (const port of SENTINEL_PORTS) {
      if (!pidAlive(`${LOCAL_DIR}/redis-sentinel/${port}/sentinel.pid`) && !stopping) {
        say(`Sentinel ${port} is gone; starting it again`);
        await run('bash', ['infra/redis-sentinel.sh', 'start', ...sentinelArgs(port)], { cwd: ROOT }).catch((error: unknown) =>
          say(`restarting Sentinel ${port} failed: ${String(error)}`),
        );
      }
    }
  }
}

// A function declaration, not a const: start() runs (top-level await) before this line is reached.
function sentinelConfigFile(port: number): string {
  return `${LOCAL_DIR}/redis-sentinel/${port}/sentinel.conf`;
}

/** The Redis port the Sentinels' own files (rewritten on every failover) name as primary, if any. */
function lastSentinelPrimary(): number | undefined {
  for (const port of SENTINEL_PORTS) {
    const file = sentinelConfigFile(port);
    if (!existsSync(file)) continue;
    const monitored = /^sentinel monitor \S+ \S+ (\d+)/m.exec(readFileSync(file, 'utf8'));
    if (monitored) return Number(monitored[1]);
  }
  return undefined;
}

function pidAlive(pidFile: string): boolean {
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
async function sentinelPrimary(): Promise<string | null> {
  for (const port of SENTINEL_PORTS) {
    const reply = await run('redis-cli', ['-p', String(port), 'sentinel', 'get-master-addr-by-name', SENTINEL_NAME]).catch(() => null);
    const address = reply?.stdout.trim().split('\n');
    if (address?.length === 2) return address.join(':');
  }
  return null;
}

async function waitForHaproxy(servers: string[], state: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const current = await haproxyServers(HAPROXY_SOCKET);
    const pending = servers.filter((s) => !current.get(s)?.status.startsWith(state));
    if (pending.length === 0) return;
    if (Date.now() > deadline) throw new Error(`HAProxy does not see ${pending.join(', ')} as ${state}`);
    await sleep(200);
  }
}

/**
 * Applies the replica count to the live catalogue index and its suggestion index (ingest sets it
 * only on new versions): one copy-less index turns the cluster red when its node dies.
 */
async function setReplicas(esUrl: string, replicas: number): Promise<void> {
  const res = await fetch(`${esUrl}/fragrances,fragrances-suggest/_settings`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ index: { number_of_replicas: replicas } }),
  });
  if (!res.ok) throw new Error(`setting ${replicas} replica(s) on the catalogue failed: ${res.status} ${await res.text()}`);
  await waitForOk(`${esUrl}/_cluster/health/fragrances,fragrances-suggest?wait_for_status=green&timeout=5s`, 120_000);
}

async function status(supervisor: Supervisor, instances: Instance[]): Promise<unknown> {
  const servers = await haproxyServers(HAPROXY_SOCKET);
  const processes = new Map(supervisor.list().map((p) => [p.name, p]));
  const es = await Promise.all(
    Array.from({ length: ES_NODES }, async (_, i) => {
      const pid = await run('bash', ['infra/elasticsearch.sh', 'node-pid', '--name', ES_CLUSTER_NAME, '--node', String(i + 1)], {
        cwd: ROOT,
      }).then(
        (r) => Number(r.stdout.trim()),
        () => null,
      );
      return { node: `${ES_CLUSTER_NAME}-${i + 1}`, port: ES_HTTP_PORT + i, pid };
    }),
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
