import { foldKey, type FragranceDetail } from '@fragrance/contracts';
import { typo } from '../random.ts';

/** One benchmark query: the search parameters sent and the ids that count as right answers. */
export interface RelevanceQuery {
  kind: string;
  params: Record<string, string>;
  relevant: ReadonlySet<string>;
}

/** Lookups over the whole benchmark catalogue, by folded value. */
export interface CatalogueIndex {
  byNameBrand: Map<string, Set<string>>;
  byName: Map<string, Set<string>>;
  byBrand: Map<string, Set<string>>;
  /** A note or an accord (any tier), folded. */
  byIngredient: Map<string, Set<string>>;
}

/**
 * A kind of query, drawn from one record. Add a kind here (e.g. description words) and the bench
 * scores it like the others; `build` returns undefined when the record does not suit the kind.
 */
export interface RelevanceKind {
  name: string;
  description: string;
  build: (record: FragranceDetail, random: () => number, index: CatalogueIndex) => RelevanceQuery | undefined;
}

const add = (map: Map<string, Set<string>>, key: string, id: string) => {
  let ids = map.get(key);
  if (!ids) map.set(key, (ids = new Set()));
  ids.add(id);
};

export function indexCatalogue(records: Iterable<FragranceDetail>): CatalogueIndex {
  const index: CatalogueIndex = { byNameBrand: new Map(), byName: new Map(), byBrand: new Map(), byIngredient: new Map() };
  for (const r of records) {
    add(index.byNameBrand, `${foldKey(r.name)}|${foldKey(r.brand)}`, r.id);
    add(index.byName, foldKey(r.name), r.id);
    add(index.byBrand, foldKey(r.brand), r.id);
    for (const word of [...r.notes.top, ...r.notes.heart, ...r.notes.base, ...r.accords]) add(index.byIngredient, foldKey(word), r.id);
  }
  return index;
}

const none: ReadonlySet<string> = new Set();
const sameNameBrand = (r: FragranceDetail, index: CatalogueIndex) =>
  index.byNameBrand.get(`${foldKey(r.name)}|${foldKey(r.brand)}`) ?? none;
const sameName = (r: FragranceDetail, index: CatalogueIndex) => index.byName.get(foldKey(r.name)) ?? none;
const sameBrand = (r: FragranceDetail, index: CatalogueIndex) => index.byBrand.get(foldKey(r.brand)) ?? none;
const query = (kind: string, text: string, relevant: ReadonlySet<string>): RelevanceQuery => ({ kind, params: { query: text }, relevant });
/** A kind that types one field of the record with one typo (a dropped, doubled or swapped letter). */
const withTypo =
  (
    kind: string,
    field: 'name' | 'brand',
    same: (r: FragranceDetail, index: CatalogueIndex) => ReadonlySet<string>,
  ): RelevanceKind['build'] =>
  (r, random, index) => {
    const text = typed(r[field]);
    const misspelt = typo(random, text);
    return misspelt === text ? undefined : query(kind, misspelt, same(r, index));
  };
/** A word as a user types it: lower case, no accents. */
export const typed = (text: string) => text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

/** How a shopper says an occasion. */
const OCCASION_PHRASES: Record<string, string[]> = {
  daily: ['for every day', 'for daily wear'],
  office: ['at the office', 'for work'],
  leisure: ['for relaxed weekends', 'for leisure'],
  sport: ['after the gym', 'for sport'],
  evening: ['for evenings', 'for a night out'],
  'date night': ['for date night', 'for a romantic date'],
  formal: ['for formal events', 'for a black-tie occasion'],
};
const SEASON_PHRASES: Record<string, string[]> = {
  spring: ['spring', 'springtime'],
  summer: ['summer', 'hot summer days'],
  autumn: ['autumn', 'fall'],
  winter: ['winter', 'cold winter days'],
};
const pick = <T>(random: () => number, items: readonly T[]): T | undefined => items[Math.floor(random() * items.length)];

/** Every record with this accord, season and occasion: the right answers of a description query. */
function describedBy(records: readonly FragranceDetail[], accord: string, season: string, occasion: string): Set<string> {
  const out = new Set<string>();
  for (const r of records) {
    if (r.accords.some((a) => foldKey(a) === accord) && r.seasons.includes(season) && r.occasions.includes(occasion)) out.add(r.id);
  }
  return out;
}

