import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testElasticsearch, testRedis, uniquePrefix, type TestElasticsearch, type TestRedis } from './fixtures.ts';
import { startLocalRedis, stopLocalRedis } from './local.ts';
import { freePort } from './processes.ts';

describe('real Elasticsearch through the testkit', () => {
  let es: TestElasticsearch;
  beforeAll(async () => {
    es = await testElasticsearch('testkit');
  });
  afterAll(() => es.cleanup());

  it('indexes and searches a document in an index of its own', async () => {
    const index = es.index('docs');
    expect(index.startsWith(es.prefix)).toBe(true);
    await es.client.indices.create({ index, mappings: { properties: { name: { type: 'text' } } } });
    await es.client.index({ index, id: '1', document: { name: 'Terre de Cèdre' }, refresh: 'wait_for' });
    const result = await es.client.search<{ name: string }>({ index, query: { match: { name: 'cèdre' } } });
    expect(result.hits.hits.map((h) => h._source?.name)).toEqual(['Terre de Cèdre']);
  });

  it('cleans up only its own prefix', async () => {
    const other = await testElasticsearch('other');
    await other.client.indices.create({ index: other.index('x') });
    await other.cleanup();
    const { client } = es;
    expect(await client.indices.exists({ index: other.index('x') })).toBe(false);
    expect(await client.indices.exists({ index: es.index('docs') })).toBe(true);
  });
});

describe('real Redis through the testkit', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await testRedis('testkit');
  });
  afterAll(() => redis.cleanup());

  it('round-trips a key under its own prefix', async () => {
    await redis.redis.set(`${redis.prefix}greeting`, 'bonjour');
    expect(await redis.redis.get(`${redis.prefix}greeting`)).toBe('bonjour');
    expect(uniquePrefix('a')).not.toBe(uniquePrefix('a'));
  });
});

describe('Redis persistence', () => {
  it('keeps data across a restart (AOF)', async () => {
    const port = await freePort();
    const name = `restart-${port}`;
    const url = await startLocalRedis({ name, port });
    const writer = new Redis(url);
    await writer.set('quota:used', '250');
    await writer.hset('key:abc', { owner: 'acme', quota: '1000' });
    await writer.quit();

    await stopLocalRedis({ name, port });
    const probe = new Redis(url, { lazyConnect: true, retryStrategy: () => null });
    probe.on('error', () => {}); // the refused connection is the expected outcome
    await expect(probe.connect()).rejects.toThrow();

    await startLocalRedis({ name, port });
    const reader = new Redis(url);
    try {
      expect(await reader.get('quota:used')).toBe('250');
      expect(await reader.hgetall('key:abc')).toEqual({ owner: 'acme', quota: '1000' });
    } finally {
      await reader.quit();
      await stopLocalRedis({ name, port });
    }
  });
});
