// `npm start`: brings up Elasticsearch, Redis and every service on loopback, prepares the
// catalogue and a demo key, prints where to go, and stops everything on Ctrl-C or SIGTERM.
// Runs under the project's Node 24 (scripts/toolchain.sh) with type stripping.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const GATEWAY_URL = 'http://127.0.0.1:8080';
const ELASTICSEARCH_URL = 'http://127.0.0.1:9200';
const REDIS_URL = 'redis://127.0.0.1:6379';

// Every service and the ops CLI get the same environment, so a REDIS_PREFIX set by the caller is the
// same for gateway, auth and mcp (mcp must read the revocation records auth writes under it).
const sharedEnv = {
  ...process.env,
  ELASTICSEARCH_URL,
  REDIS_URL,
  CATALOGUE_SERVICE_URL: 'http://127.0.0.1:8081',
  // The gateway mounts /mcp and the protected resource metadata when this is set.
  MCP_SERVICE_URL: 'http://127.0.0.1:8083',
  // The gateway routes /oauth/* and the authorization server metadata to auth; MCP_URL is the issuer.
  AUTH_SERVICE_URL: 'http://127.0.0.1:8082',
  MCP_URL: GATEWAY_URL,
};

/**
 * The catalogue's cursor signing key (CURSOR_SECRET): the operator's if set, else one generated
 * on the first start and kept in .local/ (git-ignored, owner-only), so cursors survive restarts.
 */
function cursorSecret(): string {
  if (process.env.CURSOR_SECRET) return process.env.CURSOR_SECRET;
  const dir = `${process.env.FRAGRANCE_LOCAL_DIR ?? `${root}.local`}/catalogue`;
  const file = `${dir}/cursor-secret`;
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return secret;
}

// `npm start --with-prometheus` (npm passes the flag on as npm_config_with_prometheus) also runs a
// Prometheus on :9090 scraping every service's metrics port with the project's rules.
const withPrometheus = process.argv.includes('--with-prometheus') || process.env.npm_config_with_prometheus === 'true';
const PROMETHEUS_URL = 'http://127.0.0.1:9090';

/** Every long-running service of the stack, in start order. */
const services: { name: string; env: Record<string, string> }[] = [
  { name: 'catalogue', env: { PORT: '8081', METRICS_PORT: '9481', CURSOR_SECRET: cursorSecret() } },
  { name: 'auth', env: { PORT: '8082', METRICS_PORT: '9482' } },
  { name: 'mcp', env: { PORT: '8083', METRICS_PORT: '9483' } },
  { name: 'gateway', env: { PORT: '8080', METRICS_PORT: '9480' } },
  { name: 'worker', env: { PORT: '8084', METRICS_PORT: '9484' } },
];

/** Writes the scrape config for every service's metrics port and starts Prometheus on it. */
function startPrometheus(): void {
  const dir = `${process.env.FRAGRANCE_LOCAL_DIR ?? `${root}.local`}/prometheus`;
  mkdirSync(dir, { recursive: true });
  const config = `${dir}/dev.yml`;
  const targets = services.map((s) => `${s.name}=127.0.0.1:${s.env.METRICS_PORT}`);
  runStep('prometheus: writing its scrape config', process.execPath, ['infra/prometheus/config.ts', '--out', config, ...targets]);
  runStep('starting Prometheus', 'bash', ['infra/prometheus.sh', 'start', '--name', 'dev', '--port', '9090', '--config', config]);
}

const children = new Map<string, ChildProcess>();
let stopping = false;

function say(message: string): void {
  process.stdout.write(`\x1b[1m[start]\x1b[0m ${message}\n`);
}

function runStep(description: string, command: string, args: string[]): void {
  say(description);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: sharedEnv });
  if (result.status !== 0) throw new Error(`${description} failed (exit ${result.status ?? result.signal})`);
}

function startService(name: string, env: Record<string, string> = {}): void {
  const child = spawn(process.execPath, [`services/${name}/src/main.ts`], {
    cwd: root,
    env: { ...sharedEnv, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const prefix = `\x1b[36m${name.padEnd(9)}\x1b[0m| `;
  for (const stream of [child.stdout, child.stderr]) {
    let buffered = '';
    stream?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) process.stdout.write(prefix + line + '\n');
    });
  }
  child.on('exit', (code, signal) => {
    children.delete(name);
    if (!stopping) {
      say(`${name} exited (${code ?? signal}); stopping the stack`);
      void stop(1);
    }
  });
  children.set(name, child);
}

async function waitForHealth(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2_000) });
      if (res.status === 200) return;
      last = await res.text();
    } catch (error) {
      last = String(error);
    }
    await sleep(500);
  }
  throw new Error(`${url}/health did not turn healthy: ${last}`);
}

