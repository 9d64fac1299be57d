import {
  foldKey,
  PROVENANCE_SOURCES,
  type AuOffer,
  type AuRetailerFeedLine,
  type Concentration,
  type FragranceDetail,
  type ProvenanceEntry,
  type ProvenanceSource,
} from '@fragrance/contracts';
import { brandName, editionName, fragranceName, perfumerName } from './names.ts';
import { MAX_SEED, Rng, weightedTable, type WeightedTable } from './rng.ts';
import { AU_RETAILERS, feedLineFor, offerPrice, offerUrl, pickOfferSize, roundPrice, type Retailer } from './retailers.ts';
import {
  ACCORDS,
  deriveAccords,
  deriveOccasions,
  deriveSeasons,
  matchKey,
  NOTE_INFO,
  type Accord,
  type NoteInfo,
} from '@fragrance/vocabulary';
import { BRAND_COUNTRIES } from './countries.ts';
import { deriveGender } from './gender.ts';

export interface GenerateOptions {
  /** Number of catalogue records. */
  count: number;
  /** PRNG seed, an integer in [0, 2^31 - 1]. */
  seed: number;
}

export const MAX_COUNT = 2_000_000;

/** The moment the generated catalogue is a snapshot of; every timestamp is at or before it. */
export const DATASET_AS_OF = '2026-09-01T00:00:00Z';
const AS_OF_MS = Date.parse(DATASET_AS_OF);
const DAY_MS = 86_400_000;
const NEWEST_YEAR = 2026;
const OLDEST_YEAR = 1900;

/** Shares of records that reach the catalogue without a field, so enrichment has work to do. */
export const MISSING_SHARES = {
  accords: 0.15,
  perfumers: 0.16,
  description: 0.14,
  seasons: 0.15,
  occasions: 0.15,
} as const;
/** Share of records with AU offers from an earlier retailer scrape. */
export const AU_OFFER_SHARE = 0.15;
const OPERATOR_CURATED_SHARE = 0.1;

/** Throws a RangeError unless count and seed are usable. */
export function assertGenerateOptions({ count, seed }: GenerateOptions): void {
  if (!Number.isSafeInteger(count) || count < 1 || count > MAX_COUNT) {
    throw new RangeError(`count must be an integer from 1 to ${MAX_COUNT}, got ${count}`);
  }
  if (!Number.isSafeInteger(seed) || seed < 0 || seed > MAX_SEED) {
    throw new RangeError(`seed must be an integer from 0 to ${MAX_SEED}, got ${seed}`);
  }
}

export interface BrandPlan {
  name: string;
  country: string;
  founded: number;
  size: number;
  style: Accord[];
  perfumers: string[];
  /** AUD price of 100 ml Eau de Parfum at this house. */
  basePrice: number;
}

const CONCENTRATION_WEIGHTS: readonly (readonly [Concentration, number])[] = [
  ['Extrait de Parfum', 7],
  ['Parfum', 9],
  ['Eau de Parfum', 45],
  ['Eau de Toilette', 26],
  ['Eau de Cologne', 8],
  ['Eau Fraîche', 5],
];
const CONCENTRATION_TABLE = weightedTable(
  CONCENTRATION_WEIGHTS.map(([c]) => c),
  CONCENTRATION_WEIGHTS.map(([, w]) => w),
);
const COUNTRY_TABLE = weightedTable(
  BRAND_COUNTRIES.map(([c]) => c),
  BRAND_COUNTRIES.map(([, w]) => w),
);

/**
 * Accords a house can be known for; its notes lean towards them: the common families in the
 * vocabulary's order (without the two sub-families no house is styled by), then signature
 * accords. The order is part of every seeded catalogue: houses draw from it by index.
 */
const STYLE_ACCORDS: readonly Accord[] = [
  ...ACCORDS.slice(0, ACCORDS.indexOf('aquatic') + 1).filter((accord) => accord !== 'yellow floral' && accord !== 'soft spicy'),
  'oud',
  'smoky',
  'vanilla',
  'iris',
  'tobacco',
  'incense',
  'lavender',
  'balsamic',
  'tea',
];
const GULF_STYLE: readonly Accord[] = ['oud', 'amber', 'rose', 'warm spicy', 'incense', 'sweet'];

