import { describe, expect, it } from 'vitest';
import type { Concentration, FragranceDetail } from '@fragrance/contracts';
import { seededRandom } from '../random.ts';
import type { RelevanceQuery } from './queries.ts';
import { droppedApostrophes, drawShopperQueries, numberWords, SHOPPER_KINDS, shopperCatalogue, spokenNumber } from './shopper-queries.ts';

let nextId = 0;
function fragrance(
  name: string,
  brand: string,
  votes: number,
  concentration: Concentration = 'Eau de Parfum',
  notes: string[] = [],
): FragranceDetail {
  const id = `id-${++nextId}-${name}`;
  return {
    id,
    name,
    brand,
    country: 'ZZ',
    concentration,
    year_released: null,
    rating: { average: votes > 0 ? 4 : null, count: votes },
    main_accords: [],
    available_in_au: false,
    description: null,
    notes: { top: notes, heart: [], base: [] },
    accords: [],
    perfumers: [],
    seasons: [],
    occasions: [],
    provenance_tags: ['community_taxonomy'],
    provenance: [],
    au_availability: { available: false, price_min_aud: null, price_max_aud: null, checked_at: null },
    au_offers: [],
    updated_at: '2025-01-01T00:00:00.000Z',
  };
}

const myslf = fragrance('Myslf', 'Yves Saint Laurent', 800);
const libre = fragrance('Libre', 'Yves Saint Laurent', 1500);
const lightBlue = fragrance('Light Blue', 'Dolce & Gabbana', 3000, 'Eau de Toilette');
const oneMillion = fragrance('1 Million', 'Paco Rabanne', 4000, 'Eau de Toilette');
const twoOneTwo = fragrance('212 VIP', 'Carolina Herrera', 2000);
const numberFive = fragrance('N°5', 'Chanel', 5000);
const image = fragrance('Image', 'Cerruti', 300, 'Eau de Toilette');
const shalimar = fragrance('Shalimar', 'Guerlain', 2100);
const mitsouko = fragrance('Mitsouko', 'Guerlain', 900);
const guerlainVetiver = fragrance('Vetiver', 'Guerlain', 1200, 'Eau de Toilette', ['Vetiver']);
const carvenVetiver = fragrance('Vetiver', 'Carven', 60, 'Eau de Toilette', ['Vetiver']);
const bleu = fragrance('Bleu de Chanel', 'Chanel', 6000);
const bleuMarine = fragrance('Bleu Marine', 'Pierre Cardin', 200);
const hiver = fragrance("L'Eau d'Hiver", 'Editions de Parfums Frédéric Malle', 400, 'Eau de Toilette');
const kenzo = fragrance('Homme', 'Kenzo', 700);
const dreamer = fragrance('The Dreamer', 'Versace', 900, 'Eau de Toilette');
const strange = fragrance('Years', 'The Strange South', 5);
const CATALOGUE = [
  myslf,
  libre,
  lightBlue,
  oneMillion,
  twoOneTwo,
  numberFive,
  image,
  shalimar,
  mitsouko,
  guerlainVetiver,
  carvenVetiver,
  bleu,
  bleuMarine,
  hiver,
  kenzo,
  dreamer,
  strange,
];

/** The queries a kind draws from CATALOGUE, as text → right answers (by name). */
function drawn(kindName: string, random: () => number = () => 0): Map<string, string[]> {
  const kind = SHOPPER_KINDS.find((k) => k.name === kindName)!;
  const byId = new Map(CATALOGUE.map((r) => [r.id, r]));
  const answers = (q: RelevanceQuery) => [...q.relevant].map((id) => `${byId.get(id)!.brand}: ${byId.get(id)!.name}`).sort();
  return new Map(kind.generate(shopperCatalogue(CATALOGUE), random).map((q) => [q.params.query!, answers(q)]));
}

