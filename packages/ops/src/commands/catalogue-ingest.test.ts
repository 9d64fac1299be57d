import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCatalogue } from '@fragrance/dataset';
import { currentIndex } from '@fragrance/search';
import { testElasticsearch, type TestElasticsearch } from '@fragrance/testkit';
import { UsageError, type CommandContext } from '../command.ts';
import { ingest, status } from './catalogue-ingest.ts';

function context(argv: string[], env: Record<string, string>) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (c: Buffer) => out.push(c));
  stderr.on('data', (c: Buffer) => err.push(c));
  const ctx: CommandContext = { argv, env, stdout, stderr, stdin: new PassThrough() };
  return { ctx, out: () => Buffer.concat(out).toString('utf8'), err: () => Buffer.concat(err).toString('utf8') };
}

describe('ops catalogue ingest', () => {
  let es: TestElasticsearch;
  let dir: string;
  beforeAll(async () => {
    es = await testElasticsearch('opsingest');
    dir = await mkdtemp(join(tmpdir(), 'ops-ingest-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
    await es.cleanup();
  });

  it('ingests a file, lists bad lines with their numbers, and swaps the alias', async () => {
    const file = join(dir, 'catalogue.ndjson');
    const lines = [...generateCatalogue({ count: 120, seed: 4 })].map((r) => JSON.stringify(r));
    lines.splice(2, 0, '{"id": 1}');
    await writeFile(file, lines.join('\n') + '\n');
    const alias = es.index('fragrances');
    const { ctx, out, err } = context(['--file', file, '--batch-size', '50'], { ELASTICSEARCH_URL: es.url, CATALOGUE_ALIAS: alias });

    await ingest.run(ctx);

    expect(out()).toMatch(/^indexed 120 records into /);
    expect(out()).toContain('skipped 1 bad records');
    expect(err()).toMatch(/skipped line 3: id: /);
    expect(await currentIndex(es.client, alias)).toMatch(new RegExp(`^${alias}-v\\d{17}-[0-9a-f]{4}$`));
    expect((await es.client.count({ index: alias })).count).toBe(120);

    const report = context(['--json'], { ELASTICSEARCH_URL: es.url, CATALOGUE_ALIAS: alias });
    await status.run(report.ctx);
    expect(JSON.parse(report.out())).toMatchObject({ alias, documents: 120, current: true });
  });

  it('reports a missing alias and a stale index', async () => {
    const env = { ELASTICSEARCH_URL: es.url, CATALOGUE_ALIAS: es.index('stale') };
    const missing = context(['--json'], env);
    await status.run(missing.ctx);
    expect(JSON.parse(missing.out())).toMatchObject({ index: null, current: false });

    // An index from before schema versions: no _meta.
    const old = es.index('stale-v20200101000000000-abcd');
    await es.client.indices.create({ index: old, aliases: { [es.index('stale')]: {} } });
    const stale = context([], env);
    await status.run(stale.ctx);
    expect(stale.out()).toMatch(/schema version none \(stale: this code needs \d+; run catalogue ingest\)/);
  });

  it('rejects bad options and a missing file as usage errors', async () => {
    const env = { ELASTICSEARCH_URL: es.url, CATALOGUE_ALIAS: es.index('unused') };
    await expect(ingest.run(context(['--concurrency', '0'], env).ctx)).rejects.toThrow(UsageError);
    await expect(ingest.run(context(['--alias', 'Bad Alias'], env).ctx)).rejects.toThrow(UsageError);
    await expect(ingest.run(context(['--file', join(dir, 'missing.ndjson')], env).ctx)).rejects.toThrow(/does not exist/);
    expect(await currentIndex(es.client, es.index('unused'))).toBeUndefined();
  });
});
