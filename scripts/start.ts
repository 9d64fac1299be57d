// `npm start`: brings up Elasticsearch, Redis and every service on loopback, prepares the
// catalogue and a demo key, prints where to go, keeps the services up (a crashed one is
// restarted with backoff) and stops on Ctrl-C or SIGTERM: the services, then only the
// Elasticsearch/Redis this start brought up itself.
//
// A second start while one runs refuses before touching anything: the stack lock
// (.local/stack.lock, shared with `npm run cluster`) and the service ports are checked first.
// Runs under the project's Node 24 (scripts/toolchain.sh) with type stripping.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { DEV_PORTS, devStackPortUses } from '@fragrance/config';
import { prometheusConfig } from '@fragrance/metrics';
import { acquireStackLock, StackRunningError, Supervisor } from '@fragrance/stack';
import { inheritedEnv, scriptsConfig } from './config.ts';
import {
  createDemoKey,
  createStorefrontKey,
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
} from './lib/stack-steps.ts';

// Every port here is the port map's (@fragrance/config DEV_PORTS).
const url = (port: number) => `http://127.0.0.1:${port}`;
const GATEWAY_URL = url(DEV_PORTS.services.gateway.http);
const ELASTICSEARCH_URL = url(DEV_PORTS.elasticsearch);
const REDIS_URL = `redis://127.0.0.1:${DEV_PORTS.redis}`;
const say = sayAs('start');

// Every service and the ops CLI get the same environment, so a REDIS_PREFIX set by the caller is the
// same for gateway, auth and mcp (mcp must read the revocation records auth writes under it).
const sharedEnv = {
  ...inheritedEnv(),
  ELASTICSEARCH_URL,
  REDIS_URL,
  CATALOGUE_SERVICE_URL: url(DEV_PORTS.services.catalogue.http),
  // The gateway mounts /mcp and the protected resource metadata when this is set.
  MCP_SERVICE_URL: url(DEV_PORTS.services.mcp.http),
  // The gateway routes /oauth/* and the authorization server metadata to auth; MCP_URL is the issuer.
  AUTH_SERVICE_URL: url(DEV_PORTS.services.auth.http),
  MCP_URL: GATEWAY_URL,
};

// `npm start --with-prometheus` (npm passes the flag on as npm_config_with_prometheus) also runs a
// Prometheus on :9090 scraping every service's metrics port with the project's rules.
const withPrometheus = process.argv.includes('--with-prometheus') || scriptsConfig.npm_config_with_prometheus;
const PROMETHEUS_URL = url(DEV_PORTS.prometheus);

/** Every long-running service of the stack, in start order (the gateway's readiness needs the three before it). */
const services = (['catalogue', 'auth', 'mcp', 'gateway', 'worker'] as const).map((name) => ({
  name,
  port: DEV_PORTS.services[name].http,
  metricsPort: DEV_PORTS.services[name].metrics,
}));

/**
 * The gateway's node flags, as in its Kubernetes Deployment (infra/k8s/base/gateway.yaml): a young
 * generation of 2 x 4 MB, not up to 2 x 64 MB under load, at no cost in CPU per request.
 */
const GATEWAY_NODE_OPTIONS = '--max-semi-space-size=4';

/** Writes the scrape config for every service's metrics port and starts Prometheus on it. */
function startPrometheus(): void {
  const dir = `${LOCAL_DIR}/prometheus`;
  mkdirSync(dir, { recursive: true });
  const config = `${dir}/dev.yml`;
  const targets = services.map((s) => ({ service: s.name, address: `127.0.0.1:${s.metricsPort}` }));
  say('prometheus: writing its scrape config');
  writeFileSync(config, prometheusConfig({ targets, ruleFiles: [`${ROOT}infra/prometheus/rules/*.yml`] }));
  runStep(say, sharedEnv, 'starting Prometheus', 'bash', [
    'infra/prometheus.sh',
    'start',
    '--name',
    'dev',
    '--port',
    String(DEV_PORTS.prometheus),
    '--config',
    config,
  ]);
  startedInfra.push(() => void spawnSync('bash', ['infra/prometheus.sh', 'stop', '--name', 'dev'], { cwd: ROOT, stdio: 'inherit' }));
}

const up = (script: string, args: string[]) => spawnSync('bash', [script, 'status', ...args], { cwd: ROOT, stdio: 'ignore' }).status === 0;

