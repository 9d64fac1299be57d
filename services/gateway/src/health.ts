import type { Redis } from 'ioredis';
import { request, type Agent } from 'undici';

import type { DependencyCheck } from '@fragrance/http';

export type HealthCheck = DependencyCheck;

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
