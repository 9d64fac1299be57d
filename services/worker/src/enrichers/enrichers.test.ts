import { createServer, type Server } from 'node:http';
import type { FragranceDetail } from '@fragrance/contracts';
import { generateAuRetailerFeed, generateCatalogue } from '@fragrance/dataset';
import { close, listen } from '@fragrance/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applySupplied } from '../enrich/apply.ts';
import { indexFeed } from '../feed.ts';
import { aiEnricher, AiEndpointError, localModel, openAiModel } from './ai.ts';
import { auRetailerEnricher, auValuesFor } from './au-retailer.ts';

const AS_OF = '2026-11-21T02:00:00.000Z';
const records = [...generateCatalogue({ count: 400, seed: 7 })];
const feedLines = generateAuRetailerFeed({ count: 400, seed: 7 });
const ctx = { asOf: AS_OF, full: false };

const withOffers = (): FragranceDetail => {
  const feed = indexFeed(feedLines);
  const row = records.find((r) => auValuesFor(r, feed, AS_OF).stamp);
  if (!row) throw new Error('seed 7 has no record with offers');
  return row;
};

describe('applySupplied', () => {
  const base = records.find((r) => r.description === null && !r.provenance.some((p) => p.source === 'operator_curated'));
  if (!base) throw new Error('fixture: no record without description');

  it('sets the value, stamps the source with the fields and the time, and bumps updated_at', () => {
    const applied = applySupplied(base, 'ai_enriched', { values: { description: 'Warm and woody.' }, stamp: true }, AS_OF);
    expect(applied.modified).toBe(true);
    expect(applied.record.description).toBe('Warm and woody.');
    expect(applied.record.provenance.find((p) => p.source === 'ai_enriched')).toEqual({
      source: 'ai_enriched',
      fields: ['description'],
      recorded_at: AS_OF,
    });
    expect(applied.record.provenance_tags).toContain('ai_enriched');
    expect(applied.record.updated_at).toBe(AS_OF);
    // Applying the same values again changes nothing at all.
    const again = applySupplied(
      applied.record,
      'ai_enriched',
      { values: { description: 'Warm and woody.' }, stamp: true },
      '2026-11-22T02:00:00.000Z',
    );
    expect(again.modified).toBe(false);
    expect(again.record).toBe(applied.record);
  });

  it('never overwrites a field an operator curated', () => {
    const curated: FragranceDetail = {
      ...base,
      description: 'Operator words.',
      provenance: [...base.provenance, { source: 'operator_curated', fields: ['description'], recorded_at: '2026-08-01T00:00:00Z' }],
    };
    const applied = applySupplied(
      curated,
      'ai_enriched',
      { values: { description: 'Machine words.', seasons: ['winter'] }, stamp: true },
      AS_OF,
    );
    expect(applied.record.description).toBe('Operator words.');
    expect(applied.changed).not.toContain('description');
    expect(applied.record.provenance.find((p) => p.source === 'ai_enriched')?.fields ?? []).not.toContain('description');
  });

  it('drops the source tag when it now supplies "nothing found"', () => {
    const row = { ...withOffers() };
    const applied = applySupplied(
      row,
      'au_retailer_scrape',
      {
        values: {
          au_offers: [],
          au_availability: { available: false, price_min_aud: null, price_max_aud: null, checked_at: AS_OF },
          available_in_au: false,
        },
        stamp: false,
      },
      AS_OF,
    );
    expect(applied.record.au_offers).toEqual([]);
    expect(applied.record.provenance_tags).not.toContain('au_retailer_scrape');
  });
});

