import { randomBytes } from 'node:crypto';
import { Client } from '@elastic/elasticsearch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@fragrance/http';
import { testElasticsearch, type TestElasticsearch } from '@fragrance/testkit';
import { buildApp } from './app.ts';
import { CatalogueConfig } from './config.ts';

describe('catalogue app', () => {
  let es: TestElasticsearch;
  beforeAll(async () => {
    es = await testElasticsearch('catalogue');
  });
  afterAll(() => es.cleanup());

  async function get(client: Client, path: string, alias?: string) {
    const config = CatalogueConfig.parse({
      ELASTICSEARCH_URL: es.url,
      CURSOR_SECRET: randomBytes(32).toString('base64url'),
      ...(alias ? { CATALOGUE_ALIAS: alias } : {}),
    });
    const server = buildApp({ config, logger: createLogger('t', 'silent'), elasticsearch: client }).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as { port: number }).port}${path}`);
      return { status: res.status, body: await res.json() };
    } finally {
      server.close();
    }
  }

  it('is healthy against the real Elasticsearch', async () => {
    const { status, body } = await get(es.client, '/health');
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'ok' });
  });

  it('reports Elasticsearch down', async () => {
    const dead = new Client({ node: 'http://127.0.0.1:1', maxRetries: 0 });
    const { status, body } = await get(dead, '/health');
    expect(status).toBe(503);
    expect(body).toEqual({ status: 'degraded', dependencies: { elasticsearch: 'down' } });
  });

  // Readiness asks what a search needs, not the cluster's colour: while the master is re-elected
  // every node reports red (the no-master block), and any other red index makes the whole cluster
  // red, yet the catalogue's own shards answer searches; HAProxy must keep the instances in.
  it('is ready while a search over its alias answers, and not ready without the alias', async () => {
    const alias = es.index('ready');
    const missing = await get(es.client, '/health/ready', alias);
    expect(missing.status).toBe(503);
    expect(missing.body).toEqual({ status: 'unavailable', dependencies: { elasticsearch: 'down' } });
    await es.client.indices.create({ index: `${alias}-v1`, aliases: { [alias]: {} } });
    const present = await get(es.client, '/health/ready', alias);
    expect(present).toEqual({ status: 200, body: { status: 'ok', dependencies: { elasticsearch: 'up' } } });
  });
});
