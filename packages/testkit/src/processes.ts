import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { REPO_ROOT } from './local.ts';
import { waitFor } from './wait.ts';

/** A loopback port nothing listens on right now (for a service a test or bench starts). */
export async function freePort(): Promise<number> {
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
  /** SIGTERM, then SIGKILL after 5 s; resolves once the process is gone. */
  stop: () => Promise<void>;
}

/**
 * Starts `services/<name>/src/main.ts` as its own process (services never import each other) on
 * loopback `port` with `env`, and waits until its /health answers 200. Embeddings are off unless
 * `env` turns them on (`EMBEDDINGS_ENABLED: 'true'`): loading the model costs seconds and memory
 * in every process, and only semantic search tests need it.
 */
export async function startService(name: string, port: number, env: Record<string, string>, timeoutMs = 60_000): Promise<RunningService> {
  const child: ChildProcess = spawn(process.execPath, [`services/${name}/src/main.ts`], {
    cwd: REPO_ROOT,
    // children get the toolchain's PATH, nothing else of ours
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      METRICS_PORT: '0',
      EMBEDDINGS_ENABLED: 'false',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => void (output = (output + chunk.toString()).slice(-64_000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const url = `http://127.0.0.1:${port}`;
  const service: RunningService = {
    name,
    url,
    output: () => output,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
  try {
    await waitForHealthy(url, timeoutMs, () => {
      if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}:\n${output}`);
    });
  } catch (error) {
    await service.stop();
    throw error;
  }
  return service;
}