describe('au_retailer_scrape', () => {
  it('matches feed lines written the retailers way (abbreviations, size suffixes, case) and sets offers, availability and AUD range', async () => {
    const feed = indexFeed(feedLines);
    const enricher = auRetailerEnricher({ feed: async () => feed, staleMs: 86_400_000 });
    const supplied = await enricher.enrich(records, ctx);
    const stamped = [...supplied.values()].filter((s) => s.stamp);
    expect(stamped.length).toBeGreaterThan(20);
    for (const s of stamped) {
      const offers = s.values.au_offers ?? [];
      expect(offers.length).toBeGreaterThan(0);
      const inStock = offers.filter((o) => o.in_stock).map((o) => o.price_aud);
      expect(s.values.au_availability).toEqual({
        available: inStock.length > 0,
        price_min_aud: inStock.length > 0 ? Math.min(...inStock) : null,
        price_max_aud: inStock.length > 0 ? Math.max(...inStock) : null,
        checked_at: AS_OF,
      });
    }
    // A line in another spelling still matches its record.
    const row = withOffers();
    const line = feedLines.find((l) => auValuesFor(row, indexFeed([l]), AS_OF).stamp)!;
    const respelled = {
      ...line,
      brand: line.brand.toUpperCase(),
      name: `${line.name.toLowerCase()} 100ml`,
      concentration: row.concentration === 'Eau de Parfum' ? 'EDP' : line.concentration,
    };
    expect(auValuesFor(row, indexFeed([respelled]), AS_OF).stamp).toBe(true);
  });

  it('skips rows checked within the stale window unless the run is full', async () => {
    const feed = indexFeed(feedLines);
    const enricher = auRetailerEnricher({ feed: async () => feed, staleMs: 86_400_000 });
    const fresh = { ...records[0]!, au_availability: { ...records[0]!.au_availability, checked_at: '2026-11-21T00:00:00.000Z' } };
    expect((await enricher.enrich([fresh], ctx)).size).toBe(0);
    expect((await enricher.enrich([fresh], { ...ctx, full: true })).size).toBe(1);
    expect((await auRetailerEnricher({ feed: async () => undefined, staleMs: 1 }).enrich(records, ctx)).size).toBe(0);
  });
});

describe('ai_enriched (local model)', () => {
  it('fills missing accords, description, seasons and occasions deterministically and leaves present ones', async () => {
    const enricher = aiEnricher(localModel());
    const first = await enricher.enrich(records, ctx);
    const second = await enricher.enrich(records, ctx);
    expect([...first.entries()]).toEqual([...second.entries()]);
    for (const row of records) {
      const s = first.get(row.id);
      if (row.accords.length > 0) expect(s?.values.accords).toBeUndefined();
      if (row.description !== null) expect(s?.values.description).toBeUndefined();
      if (row.description === null && !row.provenance.some((p) => p.source === 'operator_curated' && p.fields.includes('description'))) {
        expect(s?.values.description).toMatch(new RegExp(`^${row.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `));
      }
      if (s?.values.accords) expect(s.values.main_accords).toEqual(s.values.accords.slice(0, 5));
    }
    expect([...first.values()].filter((s) => s.values.accords).length).toBeGreaterThan(20);
  });
});

describe('ai_enriched (OpenAI-compatible endpoint)', () => {
  let server: Server;
  let url: string;
  let mode: 'ok' | 'error' | 'garbage' = 'ok';
  const bodies: { model: string; messages: { role: string; content: string }[] }[] = [];
  const auth: (string | undefined)[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        auth.push(req.headers.authorization);
        if (req.url !== '/v1/chat/completions' || req.method !== 'POST') {
          res.writeHead(404).end();
          return;
        }
        bodies.push(JSON.parse(body) as (typeof bodies)[number]);
        if (mode === 'error') {
          res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"message":"overloaded"}}');
          return;
        }
        const content =
          mode === 'garbage'
            ? 'not json'
            : JSON.stringify({
                accords: ['Woody', 'amber', 'woody'],
                description: ' A dry woody amber. ',
                seasons: ['winter', 'monsoon'],
                occasions: ['evening'],
              });
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ id: 'x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content } }] }));
      });
    });
    url = `${await listen(server)}/v1`;
  });
  afterAll(() => close(server));

  it('speaks chat completions and keeps only well-formed, known values', async () => {
    const model = openAiModel({ baseUrl: url, apiKey: 'sk-test', model: 'tiny', timeoutMs: 5_000, concurrency: 2 });
    const rows = records.filter((r) => r.accords.length === 0).slice(0, 3);
    const supplied = await aiEnricher(model).enrich(rows, ctx);
    expect(bodies).toHaveLength(3);
    expect(bodies[0]?.model).toBe('tiny');
    expect(auth[0]).toBe('Bearer sk-test');
    const values = supplied.get(rows[0]!.id)?.values;
    expect(values?.accords).toEqual(['woody', 'amber']);
    if (rows[0]!.seasons.length === 0) expect(values?.seasons).toEqual(['winter']);
  });

  it('fails loudly on HTTP errors and malformed answers (the batch is then retried)', async () => {
    const model = openAiModel({ baseUrl: url, apiKey: undefined, model: 'tiny', timeoutMs: 5_000, concurrency: 1 });
    const rows = records.filter((r) => r.accords.length === 0).slice(0, 1);
    mode = 'error';
    await expect(aiEnricher(model).enrich(rows, ctx)).rejects.toBeInstanceOf(AiEndpointError);
    mode = 'garbage';
    await expect(aiEnricher(model).enrich(rows, ctx)).rejects.toThrow(/not JSON/);
    mode = 'ok';
  });
});
