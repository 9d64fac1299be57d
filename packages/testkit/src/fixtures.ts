import { randomBytes } from 'node:crypto';
import { Client } from '@elastic/elasticsearch';
import { Redis, type RedisOptions } from 'ioredis';
import { inject } from 'vitest';
import './provided-context.ts';

/** A short random prefix unique to one test file (or one test), safe in index and key names. */
export function uniquePrefix(label = 't'): string {
  return `${label.toLowerCase().replace(/[^a-z0-9]/g, '')}-${randomBytes(4).toString('hex')}-`;
}

export interface TestElasticsearch {
  url: string;
  client: Client;
  /** Every index this test file creates must start with this. */
  prefix: string;
  index: (name: string) => string;
  cleanup: () => Promise<void>;
}

export async function testElasticsearch(label?: string): Promise<TestElasticsearch> {
  const url = inject('elasticsearchUrl');
  const client = new Client({ node: url });
  const prefix = uniquePrefix(label);
  return {
    url,
    client,
    prefix,
    index: (name) => `${prefix}${name}`,
    cleanup: async () => {
      await client.indices.delete({ index: `${prefix}*`, ignore_unavailable: true, allow_no_indices: true });
      await client.close();
    },
  };
}

export interface TestRedis {
  url: string;
  /** Every key this test file writes must start with this (BullMQ: pass it as `prefix`). */
  prefix: string;
  /** A plain connection (no keyPrefix), closed by cleanup. */
  redis: Redis;
  connect: (options?: RedisOptions) => Redis;
  cleanup: () => Promise<void>;
}

export async function testRedis(label?: string): Promise<TestRedis> {
  const url = inject('redisUrl');
  const prefix = uniquePrefix(label).replace(/-$/, ':');
  const connections: Redis[] = [];
  const connect = (options: RedisOptions = {}) => {
    const connection = new Redis(url, { lazyConnect: false, ...options });
    connections.push(connection);
    return connection;
  };
  const redis = connect();
  return {
    url,
    prefix,
    redis,
    connect,
    cleanup: async () => {
      const stream = redis.scanStream({ match: `${prefix}*`, count: 500 });
      for await (const keys of stream as AsyncIterable<string[]>) {
        if (keys.length > 0) await redis.unlink(...keys);
      }
      await Promise.all(connections.map((c) => c.quit().catch(() => c.disconnect())));
    },
  };
}
