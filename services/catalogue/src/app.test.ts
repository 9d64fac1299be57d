import { Client } from '@elastic/elasticsearch';
import { describe, expect } from 'vitest';
import { catalogueTest } from './testing/app.ts';

/** Answers one request of a catalogue app on `elasticsearch` (the test's by default), reading its alias `alias`. */
const it = catalogueTest.extend('get', async ({ startApp }) => {
  return async (path: string, options: { elasticsearch?: Client; alias?: string } = {}) => {
    const app = await startApp(
      options.alias ? { CATALOGUE_ALIAS: options.alias } : {},
      options.elasticsearch ? { elasticsearch: options.elasticsearch } : {},
    );
    const res = await fetch(`${app.url}${path}`);
    return { status: res.status, body: await res.json() };
  };
});

describe('catalogue app', () => {
  it('is healthy against the real Elasticsearch', async ({ get }) => {
    const { status, body } = await get('/health');
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'ok' });
  });

  it('reports Elasticsearch down', async ({ get }) => {
    const dead = new Client({ node: 'http://127.0.0.1:1', maxRetries: 0 });
    const { status, body } = await get('/health', { elasticsearch: dead });
    expect(status).toBe(503);
    expect(body).toEqual({ status: 'degraded', dependencies: { elasticsearch: 'down' } });
  });

  // Readiness asks what a search needs, not the cluster's colour: while the master is re-elected
  // every node reports red (the no-master block), and any other red index makes the whole cluster
  // red, yet the catalogue's own shards answer searches; HAProxy must keep the instances in.
  it('is ready while a search over its alias answers, and not ready without the alias', async ({ es, get }) => {
    const alias = es.index('ready');
    const missing = await get('/health/ready', { alias });
    expect(missing.status).toBe(503);
    expect(missing.body).toEqual({ status: 'unavailable', dependencies: { elasticsearch: 'down' } });
    await es.client.indices.create({ index: `${alias}-v1`, aliases: { [alias]: {} } });
    const present = await get('/health/ready', { alias });
    expect(present).toEqual({ status: 200, body: { status: 'ok', dependencies: { elasticsearch: 'up' } } });
  });
});
