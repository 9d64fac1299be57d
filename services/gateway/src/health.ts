import type { Redis } from 'ioredis';
import { request, type Agent } from 'undici';

export type DependencyStatus = 'up' | 'down';
export type HealthCheck = () => Promise<void>;

export const redisCheck =
  (redis: Redis): HealthCheck =>
  async () => {
    if ((await redis.ping()) !== 'PONG') throw new Error('unexpected PING reply');
  };

export const upstreamCheck =
  (url: string, agent: Agent, timeoutMs: number): HealthCheck =>
  async () => {
    const res = await request(`${url}/health`, { dispatcher: agent, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
    await res.body.dump();
    if (res.statusCode !== 200) throw new Error(`health answered ${res.statusCode}`);
  };

/** Runs every check in parallel, each bounded by timeoutMs, and names the ones that are down. */
export async function checkDependencies(
  checks: Readonly<Record<string, HealthCheck>>,
  timeoutMs: number,
): Promise<{ healthy: boolean; dependencies: Record<string, DependencyStatus> }> {
  const names = Object.keys(checks);
  const results = await Promise.allSettled(
    names.map((name) => {
      const check = checks[name]!;
      return Promise.race([check(), new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), timeoutMs).unref())]);
    }),
  );
  const dependencies = Object.fromEntries(names.map((name, i) => [name, results[i]?.status === 'fulfilled' ? 'up' : 'down'] as const));
  return { healthy: Object.values(dependencies).every((s) => s === 'up'), dependencies };
}