describe('shopper queries drawn from a catalogue by rule', () => {
  it('exact name where one house holds it; brand + name for every fragrance', () => {
    const exact = drawn('exact_name');
    expect(exact.get('myslf')).toEqual(['Yves Saint Laurent: Myslf']);
    expect(exact.has('vetiver')).toBe(false);
    expect(drawn('brand_name').get('carven vetiver')).toEqual(['Carven: Vetiver']);
  });

  it('aliases as shoppers type them: the judge table and the initials of a 3–4 word brand; an acronym alone lists the brand', () => {
    const aliasName = drawn('alias_name');
    expect(aliasName.get('YSL myslf')).toEqual(['Yves Saint Laurent: Myslf']);
    expect(aliasName.get('D&G light blue')).toEqual(['Dolce & Gabbana: Light Blue']);
    expect(aliasName.get('TSS years')).toEqual(['The Strange South: Years']);
    const aliasOnly = drawn('alias_only');
    expect(aliasOnly.get('ysl')).toEqual(['Yves Saint Laurent: Libre', 'Yves Saint Laurent: Myslf']);
    expect(aliasOnly.get('d&g')).toEqual(['Dolce & Gabbana: Light Blue']);
    expect(aliasOnly.has('saint laurent')).toBe(false);
  });

  it('numbers as people say them', () => {
    expect(['1', '5', '16', '40', '07', '212', '700', '1969'].map(spokenNumber)).toEqual([
      'one',
      'five',
      'sixteen',
      'forty',
      'zero seven',
      'two one two',
      'seven hundred',
      undefined,
    ]);
    expect(numberWords('N°5', () => 0)).toBe('number 5');
    expect(numberWords('No. 5', () => 0.9)).toBe('no 5');
    expect(numberWords('Bespoke #1', () => 0)).toBe('bespoke one');
    expect(numberWords('Shalimar', () => 0)).toBeUndefined();
    const numbers = drawn('number_words');
    expect(numbers.get('one million')).toEqual(['Paco Rabanne: 1 Million']);
    expect(numbers.get('two one two vip')).toEqual(['Carolina Herrera: 212 VIP']);
    expect(numbers.get('chanel number 5')).toEqual(['Chanel: N°5']);
  });

  it('a name with a concentration it does not spell; brand + name + EDP/EDT where the record has it', () => {
    expect(drawn('name_concentration').get('image extrait de parfum')).toEqual(['Cerruti: Image']);
    const abbreviations = drawn('abbreviation');
    expect(abbreviations.get('kenzo homme edp')).toEqual(['Kenzo: Homme']);
    expect(abbreviations.get('cerruti image edt')).toEqual(['Cerruti: Image']);
  });

  it('popular first: a brand alone, a first word, a shared name only where the most popular is clearly ahead', () => {
    expect(drawn('brand_only').get('guerlain')).toEqual(['Guerlain: Shalimar']);
    expect(drawn('first_word').get('bleu')).toEqual(['Chanel: Bleu de Chanel']);
    expect(drawn('shared_name').get('vetiver')).toEqual(['Guerlain: Vetiver']);
    const close = [fragrance('Oud', 'A', 100), fragrance('Oud', 'B', 80)];
    const kind = SHOPPER_KINDS.find((k) => k.name === 'shared_name')!;
    expect(kind.generate(shopperCatalogue(close), () => 0)).toEqual([]);
  });

  it('dropped apostrophes, joined or spaced; one typo in the brand', () => {
    expect(droppedApostrophes("L'Eau d'Hiver", () => 0)).toBe('leau dhiver');
    expect(droppedApostrophes("L'Eau d'Hiver", () => 0.9)).toBe('leau d hiver');
    expect(drawn('dropped_apostrophe').get('editions de parfums frederic malle leau dhiver')).toEqual([
      "Editions de Parfums Frédéric Malle: L'Eau d'Hiver",
    ]);
    const typos = [...drawn('brand_typo', seededRandom(3))].filter(([, answers]) => answers[0] === 'Versace: The Dreamer');
    expect(typos).toHaveLength(1);
    expect(typos[0]![0]).toMatch(/^(?!versace )\S+ the dreamer$/);
  });

  it('draws up to perKind distinct queries of every kind, the same for the same seed', () => {
    const first = drawShopperQueries(CATALOGUE, seededRandom(7), 3);
    expect(new Set(first.map((q) => q.kind))).toEqual(new Set(SHOPPER_KINDS.map((k) => k.name)));
    for (const kind of SHOPPER_KINDS) expect(first.filter((q) => q.kind === kind.name).length).toBeLessThanOrEqual(3);
    expect(drawShopperQueries(CATALOGUE, seededRandom(7), 3)).toEqual(first);
  });
});