type Layer = 'top' | 'heart' | 'base';
const NOTES_PER_LAYER = weightedTable([1, 2, 3, 4, 5], [8, 30, 35, 20, 7]);
const LAYERS: readonly Layer[] = ['top', 'heart', 'base'];
const NOTES_BY_LAYER = new Map<Layer, NoteInfo[]>(LAYERS.map((l) => [l, NOTE_INFO.filter((n) => n.layers.includes(l))]));
/** Notes of a layer whose first two accords include the given accord. */
const NOTES_BY_LAYER_ACCORD = new Map<string, NoteInfo[]>();
for (const layer of LAYERS) {
  for (const accord of ACCORDS) {
    const notes = NOTE_INFO.filter((n) => n.layers.includes(layer) && n.accords.slice(0, 2).includes(accord));
    if (notes.length > 0) NOTES_BY_LAYER_ACCORD.set(`${layer}|${accord}`, notes);
  }
}

/**
 * Brand sizes following a Zipf-like law w(k) = 1/(k+c)^1.6: a few houses get hundreds of
 * records, most get a handful. Small houses draw their size from a geometric law around their
 * share, which gives the realistic crowd of one- and two-record brands. Sizes sum to count.
 */
function brandSizes(rng: Rng, count: number): number[] {
  const brands = Math.max(1, Math.round(count / 25));
  const c = 60 * Math.sqrt(brands / 3000);
  const weights = Array.from({ length: brands }, (_, k) => 1 / Math.pow(k + 1 + c, 1.6));
  const totalWeight = weights.reduce((a, b) => a + b, 0);
  const rest = count - brands; // every brand has at least one record
  const extra = weights.map((w) => {
    const mean = (rest * w) / totalWeight;
    if (mean >= 20) return mean * Math.exp(0.15 * rng.normal());
    // Geometric number of further records with this mean.
    return Math.floor(Math.log(1 - rng.float()) / Math.log(mean / (1 + mean)));
  });
  const extraSum = extra.reduce((a, b) => a + b, 0);
  const basis = extraSum > 0 ? extra : weights;
  const basisSum = extraSum > 0 ? extraSum : totalWeight;
  // Scale to exactly `rest`; largest remainders get the records flooring left over.
  const exact = basis.map((e) => (rest * e) / basisSum);
  const sizes = exact.map((x) => 1 + Math.floor(x));
  let left = count - sizes.reduce((a, b) => a + b, 0);
  const order = exact.map((x, i) => [x - Math.floor(x), i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (const [, i] of order) {
    if (left <= 0) break;
    sizes[i] = (sizes[i] ?? 0) + 1;
    left--;
  }
  return sizes;
}

function foundedYear(rng: Rng, size: number): number {
  // Big houses are old; most small ones are recent.
  if (size >= 100 || rng.chance(0.2)) return rng.int(OLDEST_YEAR, 1995);
  return Math.max(OLDEST_YEAR, NEWEST_YEAR - Math.floor(rng.exponential(14)));
}

function planPerfumers(rng: Rng, count: number): WeightedTable<string> {
  const total = Math.max(40, Math.round(count / 100));
  const seen = new Set<string>();
  const names: string[] = [];
  while (names.length < total) {
    const name = perfumerName(rng);
    if (seen.has(foldKey(name))) continue;
    seen.add(foldKey(name));
    names.push(name);
  }
  // A few perfumers work for many houses; most for one or two.
  return weightedTable(
    names,
    names.map((_, i) => 1 / (i + 20)),
  );
}

function planBrands(rng: Rng, count: number): BrandPlan[] {
  const sizes = brandSizes(rng, count);
  const perfumers = planPerfumers(rng, count);
  const seen = new Set<string>();
  const brands: BrandPlan[] = [];
  for (const size of sizes) {
    const country = rng.fromTable(COUNTRY_TABLE);
    let name = brandName(rng, country);
    while (seen.has(foldKey(name))) name = brandName(rng, country);
    seen.add(foldKey(name));
    const gulf = country === 'AE' || country === 'SA' || country === 'OM';
    const style = rng.sample(gulf && rng.chance(0.7) ? GULF_STYLE : STYLE_ACCORDS, rng.int(1, 3));
    const poolSize = Math.min(12, 1 + Math.floor(Math.log2(size + 1)));
    const pool = new Set<string>();
    while (pool.size < poolSize) pool.add(rng.fromTable(perfumers));
    const tier = rng.weighted([130, 190, 320, 480], [35, 30, 25, 10]);
    brands.push({
      name,
      country,
      founded: foundedYear(rng, size),
      size,
      style,
      perfumers: [...pool],
      basePrice: Math.round(tier * Math.exp(0.15 * rng.normal())),
    });
  }
  return rng.shuffle(brands);
}

/**
 * A pyramid around a theme: the house's style accords plus one of the record's own. Most notes
 * come from the theme, the rest from anywhere in the layer, so accords come out coherent but
 * not uniform across a house.
 */
function pickNotes(rng: Rng, brand: BrandPlan): FragranceDetail['notes'] {
  const theme = [...brand.style, rng.pick(STYLE_ACCORDS)];
  const used = new Set<string>();
  const notes: Record<Layer, string[]> = { top: [], heart: [], base: [] };
  for (const layer of LAYERS) {
    const want = rng.fromTable(NOTES_PER_LAYER);
    const themed = theme.map((a) => NOTES_BY_LAYER_ACCORD.get(`${layer}|${a}`)).filter((l): l is NoteInfo[] => (l?.length ?? 0) >= 3);
    for (let tries = 0; notes[layer].length < want && tries < 20; tries++) {
      const pool = themed.length > 0 && rng.chance(0.65) ? rng.pick(themed) : (NOTES_BY_LAYER.get(layer) ?? NOTE_INFO);
      const note = rng.pick(pool).name;
      if (used.has(note)) continue;
      used.add(note);
      notes[layer].push(note);
    }
  }
  return notes;
}

function releaseYear(rng: Rng, brand: BrandPlan): number | null {
  if (rng.chance(0.02)) return null;
  // u^0.4 piles releases up towards the present: catalogues are mostly recent launches.
  const span = NEWEST_YEAR - brand.founded + 1;
  return Math.min(NEWEST_YEAR, brand.founded + Math.floor(span * Math.pow(rng.float(), 0.4)));
}

function rating(rng: Rng, brand: BrandPlan): FragranceDetail['rating'] {
  if (rng.chance(0.1)) return { average: null, count: 0 };
  const mu = 2.2 + 0.3 * Math.log(brand.size);
  const count = Math.min(48_000, Math.max(1, Math.floor(Math.exp(mu + 1.5 * rng.normal()))));
  const quality = Math.min(4.8, Math.max(2.2, 3.85 + 0.35 * rng.normal()));
  const observed = Math.min(5, Math.max(1, quality + rng.normal() / Math.sqrt(count)));
  // Few votes: the average is a mean of whole stars.
  const average = count <= 20 ? Math.round(observed * count) / count : observed;
  return { average: Math.round(average * 100) / 100, count };
}

function isoSeconds(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

function between(rng: Rng, fromMs: number, toMs: number): number {
  return fromMs >= toMs ? toMs : fromMs + Math.floor(rng.float() * (toMs - fromMs));
}

function humanList(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

function communityDescription(r: {
  name: string;
  brand: string;
  concentration: Concentration;
  year: number | null;
  accords: readonly string[];
  notes: FragranceDetail['notes'];
  perfumers: readonly string[];
}): string {
  const kind = `${r.accords.length > 0 ? `${r.accords.slice(0, 2).join(' ')} ` : ''}${r.concentration.toLowerCase()}`;
  const article = /^[aeiou]/.test(kind) ? 'an' : 'a';
  const parts = [`${r.name} by ${r.brand} is ${article} ${kind}${r.year ? ` launched in ${r.year}` : ''}.`];
  if (r.perfumers.length === 1) parts.push(`The nose behind it is ${humanList(r.perfumers)}.`);
  if (r.perfumers.length > 1) parts.push(`The noses behind it are ${humanList(r.perfumers)}.`);
  if (r.notes.top.length > 0) parts.push(`Top notes are ${humanList(r.notes.top)};`);
  if (r.notes.heart.length > 0) parts.push(`middle notes are ${humanList(r.notes.heart)};`);
  if (r.notes.base.length > 0) parts.push(`base notes are ${humanList(r.notes.base)}.`);
  return parts.join(' ').replace(/;$/, '.');
}

const CURATED_OPENERS = ['A quietly assured', 'A luminous', 'A brooding', 'A playful', 'An elegant', 'A textured', 'A radiant', 'A hushed'];
function curatedDescription(rng: Rng, r: { name: string; accords: readonly string[]; notes: FragranceDetail['notes'] }): string {
  const lead = r.accords[0] ?? 'modern';
  const heart = r.notes.heart[0] ?? r.notes.top[0] ?? 'its heart';
  const base = r.notes.base[0] ?? 'a soft skin accord';
  const top = r.notes.top[0] ?? 'a bright opening';
  return `${rng.pick(CURATED_OPENERS)} ${lead} composition: ${r.name} sets ${heart} against ${base}, lifted at first by ${top}. Curated pick for the house's core range.`;
}

/** One catalogue record plus the retailer feed lines that refer to it. */
export interface GeneratedEntry {
  record: FragranceDetail;
  feed: AuRetailerFeedLine[];
}

/** A generation in progress: the record stream plus what the feed needs once it is drained. */
export interface CatalogueRun {
  entries: Generator<GeneratedEntry, void, undefined>;
  brands: readonly BrandPlan[];
  /** matchKey of every record generated so far. */
  keys: Set<string>;
  /** Stream reserved for the feed's own choices (unmatched lines, ordering). */
  feedRng: Rng;
}

/** Starts a generation. Records come out lazily, one brand's range after another. */
export function startCatalogueRun(options: GenerateOptions): CatalogueRun {
  assertGenerateOptions(options);
  const root = Rng.fromSeed(options.seed);
  // Separate streams: names and notes, AU offers and the feed's extra lines never shift each other.
  const planRng = root.fork();
  const recordRng = planRng.fork();
  const offerRng = recordRng.fork();
  const feedRng = offerRng.fork();
  const brands = planBrands(planRng, options.count);
  const keys = new Set<string>();
  return { entries: generateEntries(brands, keys, recordRng, offerRng), brands, keys, feedRng };
}

function* generateEntries(
  brands: readonly BrandPlan[],
  keys: Set<string>,
  rng: Rng,
  offerRng: Rng,
): Generator<GeneratedEntry, void, undefined> {
  for (const brand of brands) {
    const names: string[] = [];
    for (let i = 0; i < brand.size; i++) {
      const { name, concentration } = uniqueName(rng, brand, names, keys);
      names.push(name);
      yield buildEntry(rng, offerRng, brand, name, concentration);
    }
  }
}

function uniqueName(
  rng: Rng,
  brand: BrandPlan,
  names: readonly string[],
  keys: Set<string>,
): { name: string; concentration: Concentration } {
  const concentration = rng.fromTable(CONCENTRATION_TABLE);
  const claim = (name: string, conc: Concentration) => {
    const key = matchKey(brand.name, name, conc);
    if (keys.has(key)) return false;
    keys.add(key);
    return true;
  };
  // Flankers: the same name in another concentration, as houses do.
  if (names.length > 0 && rng.chance(0.12)) {
    const name = rng.pick(names);
    if (claim(name, concentration)) return { name, concentration };
  }
  let name = fragranceName(rng);
  let ok = claim(name, concentration);
  for (let tries = 0; !ok && tries < 20; tries++) ok = claim((name = fragranceName(rng)), concentration);
  if (!ok) {
    // Twenty draws all taken (only the biggest houses get here): number an edition instead.
    const base = name;
    for (let attempt = 0; !ok; attempt++) ok = claim((name = editionName(base, attempt)), concentration);
  }
  return { name, concentration };
}

/** The fields the community catalogue gave a record: the always-present ones and those it has and no operator curated. */
function communityFieldsOf(
  has: { gender: unknown; hasAccords: boolean; hasPerfumers: boolean; hasDescription: boolean; hasSeasons: boolean; hasOccasions: boolean },
  curated: readonly string[],
): string[] {
  const fields = ['name', 'brand', 'country', 'concentration', 'year_released', 'rating', 'notes'];
  if (has.gender) fields.push('gender');
  if (has.hasAccords && !curated.includes('accords')) fields.push('accords');
  if (has.hasPerfumers && !curated.includes('perfumers')) fields.push('perfumers');
  if (has.hasDescription && !curated.includes('description')) fields.push('description');
  if (has.hasSeasons) fields.push('seasons');
  if (has.hasOccasions) fields.push('occasions');
  return fields;
}

/** Availability in Australia from the in-stock offers' prices and when they were checked. */
function auAvailability(inStock: number[], checkedAt: number | null): FragranceDetail['au_availability'] {
  return {
    available: inStock.length > 0,
    price_min_aud: inStock.length > 0 ? Math.min(...inStock) : null,
    price_max_aud: inStock.length > 0 ? Math.max(...inStock) : null,
    checked_at: checkedAt === null ? null : isoSeconds(checkedAt),
  };
}

function buildEntry(rng: Rng, offerRng: Rng, brand: BrandPlan, name: string, concentration: Concentration): GeneratedEntry {
  const id = rng.uuid();
  const year = releaseYear(rng, brand);
  const notes = pickNotes(rng, brand);
  const derived = deriveAccords(notes);
  const ratingValue = rating(rng, brand);
  const perfumerCount = rng.weighted([1, 2, 3], [65, 28, 7]);
  const credited = rng.sample(brand.perfumers, perfumerCount);

  const hasAccords = !rng.chance(MISSING_SHARES.accords);
  const hasPerfumers = !rng.chance(MISSING_SHARES.perfumers);
  const hasDescription = !rng.chance(MISSING_SHARES.description);
  const hasSeasons = !rng.chance(MISSING_SHARES.seasons);
  const hasOccasions = !rng.chance(MISSING_SHARES.occasions);
  const accords = hasAccords ? derived : [];
  const perfumers = hasPerfumers ? credited : [];

  // Operator curation overrides a few present fields.
  const curated: string[] = [];
  if (rng.chance(OPERATOR_CURATED_SHARE)) {
    if (hasDescription && rng.chance(0.65)) curated.push('description');
    if (hasAccords && rng.chance(0.4)) curated.push('accords');
    if (hasPerfumers && rng.chance(0.2)) curated.push('perfumers');
  }
  const description = !hasDescription
    ? null
    : curated.includes('description')
      ? curatedDescription(rng, { name, accords, notes })
      : communityDescription({ name, brand: brand.name, concentration, year, accords, notes, perfumers });

  // From the full derived accords, like seasons: what the community catalogue would say.
  const gender = deriveGender(derived, id);
  const communityFields = communityFieldsOf({ gender, hasAccords, hasPerfumers, hasDescription, hasSeasons, hasOccasions }, curated);

  const communityFrom = Date.UTC(Math.max(2012, year ?? 2012), 0, 1);
  const communityAt = between(rng, communityFrom, AS_OF_MS - 14 * DAY_MS);
  const provenance: ProvenanceEntry[] = [{ source: 'community_taxonomy', fields: communityFields, recorded_at: isoSeconds(communityAt) }];
  if (curated.length > 0) {
    provenance.push({ source: 'operator_curated', fields: curated, recorded_at: isoSeconds(between(rng, communityAt, AS_OF_MS - DAY_MS)) });
  }

  const au = auState(offerRng, brand, name, concentration);
  if (au.offers.length > 0 && au.checkedAt !== null) {
    provenance.push({ source: 'au_retailer_scrape', fields: ['au_offers', 'au_availability'], recorded_at: isoSeconds(au.checkedAt) });
  }
  provenance.sort((a, b) => (a.recorded_at < b.recorded_at ? -1 : a.recorded_at > b.recorded_at ? 1 : 0));
  const sources = new Set<ProvenanceSource>(provenance.map((p) => p.source));
  const inStock = au.offers.filter((o) => o.in_stock).map((o) => o.price_aud);

  const record: FragranceDetail = {
    id,
    name,
    brand: brand.name,
    country: brand.country,
    concentration,
    ...(gender ? { gender } : {}),
    year_released: year,
    rating: ratingValue,
    main_accords: accords.slice(0, 5),
    available_in_au: inStock.length > 0,
    description,
    notes,
    accords,
    perfumers,
    seasons: hasSeasons ? deriveSeasons(derived) : [],
    occasions: hasOccasions ? deriveOccasions(derived, concentration) : [],
    provenance_tags: PROVENANCE_SOURCES.filter((s) => sources.has(s)),
    provenance,
    au_availability: auAvailability(inStock, au.checkedAt),
    au_offers: au.offers,
    updated_at: provenance[provenance.length - 1]?.recorded_at ?? DATASET_AS_OF,
  };
  return { record, feed: au.feed };
}

/** Offers already on the record (an earlier scrape) and this week's feed lines for it. */
function auState(
  rng: Rng,
  brand: BrandPlan,
  name: string,
  concentration: Concentration,
): { offers: AuOffer[]; checkedAt: number | null; feed: AuRetailerFeedLine[] } {
  const feed: AuRetailerFeedLine[] = [];
  const feedLine = (retailer: Retailer, size: number, price: number) =>
    feedLineFor(rng, retailer, { brand: brand.name, name, concentration }, size, price, AS_OF_MS - Math.floor(rng.float() * 7 * DAY_MS));

  if (rng.chance(AU_OFFER_SHARE)) {
    const retailers = rng.sample(AU_RETAILERS, rng.weighted([1, 2, 3], [60, 30, 10]));
    const checkedAt = AS_OF_MS - rng.int(20, 420) * DAY_MS - rng.int(0, 86_399) * 1000;
    const offers = retailers.map((retailer): AuOffer => {
      const size = pickOfferSize(rng, concentration);
      return {
        retailer: retailer.name,
        url: offerUrl(retailer, brand.name, name, concentration, size),
        price_aud: offerPrice(rng, brand.basePrice, concentration, size, retailer),
        size_ml: size,
        in_stock: rng.chance(0.85),
        seen_at: isoSeconds(checkedAt - rng.int(0, 3) * DAY_MS),
      };
    });
    // Some of these reappear in this week's feed at a new price; a few gain a retailer.
    if (rng.chance(0.35)) {
      for (const offer of offers) {
        const retailer = AU_RETAILERS.find((r) => r.name === offer.retailer);
        if (retailer) feed.push(feedLine(retailer, offer.size_ml, roundPrice(offer.price_aud * (1 + 0.05 * rng.normal()))));
      }
      const others = AU_RETAILERS.filter((r) => !retailers.includes(r));
      if (others.length > 0 && rng.chance(0.2)) {
        const size = pickOfferSize(rng, concentration);
        const retailer = rng.pick(others);
        feed.push(feedLine(retailer, size, offerPrice(rng, brand.basePrice, concentration, size, retailer)));
      }
    }
    return { offers, checkedAt: Math.max(...offers.map((o) => Date.parse(o.seen_at))), feed };
  }
  if (rng.chance(0.035)) {
    for (const retailer of rng.sample(AU_RETAILERS, rng.weighted([1, 2], [65, 35]))) {
      const size = pickOfferSize(rng, concentration);
      feed.push(feedLine(retailer, size, offerPrice(rng, brand.basePrice, concentration, size, retailer)));
    }
  }
  return { offers: [], checkedAt: null, feed };
}
