import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './local.ts';
import { freePort } from './processes.ts';

const run = promisify(execFile);

export interface SentinelRedis {
  /** REDIS_SENTINELS for the services: `127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3`. */
  sentinels: string;
  /** REDIS_SENTINEL_NAME. */
  name: string;
  primaryPort: number;
  replicaPort: number;
  /**
   * Which data node a majority of the Sentinels call primary now (undefined while they disagree:
   * a Sentinel that did not lead a failover learns of it a moment later).
   */
  currentPrimaryPort: () => Promise<number | undefined>;
  /** SIGKILLs a data node (no shutdown, no AOF flush): what a crashed host does. */
  kill: (port: number) => Promise<void>;
  /** Stops every process it started and removes their files. */
  stop: () => Promise<void>;
}

/**
 * A Sentinel-guarded Redis of its own, started with the project's scripts (infra/redis.sh and
 * infra/redis-sentinel.sh) under a temporary directory: a primary, a replica and three Sentinels
 * (quorum 2) on free ports, with short timeouts so a failover takes about two seconds.
 */
export async function startSentinelRedis(options: { downAfterMs?: number; failoverTimeoutMs?: number } = {}): Promise<SentinelRedis> {
  const { downAfterMs = 1_000, failoverTimeoutMs = 3_000 } = options;
  const localDir = await mkdtemp(join(tmpdir(), 'fcs-sentinel-'));
  const env = { ...process.env, FRAGRANCE_LOCAL_DIR: localDir };
  const infra = async (script: string, args: string[]) => {
    try {
      const { stdout } = await run('bash', [`${REPO_ROOT}infra/${script}`, ...args], { cwd: REPO_ROOT, env, timeout: 300_000 });
      return stdout;
    } catch (error) {
      const { stderr } = error as { stderr?: string };
      throw new Error(`infra/${script} ${args.join(' ')} failed:\n${stderr ?? String(error)}`, { cause: error });
    }
  };
  const name = 'fcs-test';
  const [primaryPort, replicaPort, ...sentinelPorts] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
  const nodes = { [primaryPort]: 'primary', [replicaPort]: 'replica' } as Record<number, string>;
  const stop = async () => {
    await Promise.allSettled(sentinelPorts.map((port) => infra('redis-sentinel.sh', ['stop', '--port', String(port)])));
    await Promise.allSettled(Object.entries(nodes).map(([port, node]) => infra('redis.sh', ['stop', '--name', node, '--port', port])));
    await rm(localDir, { recursive: true, force: true });
  };
  try {
    await infra('redis.sh', ['start', '--name', 'primary', '--port', String(primaryPort)]);
    await infra('redis.sh', ['start', '--name', 'replica', '--port', String(replicaPort), '--replica-of', `127.0.0.1:${primaryPort}`]);
    const monitor = ['--monitor', `127.0.0.1:${primaryPort}`, '--name', name, '--down-after-ms', String(downAfterMs)];
    await Promise.all(
      sentinelPorts.map((port) =>
        infra('redis-sentinel.sh', ['start', '--port', String(port), ...monitor, '--failover-timeout-ms', String(failoverTimeoutMs)]),
      ),
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    sentinels: sentinelPorts.map((port) => `127.0.0.1:${port}`).join(','),
    name,
    primaryPort: primaryPort,
    replicaPort: replicaPort,
    currentPrimaryPort: async () => {
      const named = await Promise.all(
        sentinelPorts.map(async (port) => {
          const out = await infra('redis-sentinel.sh', ['status', '--port', String(port), '--name', name]).catch(() => '');
          return /primary [^:\s]+:(\d+)/.exec(out)?.[1];
        }),
      );
      const majority = Math.floor(sentinelPorts.length / 2) + 1;
      const agreed = named.find((port) => port !== undefined && named.filter((other) => other === port).length >= majority);
      return agreed === undefined ? undefined : Number(agreed);
    },
    kill: async (port) => {
      const pid = Number(await readFile(join(localDir, 'redis', nodes[port] ?? '', 'redis.pid'), 'utf8'));
      process.kill(pid, 'SIGKILL');
    },
    stop,
  };
}
