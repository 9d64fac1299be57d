// A 3-node Elasticsearch cluster on loopback (three JVMs): a slow test (npm run test:slow).
import { describe, expect, it } from 'vitest';
import { startLocalElasticsearch, stopLocalElasticsearch, stopLocalElasticsearchNode } from './local.ts';

describe('local multi-node Elasticsearch cluster', () => {
  it('starts N nodes on loopback that form one cluster, which elects a new master when its master dies', async () => {
    const { Client } = await import('@elastic/elasticsearch');
    const base = 9700 + Math.floor(Math.random() * 90);
    const name = `cluster-${base}`;
    await startLocalElasticsearch({ name, port: base, nodes: 3, heap: '256m' });
    // Node i answers HTTP on base + i - 1; the client may use any survivor.
    const client = new Client({ nodes: [0, 1, 2].map((i) => `http://127.0.0.1:${base + i}`) });
    try {
      const nodes = await client.cat.nodes({ format: 'json', h: 'name' });
      expect(nodes.map((n) => n.name).sort()).toEqual([`${name}-1`, `${name}-2`, `${name}-3`]);

      const [master] = await client.cat.master({ format: 'json' });
      const masterNode = Number(master?.node?.split('-').at(-1));
      expect([1, 2, 3]).toContain(masterNode);
      await stopLocalElasticsearchNode(name, masterNode);

      const health = await client.cluster.health({ wait_for_nodes: '2', timeout: '60s' });
      expect(health.number_of_nodes).toBe(2);
      const [newMaster] = await client.cat.master({ format: 'json' });
      expect(newMaster?.node).not.toBe(master?.node);
    } finally {
      await client.close();
      await stopLocalElasticsearch(name);
    }
  }, 300_000);
});