// 1. Refuse before anything else if a stack runs or a service port is taken.
mkdirSync(LOCAL_DIR, { recursive: true });
let release: () => void;
try {
  release = await acquireStackLock({
    file: STACK_LOCK,
    kind: 'start',
    ports: devStackPortUses().services,
  });
} catch (error) {
  if (!(error instanceof StackRunningError)) throw error;
  say(`not starting: ${error.message}`);
  process.exit(1);
}

const supervisor = new Supervisor({
  onLine: (name, line) =>
    void process.stdout.write(name === 'supervisor' ? `\x1b[1m[start]\x1b[0m ${line}\n` : `\x1b[36m${name.padEnd(9)}\x1b[0m| ${line}\n`),
});
/** Infra this start brought up (and so stops); infra already running is used and left alone. */
const startedInfra: (() => void)[] = [];
let stopping = false;

async function stop(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  say('stopping services');
  await supervisor.stopAll();
  for (const stopInfra of startedInfra.reverse()) stopInfra();
  release();
  say('stopped');
  process.exit(code);
}

process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));
process.on('SIGHUP', () => void stop(0));
// If whatever launched us dies without passing the signal on, do not leave the stack orphaned.
const launcher = process.ppid;
setInterval(() => {
  if (process.ppid !== launcher) void stop(0);
}, 1_000).unref();

try {
  if (up('infra/elasticsearch.sh', [])) {
    say(`Elasticsearch already up at ${ELASTICSEARCH_URL} (not started here, so left running on exit)`);
  } else {
    runStep(say, sharedEnv, 'starting Elasticsearch', 'bash', ['infra/elasticsearch.sh', 'start', '--heap', '1g']);
    startedInfra.push(() => void spawnSync('bash', ['infra/elasticsearch.sh', 'stop'], { cwd: ROOT, stdio: 'inherit' }));
  }
  if (up('infra/redis.sh', [])) {
    say(`Redis already up at ${REDIS_URL} (not started here, so left running on exit)`);
  } else {
    runStep(say, sharedEnv, 'starting Redis', 'bash', ['infra/redis.sh', 'start']);
    startedInfra.push(() => void spawnSync('bash', ['infra/redis.sh', 'stop'], { cwd: ROOT, stdio: 'inherit' }));
  }
  runStep(say, sharedEnv, 'embedding model: fetching it if missing (cached under .local)', 'bash', ['infra/embedding-model.sh', 'fetch']);
  prepareCatalogue(say, sharedEnv);
  const secret = cursorSecret();
  for (const { name, port, metricsPort } of services) {
    supervisor.add({
      name,
      command: process.execPath,
      args: [`services/${name}/src/main.ts`],
      cwd: ROOT,
      env: {
        ...sharedEnv,
        PORT: String(port),
        METRICS_PORT: String(metricsPort),
        ...(name === 'catalogue' ? { CURSOR_SECRET: secret } : {}),
        ...(name === 'gateway' ? { NODE_OPTIONS: [scriptsConfig.NODE_OPTIONS, GATEWAY_NODE_OPTIONS].filter(Boolean).join(' ') } : {}),
      },
    });
  }
  // The ports were free before our services started, so what answers there now is ours.
  await waitForOk(`${GATEWAY_URL}/health`, 180_000, () => supervisor.list().some((p) => p.name === 'gateway' && p.running));
  if (withPrometheus) startPrometheus();
  await fillRecordVectors(say, sharedEnv, ELASTICSEARCH_URL);
  const demoKey = await createDemoKey(sharedEnv);
  const storefrontKey = await createStorefrontKey(sharedEnv, GATEWAY_URL);
  const demoUser = await ensureDemoUser(sharedEnv);
  say(`ready: ${GATEWAY_URL}  (health: ${GATEWAY_URL}/health)`);
  say(
    withPrometheus
      ? `Prometheus: ${PROMETHEUS_URL} (alerts: ${PROMETHEUS_URL}/alerts); one screen: npm run ops -- status`
      : `metrics: each service on 127.0.0.1:${DEV_PORTS.services.gateway.metrics}-${DEV_PORTS.services.worker.metrics}/metrics; npm run ops -- status (npm start --with-prometheus adds Prometheus)`,
  );
  printWelcome(say, GATEWAY_URL, demoKey, demoUser, storefrontKey);
} catch (error) {
  say(error instanceof Error ? error.message : String(error));
  await stop(1);
}