/** A fresh demo key through the operator CLI; --replace revokes the previous demo keys. */
function createDemoKey(): string {
  const args = ['packages/ops/src/cli.ts', 'keys', 'create', '--owner', 'demo', '--quota', '10000', '--replace', '--json'];
  const result = spawnSync(process.execPath, args, { cwd: root, env: sharedEnv, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`creating the demo key failed: ${result.stderr}`);
  return (JSON.parse(result.stdout) as { api_key: string }).api_key;
}

/**
 * A demo user for the OAuth sign-in page, created once; its generated password is printed only
 * on the start that creates it (it is stored only as a scrypt hash).
 */
function ensureDemoUser(): { email: string; password?: string } {
  const email = 'demo@fragrance.example';
  const cli = (args: string[], input?: string) =>
    spawnSync(process.execPath, ['packages/ops/src/cli.ts', 'users', ...args], {
      cwd: root,
      env: sharedEnv,
      encoding: 'utf8',
      input: input ?? '',
    });
  const listed = cli(['list', '--json']);
  if (listed.status !== 0) throw new Error(`listing users failed: ${listed.stderr}`);
  if ((JSON.parse(listed.stdout) as { email: string }[]).some((u) => u.email === email)) return { email };
  const password = randomBytes(12).toString('base64url');
  const created = cli(['create', '--email', email], `${password}\n`);
  if (created.status !== 0) throw new Error(`creating the demo user failed: ${created.stderr}`);
  return { email, password };
}

async function stop(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  say('stopping services');
  const exits = [...children.values()].map(
    (child) =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 15_000).unref();
      }),
  );
  await Promise.all(exits);
  if (withPrometheus) spawnSync('bash', ['infra/prometheus.sh', 'stop', '--name', 'dev'], { cwd: root, stdio: 'inherit' });
  say('stopping Redis and Elasticsearch');
  spawnSync('bash', ['infra/redis.sh', 'stop'], { cwd: root, stdio: 'inherit' });
  spawnSync('bash', ['infra/elasticsearch.sh', 'stop'], { cwd: root, stdio: 'inherit' });
  say('stopped');
  process.exit(code);
}

/**
 * Loads the 75k synthetic catalogue when the `fragrances` alias is missing, or re-ingests it
 * when its index predates the current mapping/folding (`catalogue status` says which): generate
 * the NDJSON if absent, then ingest (new index, verify, atomic alias swap). Otherwise reuse it.
 */
function prepareCatalogue(): void {
  const ops = ['packages/ops/src/cli.ts', 'catalogue'];
  const probe = spawnSync(process.execPath, [...ops, 'status', '--json'], { cwd: root, env: sharedEnv, encoding: 'utf8' });
  if (probe.status !== 0) throw new Error(`catalogue status failed: ${probe.stderr}`);
  const status = JSON.parse(probe.stdout) as { index: string | null; documents: number; current: boolean };
  if (status.current && status.documents > 0) {
    say(`catalogue: ${status.index} (${status.documents} documents) is current; keeping it`);
    return;
  }
  if (!existsSync(`${root}data/generated/catalogue.ndjson`)) {
    runStep('catalogue: generating 75,000 synthetic records', process.execPath, [...ops, 'generate']);
  }
  runStep(
    status.index ? 'catalogue: index predates this code; re-ingesting' : 'catalogue: ingesting into Elasticsearch',
    process.execPath,
    [...ops, 'ingest'],
  );
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
  runStep('starting Elasticsearch', 'bash', ['infra/elasticsearch.sh', 'start', '--heap', '1g']);
  runStep('starting Redis', 'bash', ['infra/redis.sh', 'start']);
  prepareCatalogue();
  for (const service of services) startService(service.name, service.env);
  await waitForHealth(GATEWAY_URL, 180_000);
  if (withPrometheus) startPrometheus();
  const demoKey = createDemoKey();
  const demoUser = ensureDemoUser();
  say(`ready: ${GATEWAY_URL}  (health: ${GATEWAY_URL}/health)`);
  say(`demo API key (owner demo, 10000 requests/day; earlier demo keys revoked): ${demoKey}`);
  say(`try: curl -H 'Authorization: Bearer ${demoKey}' '${GATEWAY_URL}/v1/fragrances?query=rose&limit=3'`);
  say('enrich the catalogue now (else nightly at 02:00 Australia/Sydney): npm run ops -- enrich run');
  say(
    demoUser.password
      ? `OAuth sign-in (MCP clients): ${demoUser.email} / ${demoUser.password}  (shown once; kept across starts)`
      : `OAuth sign-in (MCP clients): ${demoUser.email} (created earlier; its password was shown then; npm run ops -- users create --email <e> adds another)`,
  );
  say(`OAuth metadata: ${GATEWAY_URL}/.well-known/oauth-authorization-server`);
  say(
    withPrometheus
      ? `Prometheus: ${PROMETHEUS_URL} (alerts: ${PROMETHEUS_URL}/alerts); one screen: npm run ops -- status`
      : 'metrics: each service on 127.0.0.1:9480-9484/metrics; npm run ops -- status (npm start --with-prometheus adds Prometheus)',
  );
  say('press Ctrl-C to stop');
} catch (error) {
  say(error instanceof Error ? error.message : String(error));
  await stop(1);
}
