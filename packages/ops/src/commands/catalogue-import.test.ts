import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FragranceDetail } from '@fragrance/contracts';
import { generateCatalogue } from '@fragrance/dataset';
import { currentIndex } from '@fragrance/search';
import { testElasticsearch, type TestElasticsearch } from '@fragrance/testkit';
import type { CommandContext } from '../command.ts';
import { idOfUrl } from '../import/normalise.ts';
import { importCatalogue, rollback, versions } from './catalogue-import.ts';
import { ingest } from './catalogue-ingest.ts';

const fixture = (name: string) => fileURLToPath(new URL(`../import/fixtures/${name}`, import.meta.url));

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

describe('ops catalogue import, versions, rollback', () => {
  let es: TestElasticsearch;
  let dir: string;
  beforeAll(async () => {
    es = await testElasticsearch('opsimport');
    dir = await mkdtemp(join(tmpdir(), 'ops-import-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
    await es.cleanup();
  });

  async function records(alias: string): Promise<FragranceDetail[]> {
    await es.client.indices.refresh({ index: alias });
    const res = await es.client.search<FragranceDetail>({ index: alias, size: 100, _source: { excludes: ['search'] } });
    return res.hits.hits.map((h) => FragranceDetail.parse(h._source));
  }

  it('fragrantica-csv: maps slugs, decimal commas, countries and vocabulary; reports every ugly line; a re-import changes no count', async () => {
    const alias = es.index('fragrantica');
    const env = { ELASTICSEARCH_URL: es.url, CATALOGUE_ALIAS: alias };
    // 7 of 12 lines are bad: far over 1 %, so the first attempt is refused and nothing goes live.
    const refused = context(['--format', 'fragrantica-csv', fixture('fragrantica.csv')], env);
    await expect(importCatalogue.run(refused.ctx)).rejects.toThrow(/not swapped: 7 of 12 lines were rejected/);
    expect(await currentIndex(es.client, alias)).toBeUndefined();

    const run = context(['--format', 'fragrantica-csv', fixture('fragrantica.csv'), '--allow-shrink'], env);
    await importCatalogue.run(run.ctx);
    expect(run.out()).toMatch(/^imported 5 records into /);
    expect(run.err().trimEnd().split('\n')).toEqual([
      'rejected line 6: Perfume: missing',
      'rejected line 7: Rating Value: 7.5 is above the 5-point scale',
      'rejected line 8: url: "not a url" is not a URL',
      expect.stringMatching(/^rejected line 9: CSV_RECORD_INCONSISTENT_COLUMNS: /),
      'rejected line 10: Year: "3020" is not a year from 1700 to 2100',
      expect.stringMatching(/^rejected line 11: duplicate id [0-9a-f-]{36} \(first on line 3\)$/),
      'rejected line 13: Gender: "kids" is not one of women, men, unisex',
    ]);
    const byName = new Map((await records(alias)).map((r) => [r.name, r]));
    expect([...byName.keys()].sort()).toEqual(['Amber Wood', 'Khamrah', 'Le Male Pride 2023', 'Terre d Hermes Eau de Toilette', '禅 Zen']);
    const leMale = byName.get('Le Male Pride 2023')!;
    expect(leMale).toMatchObject({
      id: idOfUrl('HTTPS://WWW.FRAGRANTICA.COM/perfume/Jean-Paul-Gaultier/Le-Male-Pride-2023-81234.html/'),
      brand: 'Jean Paul Gaultier',
      country: 'FR',
      concentration: 'Eau de Parfum',
      year_released: 2023,
      rating: { average: 3.86, count: 1254 },
      perfumers: ['Quentin Bisch'],
      main_accords: ['aromatic', 'warm spicy', 'vanilla', 'lavender', 'fresh spicy'],
      provenance_tags: ['community_taxonomy'],
    });
    expect(leMale.notes.base).toEqual(['tonka bean', 'sandalwood']);
    expect(leMale.provenance[0]?.origin).toBe(
      'fragrantica-csv https://www.fragrantica.com/perfume/Jean-Paul-Gaultier/Le-Male-Pride-2023-81234.html',
    );
    expect(byName.get('Terre d Hermes Eau de Toilette')?.concentration).toBe('Eau de Toilette');
    expect(byName.get('禅 Zen')).toMatchObject({ country: 'JP', year_released: null });
    // Vocabulary spelling where a note matches once its parenthesis goes; the rest kept as written.
    expect(byName.get('Amber Wood')?.notes.top).toEqual(['agarwood', 'pink pepper']);
    expect(byName.get('Amber Wood')?.country).toBe('AE');
    // Gender as the file gives it; an empty column leaves the record without one.
    expect(Object.fromEntries([...byName].map(([name, r]) => [name, r.gender ?? null]))).toEqual({
      'Le Male Pride 2023': 'men',
      'Terre d Hermes Eau de Toilette': 'men',
      '禅 Zen': 'women',
      'Amber Wood': 'unisex',
      Khamrah: null,
    });
    expect(leMale.provenance[0]?.fields).toContain('gender');
    expect(byName.get('Khamrah')?.provenance[0]?.fields).not.toContain('gender');

    const again = context(['--format', 'fragrantica-csv', fixture('fragrantica.csv'), '--allow-shrink'], env);
    await importCatalogue.run(again.ctx);
    const after = await records(alias);
    expect(after.map((r) => r.id).sort()).toEqual([...byName.values()].map((r) => r.id).sort());
  });

  it('parfumo-csv: NA, 0–10 ratings, quoted lists, perfumer credits, non-Latin names, variant listings', async () => {
    const alias = es.index('parfumo');
    const run = context(['--format', 'parfumo-csv', fixture('parfumo.csv'), '--allow-shrink'], {
      ELASTICSEARCH_URL: es.url,
      CATALOGUE_ALIAS: alias,
    });
    await importCatalogue.run(run.ctx);
    expect(run.out()).toMatch(/^imported 11 records/);
    expect(run.err().trimEnd().split('\n')).toEqual([
      'rejected line 6: Brand: missing',
      'rejected line 7: Rating_Value: 11.5 is above the 10-point scale',
      expect.stringMatching(/^rejected line 8: CSV_INVALID_CLOSING_QUOTE: /),
      expect.stringMatching(/^rejected line 9: CSV_RECORD_INCONSISTENT_COLUMNS: /),
      'rejected line 10: Rating_Count: "many" is not a whole number',
    ]);
    const byName = new Map((await records(alias)).map((r) => [r.name, r]));
    expect(byName.get('Sauvage')).toMatchObject({ rating: { average: 3.6, count: 5123 }, perfumers: ['François Demachy'], country: 'ZZ' });
    // Parfumo's layout has no gender column: no record claims one.
    expect([...byName.values()].filter((r) => r.gender !== undefined)).toEqual([]);
    expect(byName.get('Черная Магия')).toMatchObject({ brand: 'Новая Заря', rating: { average: null, count: 0 }, year_released: null });
    expect(byName.get('Baccarat Rouge 540, "Extrait"')).toMatchObject({
      concentration: 'Extrait de Parfum',
      perfumers: ['Francis Kurkdjian', 'Someone Else'],
    });
    // Variant listings repeat the row's own brand, year and concentration after the name: that tail
    // goes (the year only where the row has one); any other tail stays, and a name is never emptied.
    expect(byName.get('Joop! Homme')).toMatchObject({ brand: 'Joop!', year_released: 1989, concentration: 'Eau de Toilette' });
    expect(byName.get('Aura')).toMatchObject({ brand: 'Mugler', year_released: 2017, concentration: 'Eau de Parfum' });
    expect(byName.get('A Stroke of Ariane')).toMatchObject({ brand: 'Avon', year_released: null, concentration: 'Eau de Cologne' });
    expect(byName.get('Rue Cambon Chanel 2016 Eau de Parfum')).toMatchObject({ year_released: 2007 });
    expect(byName.get("Esprit d'Amouage")).toMatchObject({ brand: 'Amouage' });
    expect(byName.get('Chanel 2007 Eau de Toilette')).toMatchObject({ brand: 'Chanel' });
    // "Tonka" is no spelling of the vocabulary's "tonka bean" (a synonym, not a spelling): kept as written.
    expect(byName.get('Oud Wood')?.notes).toEqual({
      top: ['rosewood', 'cardamom'],
      heart: ['agarwood', 'sandalwood'],
      base: ['Tonka', 'amber'],
    });
  });

  it('refuses a shrinking ingest, lists versions, and rolls back atomically', async () => {
    const alias = es.index('guarded');
    const env = { ELASTICSEARCH_URL: es.url, CATALOGUE_ALIAS: alias };
    const full = join(dir, 'full.ndjson');
    const all = [...generateCatalogue({ count: 120, seed: 9 })];
    await writeFile(full, all.map((r) => JSON.stringify(r)).join('\n') + '\n');
    await ingest.run(context(['--file', full], env).ctx);
    const first = await currentIndex(es.client, alias);

    // The operator's 7-line file: 3 valid records, 4 bad lines.
    const small = join(dir, 'small.ndjson');
    await writeFile(small, [...all.slice(0, 3).map((r) => JSON.stringify(r)), '{', '{}', 'x', '[]'].join('\n') + '\n');
    await expect(ingest.run(context(['--file', small], env).ctx)).rejects.toThrow(
      /not swapped: 4 of 7 lines were rejected .*; the new index has 3 records, the live one 120 \(less than 90 %\)/,
    );
    expect(await currentIndex(es.client, alias)).toBe(first);
    expect((await es.client.count({ index: alias })).count).toBe(120);

    await ingest.run(context(['--file', small, '--allow-shrink'], env).ctx);
    expect((await es.client.count({ index: alias })).count).toBe(3);
    const listed = context(['--json'], env);
    await versions.run(listed.ctx);
    const kept = JSON.parse(listed.out()) as { index: string; documents: number; live: boolean }[];
    expect(kept.map((v) => [v.documents, v.live])).toEqual([
      [120, false],
      [3, true],
    ]);

    const back = context([], env);
    await rollback.run(back.ctx);
    expect(back.out()).toContain(`alias ${alias} → ${first}`);
    expect(await currentIndex(es.client, alias)).toBe(first);
    expect((await es.client.count({ index: alias })).count).toBe(120);
    await expect(rollback.run(context([], env).ctx)).rejects.toThrow(/no older version/);
  });
});
