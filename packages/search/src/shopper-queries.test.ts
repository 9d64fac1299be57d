import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { foldKey, SearchQuery, type FragranceDetail, type SearchQueryInput, type SearchResponse } from '@fragrance/contracts';
import { generateCatalogue } from '@fragrance/dataset';
import { testElasticsearch, type TestElasticsearch } from '@fragrance/testkit';
import { createCatalogueRepository, type CatalogueRepository } from './catalogue.ts';
import { ingestCatalogue } from './ingest.ts';
import { ONE_WORD_NAME_BONUS } from './query.ts';
import { withoutProductWords } from './relax.ts';
import { makeRecord } from './testing.ts';

// What shoppers type (issue 33): aliases, other spellings, concentrations, popular first and
// relaxation, on real Elasticsearch next to generated records.
const hand = {
  cinema: makeRecord({ name: 'Cinéma', brand: 'Yves Saint Laurent', votes: 900 }),
  myslf: makeRecord({ name: 'Myslf', brand: 'Yves Saint Laurent', votes: 4_000 }),
  lightBlue: makeRecord({ name: 'Light Blue', brand: 'Dolce & Gabbana', votes: 8_000 }),
  leMale: makeRecord({ name: 'Le Male', brand: 'Jean Paul Gaultier', votes: 9_000 }),
  layton: makeRecord({ name: 'Layton', brand: 'Parfums de Marly', votes: 7_000 }),
  fierce: makeRecord({ name: 'Fierce', brand: 'Abercrombie & Fitch', votes: 3_000 }),
  ckOne: makeRecord({ name: 'CK One', brand: 'Calvin Klein', votes: 6_000 }),
  baccarat: makeRecord({ name: 'Baccarat Rouge 540', brand: 'Maison Francis Kurkdjian', votes: 10_000 }),
  oneMillion: makeRecord({ name: '1 Million', brand: 'Paco Rabanne', votes: 20_000 }),
  twoOneTwo: makeRecord({ name: '212 VIP', brand: 'Carolina Herrera', votes: 5_000 }),
  no5: makeRecord({ name: 'N°5', brand: 'Chanel', votes: 30_000 }),
  leauDhiver: makeRecord({ name: "L'Eau d'Hiver", brand: 'Editions de Parfums Frédéric Malle', votes: 545 }),
  lairDuTemps: makeRecord({ name: 'L’Air du Temps', brand: 'Nina Ricci', votes: 2_000 }),
  myrrhTonka: makeRecord({ name: 'Myrrh & Tonka', brand: 'Jo Malone', votes: 750 }),
  imageEdt: makeRecord({ name: 'Image', brand: 'Cerruti', votes: 300, concentration: 'Eau de Toilette' }),
  maniaEdp: makeRecord({ name: 'Mania', brand: 'Giorgio Armani', votes: 400, concentration: 'Eau de Parfum' }),
  maniaEdt: makeRecord({ name: 'Mania', brand: 'Giorgio Armani', votes: 500, concentration: 'Eau de Toilette' }),
  aquaCelestia: makeRecord({ name: 'Aqua Celestia', brand: 'Bvlgari', votes: 1_500 }),
  alien: makeRecord({ name: 'Alien', brand: 'Mugler', votes: 12_000 }),
  sauvage: makeRecord({ name: 'Sauvage', brand: 'Dior', votes: 40_000 }),
  sauvageElixir: makeRecord({ name: 'Sauvage Elixir', brand: 'Dior', votes: 9_000 }),
  bleu: makeRecord({ name: 'Bleu de Chanel', brand: 'Chanel', votes: 25_000 }),
  bleuObscure: makeRecord({ name: 'Bleu Marine Nuit', brand: 'Obscura', votes: 4 }),
  vetiverPopular: makeRecord({ name: 'Vetiver', brand: 'Guerlain', votes: 3_000, notes: { base: ['Vetiver'] } }),
  vetiverObscure: makeRecord({ name: 'Vetiver', brand: 'Tiny House', votes: 12, notes: { base: ['Haitian Vetiver'] } }),
  // A name after a material the record does not have: a shopper typing the material wants the material.
  oudNamed: makeRecord({ name: 'Oud Mistral', brand: 'Windy House', votes: 50_000, notes: { base: ['Cedar'] } }),
  oudPlain: makeRecord({ name: 'Evening Smoke', brand: 'Quiet House', votes: 3_000, notes: { base: ['Oud'] } }),
  shalimar: makeRecord({ name: 'Shalimar', brand: 'Guerlain', votes: 15_000 }),
  guerlainHomme: makeRecord({ name: 'Guerlain Homme Intense', brand: 'Guerlain', votes: 60 }),
  haramain: makeRecord({ name: 'Amber Oud Gold Edition', brand: 'Al Haramain / الحرمين', votes: 470 }),
  // A misspelt whole name must find the name it is one letter from, not a more popular one containing a word like it.
  giardino: makeRecord({ name: 'Giardino', brand: 'Casa Verde', votes: 150 }),
  brezzaGiardino: makeRecord({ name: 'Brezza Giardino', brand: 'Casa Azzurra', votes: 1_200 }),
  burntMeridian: makeRecord({ name: 'Burnt Meridian', brand: 'Ash Works', votes: 45 }),
  midnightMeridian: makeRecord({ name: 'Midnight Meridian', brand: 'Burnt Works', votes: 130 }),
  // A house typed with one letter wrong, beside more popular records that only look like it:
  // a brand two letters off ("Maison Vorel"), a name word two letters off ("Brorance").
  vourello: makeRecord({ name: 'Hidden Lantern', brand: 'Vourellò', votes: 32 }),
  vorel: makeRecord({ name: 'Éphémère', brand: 'Maison Vorel', votes: 68 }),
  brealance: makeRecord({ name: 'Désert Impérial', brand: 'Breâlance', votes: 76 }),
  brorance: makeRecord({ name: 'Brorance', brand: 'Tirescà', votes: 375 }),
  doulfurino: makeRecord({ name: 'Quiet Relic', brand: 'Maison Doulfurino', votes: 3 }),
  doulfurnia: makeRecord({ name: 'Doulfurnia Maison', brand: 'Casa Lenta', votes: 1_000 }),
};

