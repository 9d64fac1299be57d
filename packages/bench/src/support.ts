// Process plumbing shared by the benches: child services, commands, the dev cluster.
// Processes, free ports and health waits come from @fragrance/testkit.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { freePort, spawnService, type SpawnedService } from '@fragrance/testkit';
import { benchConfig, DEFAULT_ES, inheritedEnv, LocalStateConfig } from './config.ts';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export { DEFAULT_ES };

const state = benchConfig(LocalStateConfig);

export const say = (bench: string, message: string) => void process.stderr.write(`[bench:${bench}] ${message}\n`);

export function run(description: string, command: string, args: string[], env: Record<string, string> = {}): string {
  const result = spawnSync(command, args, { cwd: ROOT, env: { ...inheritedEnv(), ...env }, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (result.status !== 0) throw new Error(`${description} failed (exit ${result.status}):\n${result.stderr}`);
  return result.stdout;
}

/**
 * CURSOR_SECRET for the catalogue a bench starts: the environment's, else the dev stack's (kept by
 * `npm start` in .local/catalogue/cursor-secret, so cursors also work through a running gateway
 * given with BENCH_GATEWAY_URL), else a fresh one.
 */
export function cursorSecret(): string {
  const file = `${localDir()}/catalogue/cursor-secret`;
  return state.CURSOR_SECRET ?? (existsSync(file) ? readFileSync(file, 'utf8').trim() : randomBytes(48).toString('base64url'));
}

/** The checkout's state directory (FRAGRANCE_LOCAL_DIR, default `<repo>/.local`), as `npm start` uses it. */
export function localDir(): string {
  return state.FRAGRANCE_LOCAL_DIR ?? `${ROOT}.local`;
}

/** A key whose quota and bucket never bind, so a bench measures the stack, not a 429 (made by the ops CLI). */
export function createBenchKey(redisUrl: string): string {
  const created = run(
    'creating the bench key',
    process.execPath,
    [
      'packages/ops/src/cli.ts',
      'keys',
      'create',
      '--owner',
      'bench',
      '--quota',
      '1000000000',
      '--burst',
      '1000000',
      '--refill',
      '1000000',
      '--json',
    ],
    { REDIS_URL: redisUrl },
  );
  return (JSON.parse(created) as { api_key: string }).api_key;
}

/** The dev cluster is started (or reused) when the bench targets it; other URLs must be up. */
export function ensureElasticsearch(url: string): void {
  if (url === DEFAULT_ES) run('starting the dev Elasticsearch', 'bash', ['infra/elasticsearch.sh', 'start', '--heap', '1g']);
}

const children: SpawnedService[] = [];

/**
 * A service as its own process (as in production) through the testkit's spawnService, on the
 * port its PORT names (0: none), under the bench's whole environment so the services keep their
 * own defaults; an early exit is reported at once, and stopChildren stops it.
 */
export function startBenchService(
  name: string,
  env: Record<string, string>,
  bench: string,
  entry = `services/${name}/src/main.ts`,
): SpawnedService {
  const service = spawnService(name, Number(env.PORT ?? 0), env, {
    entry,
    base: inheritedEnv(),
    onEarlyExit: (exit, output) => say(bench, `${exit}; last output:\n${output.slice(-4_000)}`),
  });
  children.push(service);
  return service;
}

/** SIGTERM every started service, SIGKILL whatever is still running after graceMs. */
export async function stopChildren(graceMs = 5_000): Promise<void> {
  await Promise.all(children.map((child) => child.stop(graceMs)));
}

/** A Redis a bench started for itself. */
export interface BenchRedis {
  name: string;
  port: number;
  url: string;
}

/** A Redis of the bench's own (AOF like every instance), never the dev or test one; a free port unless given. */
export async function startBenchRedis(bench: string, port?: number): Promise<BenchRedis> {
  const at = port ?? (await freePort());
  const name = `bench-${bench}-${at}`;
  run('starting the bench Redis', 'bash', ['infra/redis.sh', 'start', '--name', name, '--port', String(at)]);
  return { name, port: at, url: `redis://127.0.0.1:${at}` };
}

/** Stops a startBenchRedis instance and removes its data, so runs leave nothing behind. */
export function stopBenchRedis({ name, port }: BenchRedis): void {
  spawnSync('bash', ['infra/redis.sh', 'stop', '--name', name, '--port', String(port)], { cwd: ROOT });
  rmSync(`${localDir()}/redis/${name}`, { recursive: true, force: true });
  rmSync(`${localDir()}/redis/.${name}.lock`, { force: true });
}

/**
 * The CPU milliseconds (user + system) a Redis server has used so far, from INFO cpu over a
 * connection of its own; 0 when it cannot say (unreachable, or it wants a password).
 */
export function redisCpuMs(url: string): Promise<number> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    let text = '';
    const socket = connect({ host: hostname, port: Number(port || 6379) }, () => socket.write('INFO cpu\r\n'));
    const done = (value: number) => {
      socket.destroy();
      resolve(value);
    };
    socket.setEncoding('utf8');
    socket.setTimeout(2_000, () => done(0));
    socket.on('error', () => done(0));
    socket.on('data', (chunk: string) => {
      text += chunk;
      if (text.startsWith('-')) return done(0);
      // A bulk reply: $<length>, CRLF, the text, CRLF.
      const header = /^\$(\d+)\r\n/.exec(text);
      if (!header || text.length < header[0].length + Number(header[1])) return;
      const seconds = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(text)?.[1] ?? 0);
      done((seconds('used_cpu_user') + seconds('used_cpu_sys')) * 1_000);
    });
  });
}

/**
 * Runs a bench's main: Ctrl-C stops what it started (cleanup, by default its services) and exits
 * 130; a failure is printed with its stack, cleaned up the same way, and exits 1.
 */
export async function runBench(bench: string, main: () => Promise<void>, cleanup: () => Promise<unknown> = stopChildren): Promise<void> {
  process.on('SIGINT', () => void cleanup().then(() => process.exit(130)));
  try {
    await main();
  } catch (error) {
    say(bench, error instanceof Error ? (error.stack ?? error.message) : String(error));
    await cleanup();
    process.exitCode = 1;
  }
}
