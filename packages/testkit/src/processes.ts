import { spawn, type ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { REPO_ROOT } from './local.ts';
import { waitFor } from './wait.ts';

/** Whether a loopback listener can take `port` now (it is closed again at once). */
function canListen(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * Where freePort looks: below the kernel's ephemeral range, whose ports outgoing connections
 * take at any moment (so one found free there can be taken before its process listens: seen as
 * EADDRINUSE in a CI run); undefined where that range is unknown or leaves too little below it.
 */
function portsBelowEphemeral(): { from: number; to: number } | undefined {
  try {
    const [low = 0] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    return low > 21_000 ? { from: 20_000, to: low - 1 } : undefined;
  } catch {
    return undefined;
  }
}
const belowEphemeral = portsBelowEphemeral();

/** A loopback port nothing listens on right now (for a service a test or bench starts). */
export async function freePort(): Promise<number> {
  if (belowEphemeral) {
    const { from, to } = belowEphemeral;
    for (let attempt = 0; attempt < 50; attempt += 1) {
      const port = from + randomInt(to - from + 1);
      if (await canListen(port)) return port;
    }
  }
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Polls `<url>/health` until it answers 200; the error names the last answer. `stillAlive` may
 * throw to give up early (e.g. the process being waited for has exited).
 */
export async function waitForHealthy(url: string, timeoutMs: number, stillAlive?: () => void): Promise<void> {
  let last = '';
  let gaveUp: Error | undefined;
  const attempt = async (): Promise<boolean> => {
    try {
      stillAlive?.();
    } catch (error) {
      gaveUp = error instanceof Error ? error : new Error(String(error));
      return true; // ends the wait at once
    }
    try {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2_000) });
      last = `${res.status} ${await res.text()}`;
      return res.status === 200;
    } catch (error) {
      last = String(error);
      return false;
    }
  };
  try {
    await waitFor(attempt, { timeoutMs, intervalMs: 250 });
  } catch {
    throw new Error(`${url}/health did not turn healthy: ${last}`);
  }
  if (gaveUp) throw gaveUp;
}

export interface RunningService {
  name: string;
  url: string;
  /** Everything the service wrote so far (stdout and stderr), for failure reports. */
  output: () => string;
  /** SIGTERM, then SIGKILL after `graceMs` (5 s); resolves once the process is gone. */
  stop: (graceMs?: number) => Promise<void>;
}

/** A service process not yet known to answer: for callers that start several at once. */
export interface SpawnedService extends RunningService {
  pid: number | undefined;
  /** Resolves with the exit code (null when killed by a signal) once the process is gone. */
  exited: Promise<number | null>;
  /** Resolves once /health answers 200; rejects naming the output if the process exits first. */
  ready: (timeoutMs?: number) => Promise<void>;
}

export interface ServiceOptions {
  /** The script to run instead of `services/<name>/src/main.ts` (another checkout's code, a stand-in). */
  entry?: string;
  /**
   * The environment the service's variables go over. Unset (tests): PATH alone, with LOG_LEVEL
   * warn and embeddings off. A bench passes its own environment, so the services keep their own
   * defaults and whatever the operator set (NODE_OPTIONS, …).
   */
  base?: NodeJS.ProcessEnv;
  /** Told when the process exits before `stop()` was called (a bench reports it at once). */
  onEarlyExit?: (exit: string, output: string) => void;
}

/** The variables a service starts with: METRICS_PORT 0 (a free port) unless `env` names one. */
function serviceEnv(port: number, env: Record<string, string>, base: NodeJS.ProcessEnv | undefined): NodeJS.ProcessEnv {
  const defaults = base ?? { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', EMBEDDINGS_ENABLED: 'false' };
  return { ...defaults, HOST: '127.0.0.1', PORT: String(port), METRICS_PORT: '0', ...env };
}

/**
 * Starts `services/<name>/src/main.ts` as its own process (services never import each other) on
 * loopback `port` with `env`, without waiting for it: `ready()` does. Embeddings are off unless
 * `env` turns them on (`EMBEDDINGS_ENABLED: 'true'`): loading the model costs seconds and memory
 * in every process, and only semantic search tests need it.
 */
export function spawnService(name: string, port: number, env: Record<string, string>, options: ServiceOptions = {}): SpawnedService {
  const child: ChildProcess = spawn(process.execPath, [options.entry ?? `services/${name}/src/main.ts`], {
    cwd: REPO_ROOT,
    env: serviceEnv(port, env, options.base),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let stopping = false;
  const keep = (chunk: Buffer) => void (output = (output + chunk.toString()).slice(-64_000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code, signal) => {
      if (!stopping) options.onEarlyExit?.(`${name} exited early (${code ?? signal})`, output);
      resolve(code);
    });
    child.once('error', (error) => {
      keep(Buffer.from(String(error)));
      resolve(null);
    });
  });
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  const stop = async (graceMs = 5_000) => {
    stopping = true;
    if (gone()) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };
  const url = `http://127.0.0.1:${port}`;
  const ready = (timeoutMs = 60_000) =>
    waitForHealthy(url, timeoutMs, () => {
      if (gone()) throw new Error(`${name} exited with ${child.exitCode ?? child.signalCode}:\n${output}`);
    });
  return { name, url, pid: child.pid, exited, ready, output: () => output, stop };
}

/** `spawnService`, then waits until its /health answers 200; stops it if it never does. */
export async function startService(
  name: string,
  port: number,
  env: Record<string, string>,
  timeoutMs = 60_000,
  options: ServiceOptions = {},
): Promise<RunningService> {
  const service = spawnService(name, port, env, options);
  try {
    await service.ready(timeoutMs);
  } catch (error) {
    await service.stop();
    throw error;
  }
  return service;
}
