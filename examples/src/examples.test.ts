// Each example runs as a customer runs it (its own Node process, configured by environment)
// against the real gateway and catalogue over a real Elasticsearch index and Redis.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFragranceClient } from '@fragrance/client';
import { brandHeading } from './format.ts';
import { createKeyStore } from '@fragrance/api-keys';
import { generateCatalogue } from '@fragrance/dataset';
import { ingestCatalogue } from '@fragrance/search';
import {
  REPO_ROOT,
  startStack,
  testElasticsearch,
  testRedis,
  type Stack,
  type TestElasticsearch,
  type TestRedis,
} from '@fragrance/testkit';

const run = promisify(execFile);
const RECORDS = 300;

describe('the examples against a running API', () => {
  let es: TestElasticsearch;
  let redis: TestRedis;
  let stack: Stack;
  let apiKey: string;
  /** Ids of records in the catalogue, for the mirror's change. */
  let knownIds: string[];
  let dir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    [es, redis] = await Promise.all([testElasticsearch('examples'), testRedis('examples')]);
    const records = [...generateCatalogue({ count: RECORDS, seed: 20_26 })];
    knownIds = records.slice(0, 50).map((record) => record.id);
    const alias = es.index('fragrances');
    await ingestCatalogue({ client: es.client, alias, records, replicas: 0 });
    // A key that never binds: the examples are tested, not the quota.
    ({ apiKey } = await createKeyStore({ redis: redis.redis, prefix: redis.prefix }).create({
      owner: 'examples',
      quota: 10_000_000,
      burst: 1_000_000,
      refillPerSecond: 1_000_000,
    }));
    stack = await startStack({ services: ['catalogue', 'gateway'], redis, elasticsearchUrl: es.url, alias });
    env = { PATH: process.env.PATH ?? '', FRAGRANCE_API_URL: `${stack.urls.edge}/v1`, FRAGRANCE_API_KEY: apiKey };
    dir = mkdtempSync(join(tmpdir(), 'examples-'));
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    await Promise.all([es?.cleanup(), redis?.cleanup()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const example = (name: string, ...args: string[]) => run(process.execPath, [`examples/src/${name}.ts`, ...args], { cwd: REPO_ROOT, env });

  it('suggest.ts prints suggestions after every keystroke', async () => {
    const client = createFragranceClient({ baseUrl: env.FRAGRANCE_API_URL!, apiKey });
    const [brand] = (await client.brands({ limit: 1 })).data;
    const word = brand!.name.slice(0, 4);
    const { stdout } = await example('suggest', word);
    const lines = stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(word.trim().length);
    expect(lines.at(-1)).toContain(`${brand!.name} (brand)`);
  });

  it('mirror.ts copies the whole catalogue, then syncs from its watermark', async () => {
    const file = join(dir, 'mirror.json');
    const first = await example('mirror', file);
    expect(first.stdout).toContain(`${RECORDS} new or changed; ${RECORDS} in ${file}`);
    const mirror = JSON.parse(readFileSync(file, 'utf8')) as { watermark: string; records: Record<string, unknown> };
    expect(Object.keys(mirror.records)).toHaveLength(RECORDS);
    // The position of the last record: its updated_at and id.
    const [instant, id] = mirror.watermark.split(',');
    expect(Date.parse(instant!)).not.toBeNaN();
    expect(mirror.records[id!]).toMatchObject({ id, updated_at: instant });
    // Nothing changed since: nothing is fetched again, even records that share the watermark's instant.
    const again = await example('mirror', file);
    expect(again.stdout).toContain(`0 new or changed; ${RECORDS} in ${file}; next sync from ${mirror.watermark}`);
    expect(Object.keys((JSON.parse(readFileSync(file, 'utf8')) as typeof mirror).records)).toHaveLength(RECORDS);

    // A record changed since (a later updated_at, as an ingest or enrichment stamps it) comes
    // with the next sync, alone, and replaces the copy held.
    const changedId = knownIds.find((known) => known !== id)!;
    const updatedAt = new Date(Math.max(Date.parse(instant!), Date.now()) + 1_000).toISOString();
    const name = 'Renamed Since The Last Sync';
    await es.client.update({ index: `${es.prefix}fragrances`, id: changedId, doc: { name, updated_at: updatedAt }, refresh: true });
    const third = await example('mirror', file);
    expect(third.stdout).toContain(`1 new or changed; ${RECORDS} in ${file}; next sync from ${updatedAt},${changedId}`);
    const synced = JSON.parse(readFileSync(file, 'utf8')) as typeof mirror;
    expect(Object.keys(synced.records)).toHaveLength(RECORDS);
    expect(synced.records[changedId]).toMatchObject({ id: changedId, name, updated_at: updatedAt });
  });

  it('brand.ts prints a brand with its fragrances and their notes; an unknown slug is a clear error', async () => {
    const client = createFragranceClient({ baseUrl: env.FRAGRANCE_API_URL!, apiKey });
    const [brand] = (await client.brands({ limit: 1 })).data;
    const { stdout } = await example('brand', brand!.slug, '3');
    expect(stdout.split('\n')[0]).toBe(brandHeading(brand!));
    expect(stdout.match(/^ {2}top: /gm)).toHaveLength(Math.min(3, brand!.fragrance_count));
    const missing = await example('brand', 'no-such-brand-anywhere').catch((error: unknown) => error as { code: number; stderr: string });
    expect(missing).toMatchObject({ code: 1, stderr: 'no brand has the slug no-such-brand-anywhere\n' });
  });

  it('the examples refuse to start without a key, naming the variable', async () => {
    const refused = await run(process.execPath, ['examples/src/suggest.ts', 'rose'], { cwd: REPO_ROOT, env: { PATH: env.PATH! } }).catch(
      (error: unknown) => error as { code: number; stderr: string },
    );
    expect(refused).toMatchObject({ code: 2 });
    expect((refused as { stderr: string }).stderr).toMatch(/^FRAGRANCE_API_KEY: /);
  });

  it('the MCP host snippet points mcp-remote at the edge /mcp', () => {
    const config = JSON.parse(readFileSync(join(REPO_ROOT, 'examples/mcp/claude_desktop_config.json'), 'utf8')) as {
      mcpServers: Record<string, { command: string; args: string[] }>;
    };
    const server = config.mcpServers['fragrance-catalogue']!;
    expect(server.command).toBe('npx');
    expect(server.args).toEqual(['-y', 'mcp-remote', 'http://127.0.0.1:8080/mcp']);
  });
});
