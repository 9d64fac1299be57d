import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { foldKey } from '@fragrance/contracts';
import { generateCatalogue } from '@fragrance/dataset';
import { testElasticsearch, type TestElasticsearch } from '@fragrance/testkit';
import { ingestCatalogue } from './ingest.ts';
import { createTermRarity, TERM_RARITY_TTL_MS } from './term-rarity.ts';
import { makeRecord } from './testing.ts';

// The note/accord frequency table similar reads instead of a term-vectors call per request.
describe('term rarity', () => {
  let es: TestElasticsearch;
  let first: string;
  let second: string;
  const records = [...generateCatalogue({ count: 300, seed: 41 })];
  const rare = makeRecord({ name: 'Rare One', brand: 'Rarity', notes: { top: ['unobtainium'], heart: [], base: [] }, accords: ['woody'] });

  const concrete = async (alias: string) => Object.keys(await es.client.indices.getAlias({ name: alias }))[0]!;

  beforeAll(async () => {
    es = await testElasticsearch('rarity');
    await ingestCatalogue({ client: es.client, alias: es.index('a'), records: [...records, rare] });
    await ingestCatalogue({ client: es.client, alias: es.index('b'), records: records.slice(0, 100) });
    first = await concrete(es.index('a'));
    second = await concrete(es.index('b'));
  });
  afterAll(() => es.cleanup());

  it("gives every note and accord of a record the frequency Elasticsearch's term statistics give", async () => {
    const rarity = createTermRarity(es.client);
    expect(rarity.tableOf(first)).toBeUndefined();
    await expect.poll(() => rarity.tableOf(first)).toBeDefined();
    const table = rarity.tableOf(first)!;
    for (const record of [rare, ...records.slice(0, 20)]) {
      const fromRecord = await rarity.ofRecord(first, record.id);
      expect(table.documents).toBe(fromRecord.documents);
      for (const kind of ['notes', 'accords'] as const)
        for (const [term, frequency] of fromRecord[kind]) expect(table[kind].get(term), `${kind} ${term}`).toBe(frequency);
    }
    expect(table.notes.get('unobtainium')).toBe(1);
  });

  it('keeps one table per concrete index, so a swapped alias never reads the old counts', async () => {
    const rarity = createTermRarity(es.client);
    rarity.tableOf(first);
    rarity.tableOf(second);
    await expect.poll(() => rarity.tableOf(first) && rarity.tableOf(second)).toBeDefined();
    expect(rarity.tableOf(first)!.documents).toBe(records.length + 1);
    expect(rarity.tableOf(second)!.documents).toBe(100);
    expect(rarity.tableOf(second)!.notes.has('unobtainium')).toBe(false);
  });

  it('reads the table again once it is older than its time to live', async () => {
    let now = 1_000_000;
    const rarity = createTermRarity(es.client, () => now);
    rarity.tableOf(second);
    await expect.poll(() => rarity.tableOf(second)).toBeDefined();
    const note = foldKey('unobtainium');
    await es.client.index({ index: second, id: rare.id, document: { search: { notes: [note] } }, refresh: true });
    now += TERM_RARITY_TTL_MS - 1;
    expect(rarity.tableOf(second)!.notes.has(note)).toBe(false);
    now += 1;
    await expect.poll(() => rarity.tableOf(second)!.notes.get(note)).toBe(1);
  });
});