const records = [...generateCatalogue({ count: 800, seed: 11 }), ...Object.values(hand)];

describe('shopper queries', () => {
  let es: TestElasticsearch;
  let repo: CatalogueRepository;
  beforeAll(async () => {
    es = await testElasticsearch('shopper');
    const alias = es.index('fragrances');
    await ingestCatalogue({ client: es.client, alias, records });
    repo = createCatalogueRepository({ client: es.client, alias, cursorKeys: { current: randomBytes(32).toString('base64url') } });
  });
  afterAll(() => es.cleanup());

  const search = (input: SearchQueryInput): Promise<SearchResponse> => repo.search(SearchQuery.parse(input));
  const first = async (query: string) => (await search({ query })).data[0]?.id;
  const ids = async (query: string, limit = 10) => (await search({ query, limit: String(limit) })).data.map((d) => d.id);

  it.each([
    ['YSL Cinema', 'cinema'],
    ['ysl myslf', 'myslf'],
    ['D&G Light Blue', 'lightBlue'],
    ['DG light blue', 'lightBlue'],
    ['d and g light blue', 'lightBlue'],
    ['JPG Le Male', 'leMale'],
    ['PDM Layton', 'layton'],
    ['A&F Fierce', 'fierce'],
    ['MFK Baccarat Rouge', 'baccarat'],
    ['Armani Mania', 'maniaEdt'],
    ['Bulgari Aqua Celestia', 'aquaCelestia'],
    ['Thierry Mugler Alien', 'alien'],
    ['Al Haramain Amber Oud Gold', 'haramain'],
  ] as const)('finds a brand by its alias: %s', async (query, expected) => {
    expect(await first(query)).toBe(hand[expected].id);
  });

  it('lists a brand for its acronym alone, most popular first', async () => {
    expect(await ids('ysl', 2)).toEqual([hand.myslf.id, hand.cinema.id]);
    expect((await ids('mfk', 1))[0]).toBe(hand.baccarat.id);
  });

  it.each([
    ['one million', 'oneMillion'],
    ['paco rabanne one million', 'oneMillion'],
    ['two one two vip', 'twoOneTwo'],
    ['chanel no 5', 'no5'],
    ['Chanel No. 5', 'no5'],
    ['chanel number 5', 'no5'],
    ['chanel n5', 'no5'],
    ['Leau dHiver', 'leauDhiver'],
    ["L'Eau d'Hiver", 'leauDhiver'],
    ['L Eau d Hiver', 'leauDhiver'],
    ['Nina Ricci Lair du Temps', 'lairDuTemps'],
    ["L'Air du Temps", 'lairDuTemps'],
    ['myrrh and tonka', 'myrrhTonka'],
  ] as const)('reads another spelling of the same name: %s', async (query, expected) => {
    expect(await first(query)).toBe(hand[expected].id);
  });

  it('turns a concentration into a boost, never a required word', async () => {
    expect(await first('Cerruti Image eau de toilette')).toBe(hand.imageEdt.id);
    expect(await first('Cerruti Image EDP')).toBe(hand.imageEdt.id);
    expect(await first('Mania EDP')).toBe(hand.maniaEdp.id);
    expect(await first('Mania eau de toilette')).toBe(hand.maniaEdt.id);
  });

  it('ranks the popular record first where the query is ambiguous', async () => {
    expect(await first('sauvage')).toBe(hand.sauvage.id);
    expect(await first('bleu')).toBe(hand.bleu.id);
    expect((await ids('guerlain', 3)).slice(0, 1)).toEqual([hand.shalimar.id]);
    // One word: the names that are it or start with it, most votes first, the name itself a little ahead.
    const rank = (r: FragranceDetail) => Math.log10(1 + r.rating.count) + (foldKey(r.name) === 'vetiver' ? ONE_WORD_NAME_BONUS : 0);
    // A material's name counts as a name on records that have the material (or list no notes and accords).
    const hasVetiver = (r: FragranceDetail) =>
      [...r.notes.top, ...r.notes.heart, ...r.notes.base, ...r.accords].some((m) => foldKey(m).split(' ').includes('vetiver'));
    const vetiver = records
      .filter((r) => /^vetiver( |$)/.test(foldKey(r.name)) && hasVetiver(r))
      .sort((a, b) => rank(b) - rank(a))
      .map((r) => r.id);
    const found = await ids('vetiver', 20);
    expect(vetiver.length).toBeGreaterThanOrEqual(2);
    expect(found.slice(0, Math.min(3, vetiver.length))).toEqual(vetiver.slice(0, 3));
    expect(found.indexOf(hand.vetiverPopular.id)).toBeLessThan(found.indexOf(hand.vetiverObscure.id));
  });

  it('answers a material named alone with records that have it, not with names after it', async () => {
    const found = await ids('oud', 100);
    const named = found.indexOf(hand.oudNamed.id);
    expect(found).toContain(hand.oudPlain.id);
    expect(found.indexOf(hand.oudPlain.id)).toBeLessThan(named < 0 ? Infinity : named);
    // The record's whole name still wins when more words name it.
    expect(await first('oud mistral')).toBe(hand.oudNamed.id);
  });

  it('lets a whole name of several words win over more popular names containing it', async () => {
    expect(await first('sauvage elixir')).toBe(hand.sauvageElixir.id);
    expect(await first('dior sauvage')).toBe(hand.sauvage.id);
    expect(await first('mania')).toBe(hand.maniaEdt.id);
    expect(await first('guerlain vetiver')).toBe(hand.vetiverPopular.id);
  });

  it.each([
    ['giadrino', 'giardino'],
    ['giardno', 'giardino'],
    ['burnt meridain', 'burntMeridian'],
    ['ash works burnt meridain', 'burntMeridian'],
  ] as const)('finds the whole name a misspelling is one letter from: %s', async (query, expected) => {
    // The generated records may hold the same name too: any record of that name is right.
    const top = (await search({ query, limit: '1' })).data[0];
    expect(top && foldKey(top.name)).toBe(foldKey(hand[expected].name));
  });

  it.each([
    ['vourelo', 'vourello'],
    ['bralance', 'brealance'],
    ['maison doulfurno', 'doulfurino'],
  ] as const)('finds the house a misspelling is one letter from: %s', async (query, expected) => {
    const top = (await search({ query, limit: '1' })).data[0];
    expect(top && foldKey(top.brand)).toBe(foldKey(hand[expected].brand));
  });

  it('relaxes a query that finds nothing, product words first, and says what it dropped', async () => {
    const page = await search({ query: 'Sauvage for men 100ml spray' });
    expect(page.data[0]?.id).toBe(hand.sauvage.id);
    expect(page.relaxed).toEqual({ dropped: ['for', 'men', '100ml', 'spray'] });
    // A word no record has goes next.
    const unknown = await search({ query: 'shalimar zqxwv' });
    expect(unknown.data[0]?.id).toBe(hand.shalimar.id);
    expect(unknown.relaxed).toEqual({ dropped: ['zqxwv'] });
    // Nothing to keep: an empty page, not a looser one.
    const gibberish = await search({ query: 'xqzvw blorpt' });
    expect(gibberish.total).toBe(0);
    expect(gibberish.relaxed).toBeUndefined();
    // A query that finds something is answered as typed.
    expect((await search({ query: 'sauvage' })).relaxed).toBeUndefined();
  });

  it('relaxes within the filters', async () => {
    const page = await search({ query: 'sauvage zqxwv', brand: 'Chanel' });
    expect(page.total).toBe(0);
    expect(page.relaxed).toBeUndefined();
  });

  it('tells product, gender, concentration and size words from the rest', () => {
    expect(withoutProductWords('sauvage pour homme eau de toilette 100 ml')).toEqual({
      kept: ['sauvage'],
      dropped: ['pour', 'homme', 'eau', 'de', 'toilette', '100', 'ml'],
    });
    expect(withoutProductWords('bleu de chanel edp 3 4oz')).toEqual({ kept: ['bleu', 'de', 'chanel', '3'], dropped: ['edp', '4oz'] });
  });
});