/**
 * Description queries (issue 17): a shopper's sentence built from one record's attributes, e.g.
 * "a smoky fragrance for winter evenings"; right answers are the records with that accord (any of
 * its accords), season and occasion. Judged by attributes, never by the text the vectors see.
 */
export function descriptionKind(records: readonly FragranceDetail[]): RelevanceKind {
  return {
    name: 'description',
    description: 'description: "a <accord> fragrance for <season> <occasion>" (records with all three are right)',
    build: (r, random) => {
      const accord = pick(random, r.accords.slice(0, 3));
      const season = pick(random, r.seasons);
      const occasion = pick(random, r.occasions);
      if (accord === undefined || season === undefined || occasion === undefined) return undefined;
      const seasonText = pick(random, SEASON_PHRASES[season] ?? [season]) ?? season;
      const occasionText = pick(random, OCCASION_PHRASES[occasion] ?? [occasion]) ?? occasion;
      const templates = [
        `a ${typed(accord)} fragrance for ${seasonText} ${occasionText}`,
        `something ${typed(accord)} for ${seasonText}, ${occasionText}`,
        `${typed(accord)} perfume ${occasionText} in ${seasonText}`,
      ];
      const text = pick(random, templates) ?? templates[0]!;
      return { kind: 'description', params: { query: text }, relevant: describedBy(records, foldKey(accord), season, occasion) };
    },
  };
}

export const RELEVANCE_KINDS: readonly RelevanceKind[] = [
  {
    name: 'name_brand',
    description: 'known item: exact name then brand ("terre d hermes hermes")',
    build: (r, _random, index) => query('name_brand', typed(`${r.name} ${r.brand}`), sameNameBrand(r, index)),
  },
  {
    name: 'brand_name',
    description: 'known item: brand then name',
    build: (r, _random, index) => query('brand_name', typed(`${r.brand} ${r.name}`), sameNameBrand(r, index)),
  },
  {
    name: 'name_typo',
    description: 'known item: the name with one typo (a dropped, doubled or swapped letter)',
    build: withTypo('name_typo', 'name', sameName),
  },
  {
    name: 'name_prefix',
    description: 'known item: the name cut off as typed (60 % of it, at least 4 characters)',
    build: (r, _random, index) => {
      const name = typed(r.name);
      if (name.length < 6) return undefined;
      const prefix = name.slice(0, Math.max(4, Math.ceil(name.length * 0.6))).trimEnd();
      return query('name_prefix', prefix, sameName(r, index));
    },
  },
  {
    name: 'brand',
    description: 'category: the brand alone (every record of the brand is right)',
    build: (r, _random, index) => query('brand', typed(r.brand), sameBrand(r, index)),
  },
  {
    name: 'brand_typo',
    description: 'category: the brand with one typo',
    build: withTypo('brand_typo', 'brand', sameBrand),
  },
  {
    name: 'note',
    description: 'category: one note word (records with it as a note or accord are right)',
    build: (r, random, index) => {
      const notes = [...r.notes.top, ...r.notes.heart, ...r.notes.base];
      const note = notes[Math.floor(random() * notes.length)];
      return note === undefined ? undefined : query('note', typed(note), index.byIngredient.get(foldKey(note)) ?? none);
    },
  },
  {
    name: 'accord',
    description: 'category: one accord word',
    build: (r, random, index) => {
      const accord = r.accords[Math.floor(random() * r.accords.length)];
      return accord === undefined ? undefined : query('accord', typed(accord), index.byIngredient.get(foldKey(accord)) ?? none);
    },
  },
];

/** Up to `perKind` queries of each kind, drawn from `records` with `random` (distinct texts per kind). */
export function drawQueries(
  records: readonly FragranceDetail[],
  index: CatalogueIndex,
  random: () => number,
  perKind: number,
  kinds: readonly RelevanceKind[] = RELEVANCE_KINDS,
): RelevanceQuery[] {
  const out: RelevanceQuery[] = [];
  for (const kind of kinds) {
    const seen = new Set<string>();
    for (let attempt = 0; seen.size < perKind && attempt < perKind * 20; attempt++) {
      const record = records[Math.floor(random() * records.length)];
      if (!record) continue;
      const built = kind.build(record, random, index);
      const key = JSON.stringify(built?.params);
      if (!built || built.relevant.size === 0 || seen.has(key)) continue;
      seen.add(key);
      out.push(built);
    }
  }
  return out;
}
