import type { estypes } from '@elastic/elasticsearch';
import { foldKey, type FragranceSummary, type SimilarFragrance, type SimilarQuery, type SimilarReasons } from '@fragrance/contracts';
import type { IndexedFragrance } from './mapping.ts';
import { searchFilters } from './query.ts';
import { SORT_ORDERS } from './sort.ts';
import { SUMMARY_FROM_DOC_VALUES, summaryOfHit } from './summary.ts';
import { EMBEDDING_VECTOR_FIELD } from './vectors.ts';

/** The filters of a similar request (SimilarQuery without its limit). */
export type SimilarFilters = Omit<SimilarQuery, 'limit'>;

/** What the source record gives a similar request: its notes by tier, accords, line, vector. */
export type SimilarSource = Pick<IndexedFragrance, 'name' | 'brand' | 'notes' | 'accords' | 'main_accords'> & {
  search?: Partial<Pick<IndexedFragrance['search'], 'notes' | 'accords' | 'name' | 'brand'>>;
  embedding?: { vector?: number[] };
};

/** The source's fields a similar request reads (the vector only to query the kNN side). */
export const SIMILAR_SOURCE_FIELDS = [
  'name',
  'brand',
  'notes',
  'accords',
  'main_accords',
  'search.notes',
  'search.accords',
  'search.name',
  'search.brand',
  EMBEDDING_VECTOR_FIELD,
];

/** How rare each of the source's notes and accords is: document frequencies and the catalogue size. */
export interface Rarity {
  /** Records in the catalogue (with the field). */
  documents: number;
  /** Folded note → how many records have it. */
  notes: ReadonlyMap<string, number>;
  /** Folded accord → how many records have it (an accord and a note may share a word: "cinnamon"). */
  accords: ReadonlyMap<string, number>;
}

/**
 * Weights of closeness (documented in docs/search.md, "Similar"): the note/accord overlap and
 * the vector side when both records have a vector; within the overlap, notes and accords.
 */
export const CLOSENESS_WEIGHTS = { overlap: 0.7, vector: 0.3, notes: 0.6, accords: 0.4 } as const;
/** A main accord of the source counts this many times an ordinary accord. */
export const MAIN_ACCORD_WEIGHT = 2;
/**
 * Cosine similarity of two records' vectors mapped onto 0..1: VECTOR_FLOOR and below is 0, 1 is 1.
 * Descriptions of unrelated records (our embeddingText) rarely fall below ~0.5 with the shipped
 * model, so a raw cosine would call everything half alike.
 */
export const VECTOR_FLOOR = 0.5;
/** The kNN clause's boost: its score (0.5–1 for cosine) is comparable to a few shared notes. */
export const VECTOR_BOOST = 8;
const VECTOR_QUERY = 'similar_vector';

/** Candidates read per request (each way, notes and vector): ranked again by closeness, then spread across houses. */
export const similarPool = (limit: number) => Math.min(100, Math.max(20, limit * 2));

/**
 * Trailing words that make a flanker of a line ("Sauvage Elixir", "Light Blue Eau Intense"):
 * the line of a record is its folded name without them.
 */
const FLANKER_WORDS = new Set([
  'intense',
  'intensely',
  'elixir',
  'extreme',
  'absolu',
  'absolue',
  'absolute',
  'parfum',
  'perfume',
  'extrait',
  'eau',
  'de',
  'du',
  'des',
  'toilette',
  'cologne',
  'edp',
  'edt',
  'edc',
  'sport',
  'fraiche',
  'fresh',
  'night',
  'nuit',
  'summer',
  'winter',
  'edition',
  'limited',
  'collector',
  'prive',
  'privee',
  'noir',
  'black',
  'legere',
  'concentree',
  'concentre',
  'oud',
  'l',
  'le',
  'la',
]);

/** The folded name of a record's line: its name without trailing flanker words (never empty). */
export function lineName(name: string): string {
  const words = foldKey(name).split(' ').filter(Boolean);
  let end = words.length;
  while (end > 1 && FLANKER_WORDS.has(words[end - 1] ?? '')) end--;
  return words.slice(0, end).join(' ');
}

function filtersOf(source: SimilarSource, filters: SimilarFilters) {
  const { filter, mustNot } = searchFilters({
    concentration: filters.concentration,
    gender: filters.gender,
    year_from: filters.year_from,
    year_to: filters.year_to,
    available_in_au: filters.max_price_aud !== undefined ? true : filters.available_in_au,
  });
  if (filters.max_price_aud !== undefined) filter.push({ range: { 'au_availability.price_min_aud': { lte: filters.max_price_aud } } });
  const brand = source.search?.brand ?? foldKey(source.brand);
  if (filters.other_brands) mustNot.push({ term: { 'search.brand': brand } });
  if (filters.exclude_flankers) {
    const line = lineName(source.name);
    mustNot.push({
      bool: {
        filter: [{ term: { 'search.brand': brand } }],
        should: [{ term: { 'search.name.exact': line } }, { prefix: { 'search.name.exact': `${line} ` } }],
        minimum_should_match: 1,
      },
    });
  }
  return { filter, mustNot };
}

/** The folded house of a candidate (doc value), for the spread across houses. */
const BRAND_FIELD = 'search.brand';
/** Candidate fields closeness and the reasons are made of (display names, from doc values), and its house. */
const REASON_FIELDS = ['notes.top', 'notes.heart', 'notes.base', 'accords', BRAND_FIELD] as const;

/**
 * Candidates for "more like this": records sharing notes and accords with the source (each
 * scoring by its rarity through IDF, main accords double) and, when the source has a vector,
 * its nearest records by vector (kNN, with the same filters), so a record with few notes still
 * finds neighbours. Ties go to the more popular record. similarFragrances ranks them again.
 */
export function buildSimilarQuery(id: string, source: SimilarSource, limit: number, filters: SimilarFilters = {}): estypes.SearchRequest {
  const notes = source.search?.notes ?? [];
  const accords = source.search?.accords ?? [];
  const main = new Set((source.main_accords ?? []).map(foldTerm));
  const should: estypes.QueryDslQueryContainer[] = [
    ...notes.map((note) => ({ term: { 'search.notes': { value: note, boost: 1 } } })),
    ...accords.map((accord) => ({ term: { 'search.accords': { value: accord, boost: main.has(accord) ? MAIN_ACCORD_WEIGHT : 1 } } })),
  ];
  const { filter, mustNot } = filtersOf(source, filters);
  const filtered = filter.length > 0 || mustNot.length > 0;
  mustNot.push({ ids: { values: [id] } });
  const pool = similarPool(limit);
  const vector = source.embedding?.vector;
  if (vector?.length) {
    should.push({
      knn: {
        field: EMBEDDING_VECTOR_FIELD,
        query_vector: vector,
        // Unfiltered, the nearest records are searched without a filter (the source, its own
        // nearest, is one more and left out by must_not): a filter costs the kNN search more
        // than the search itself on the real sample (docs/benchmarks/similar.md).
        k: filtered ? pool : pool + 1,
        num_candidates: 2 * pool,
        ...(filtered ? { filter: [{ bool: { filter, must_not: mustNot } }] } : {}),
        boost: VECTOR_BOOST,
        _name: VECTOR_QUERY,
      },
    });
  }
  return {
    query: {
      bool: {
        should: should.length ? should : [{ match_none: {} }],
        minimum_should_match: 1,
        filter,
        must_not: mustNot,
      },
    },
    sort: [...SORT_ORDERS.relevance.sort],
    size: pool,
    track_total_hits: false,
    include_named_queries_score: true,
    ...SUMMARY_FROM_DOC_VALUES,
    docvalue_fields: [...SUMMARY_FROM_DOC_VALUES.docvalue_fields, ...REASON_FIELDS],
  };
}

interface Term {
  key: string;
  display: string;
  weight: number;
}

const idf = (rarity: Rarity, field: 'notes' | 'accords', key: string) =>
  Math.log(1 + rarity.documents / Math.max(1, rarity[field].get(key) ?? 1));
const byRarity = (a: Term, b: Term) => b.weight - a.weight || a.display.localeCompare(b.display);

/** F1 of rarity-weighted coverage of the source's terms and the share of the candidate's terms that are shared. */
function overlapOf(source: readonly Term[], shared: readonly Term[], candidateCount: number): number {
  if (shared.length === 0 || candidateCount === 0) return 0;
  const coverage =
    shared.reduce((s, t) => s + t.weight, 0) /
    Math.max(
      1e-9,
      source.reduce((s, t) => s + t.weight, 0),
    );
  const precision = shared.length / candidateCount;
  return (2 * coverage * precision) / (coverage + precision);
}

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
const round = (x: number) => Math.round(x * 1000) / 1000;
const clamp01 = (x: number) => Math.min(1, Math.max(0, x));
/** A kNN score (cosine: (1 + cos) / 2, times the boost) as 0..1 above VECTOR_FLOOR. */
const vectorPart = (score: number) => clamp01((2 * (score / VECTOR_BOOST) - 1 - VECTOR_FLOOR) / (1 - VECTOR_FLOOR));

interface Scored {
  hit: estypes.SearchHit;
  candidate: CandidateTerms;
  shared: Shared;
  closeness: number;
  /** The vector side (0..1) when the candidate is among the source's nearest records by vector. */
  vector: number | undefined;
  brand: string;
  order: number;
}

/**
 * Folded notes and accords by display form. A catalogue has a few thousand distinct ones and
 * every request folds its pool's (some 40 records × 20 terms): folding each anew (Unicode
 * normalisation and regular expressions) was most of a request's own CPU time.
 */
const FOLDED = new Map<string, string>();
const FOLDED_MAX = 50_000;
function foldTerm(display: string): string {
  let key = FOLDED.get(display);
  if (key === undefined) {
    key = foldKey(display);
    if (FOLDED.size >= FOLDED_MAX) FOLDED.clear();
    FOLDED.set(display, key);
  }
  return key;
}

function listed(values: readonly string[]): string {
  if (values.length <= 1) return values.join('');
  return `${values.slice(0, -1).join(', ')} and ${values.at(-1)}`;
}

function summaryOf(reasons: Omit<SimilarReasons, 'summary'>): string {
  const notes = [...reasons.shared_notes.top, ...reasons.shared_notes.heart, ...reasons.shared_notes.base];
  const accords = [...reasons.shared_main_accords, ...reasons.shared_accords];
  const parts: string[] = [];
  if (notes.length)
    parts.push(
      `${notes.length === 1 ? 'the note' : 'the notes'} ${listed(notes.slice(0, 5))}${notes.length > 5 ? ` (+${notes.length - 5} more)` : ''}`,
    );
  if (accords.length) parts.push(`${accords.length === 1 ? 'the accord' : 'the accords'} ${listed(accords.slice(0, 4))}`);
  const shares = parts.length
    ? `Shares ${parts.join(' and ')}`
    : reasons.vector_similarity !== null
      ? 'Close in overall character by its description; no notes or accords in common'
      : 'Little in common';
  const adds = [...reasons.adds.notes.slice(0, 3), ...reasons.adds.accords.slice(0, 2)];
  return `${shares}${reasons.distinctive.length ? `; most telling: ${listed(reasons.distinctive)}` : ''}${adds.length ? `; adds ${listed(adds)}` : ''}.`;
}

type Tier = 'top' | 'heart' | 'base';

/** The source's notes and accords, weighted by rarity, as every candidate is compared with them. */
interface SourceTerms {
  /** Folded main accords. */
  main: Set<string>;
  /** Folded note → the first tier it is in. */
  tierOf: Map<string, Tier>;
  /** Folded note → its display form. */
  noteDisplay: Map<string, string>;
  notes: Term[];
  accords: Term[];
  hasVector: boolean;
}

/** A candidate's notes and accords: folded key → display form. */
interface CandidateTerms {
  notes: Map<string, string>;
  accords: Map<string, string>;
}

/** What a candidate shares with the source, rarest first. */
interface Shared {
  notes: Term[];
  accords: Term[];
}

/**
 * The hits of buildSimilarQuery as alternatives: each with its reasons and closeness, closest
 * first, one per house before any house repeats (the spread of the list), `limit` of them.
 */
export function similarFragrances(
  hits: readonly estypes.SearchHit[],
  source: SimilarSource,
  rarity: Rarity,
  limit: number,
): SimilarFragrance[] {
  const terms = sourceTermsOf(source, rarity);
  // Reasons and summaries only for the alternatives answered, not the whole pool.
  return rankSimilar(hits, terms, limit).map((scored) => describe(terms, scored, rarity));
}

/**
 * What similarFragrances answers, before its reasons: what a materialised list holds
 * (similar-store.ts), from which storedFragrances builds the same answer.
 */
export function rankedAlternatives(
  hits: readonly estypes.SearchHit[],
  source: SimilarSource,
  rarity: Rarity,
  limit: number,
): StoredAlternative[] {
  return rankSimilar(hits, sourceTermsOf(source, rarity), limit).map((s) => ({
    closeness: s.closeness,
    // Only its rounded value is ever answered (vector_similarity).
    vector: s.vector === undefined ? null : round(s.vector),
    summary: summaryOfHit(s.hit),
    terms: Object.fromEntries(TERM_FIELDS.map((field) => [field, strings(s.hit.fields?.[field])])) as StoredAlternative['terms'],
  }));
}

/** Where a candidate's notes and accords come from (doc values: sorted, each value once). */
const TERM_FIELDS = ['notes.top', 'notes.heart', 'notes.base', 'accords'] as const;

/**
 * One alternative of a materialised list: its closeness and vector side (null: none), its
 * summary and its notes and accords as the pool's search read them.
 */
export interface StoredAlternative {
  closeness: number;
  vector: number | null;
  summary: FragranceSummary;
  terms: Record<(typeof TERM_FIELDS)[number], string[]>;
}

/**
 * A materialised list as similarFragrances answered it when the list was computed: the same
 * reasons, from the stored closeness, vector side and terms, in the stored order.
 */
export function storedFragrances(stored: readonly StoredAlternative[], source: TermsOfSource, rarity: Rarity): SimilarFragrance[] {
  const terms = sourceTermsOf(source, rarity);
  return stored.map((alternative, order) => {
    const hit: estypes.SearchHit = { _index: '', _id: alternative.summary.id, fields: alternative.terms };
    const candidate = candidateTermsOf(hit);
    const shared = sharedOf(terms, candidate);
    const vector = alternative.vector ?? undefined;
    const scored: Scored = { hit, candidate, shared, closeness: alternative.closeness, vector, brand: '', order };
    return describe(terms, scored, rarity, alternative.summary);
  });
}

const sharedOf = (terms: SourceTerms, candidate: CandidateTerms): Shared => ({
  notes: terms.notes.filter((t) => candidate.notes.has(t.key)).sort(byRarity),
  accords: terms.accords.filter((t) => candidate.accords.has(t.key)).sort(byRarity),
});

/** The pool scored by closeness and spread across houses: the `limit` alternatives answered. */
function rankSimilar(hits: readonly estypes.SearchHit[], terms: SourceTerms, limit: number): Scored[] {
  const vectorScores = hits.map((hit) => {
    const named = hit.matched_queries;
    const score = named && !Array.isArray(named) ? named[VECTOR_QUERY] : undefined;
    return score === undefined ? undefined : vectorPart(score);
  });
  // Outside the kNN side's nearest records a candidate is at most as near as the farthest of them;
  // when that side found few (records without vectors), a candidate without a score has none.
  const known = vectorScores.filter((v): v is number => v !== undefined);
  const farthest = known.length >= hits.length / 2 ? Math.min(...known) : undefined;
  const scored: Scored[] = hits.map((hit, order) => {
    const candidate = candidateTermsOf(hit);
    const shared = sharedOf(terms, candidate);
    const blended = terms.hasVector ? (vectorScores[order] ?? farthest) : undefined;
    const closeness = round(closenessOf(terms, candidate, shared, blended));
    const brand = strings(hit.fields?.[BRAND_FIELD])[0] ?? '';
    return { hit, candidate, shared, closeness, vector: vectorScores[order], brand, order };
  });
  return spreadAcrossHouses(scored, limit);
}

/** One alternative with its summary, closeness and reasons. */
function describe(
  terms: SourceTerms,
  { hit, candidate, shared, closeness, vector }: Scored,
  rarity: Rarity,
  summary: FragranceSummary = summaryOfHit(hit),
): SimilarFragrance {
  const reasons = reasonsOf(terms, candidate, shared, rarity, vector);
  return { ...summary, closeness, reasons: { ...reasons, summary: summaryOf(reasons) } };
}

/** What the closeness and the reasons read of the source. */
export type TermsOfSource = Pick<SimilarSource, 'notes' | 'accords' | 'main_accords' | 'embedding'>;

function sourceTermsOf(source: TermsOfSource, rarity: Rarity): SourceTerms {
  const main = new Set((source.main_accords ?? []).map(foldTerm));
  const tierOf = new Map<string, Tier>();
  const noteDisplay = new Map<string, string>();
  for (const tier of ['top', 'heart', 'base'] as const)
    for (const note of source.notes?.[tier] ?? []) {
      const key = foldTerm(note);
      if (!tierOf.has(key)) tierOf.set(key, tier);
      if (!noteDisplay.has(key)) noteDisplay.set(key, note);
    }
  const notes: Term[] = [...noteDisplay].map(([key, display]) => ({ key, display, weight: idf(rarity, 'notes', key) }));
  const accords: Term[] = [...new Map((source.accords ?? []).map((a) => [foldTerm(a), a]))].map(([key, display]) => ({
    key,
    display,
    weight: idf(rarity, 'accords', key) * (main.has(key) ? MAIN_ACCORD_WEIGHT : 1),
  }));
  return { main, tierOf, noteDisplay, notes, accords, hasVector: Boolean(source.embedding?.vector?.length) };
}

function candidateTermsOf(hit: estypes.SearchHit): CandidateTerms {
  const fields = hit.fields ?? {};
  const notes = new Map<string, string>();
  for (const tier of ['notes.top', 'notes.heart', 'notes.base']) for (const n of strings(fields[tier])) notes.set(foldTerm(n), n);
  return { notes, accords: new Map(strings(fields.accords).map((a) => [foldTerm(a), a])) };
}

/** The weighted note and accord overlap, blended with the vector side when both records have one. */
function closenessOf(terms: SourceTerms, candidate: CandidateTerms, shared: Shared, vector: number | undefined): number {
  const notesOverlap = overlapOf(terms.notes, shared.notes, candidate.notes.size);
  const accordsOverlap = overlapOf(terms.accords, shared.accords, candidate.accords.size);
  const hasNotes = terms.notes.length > 0;
  const hasAccords = terms.accords.length > 0;
  const overlap =
    hasNotes && hasAccords
      ? CLOSENESS_WEIGHTS.notes * notesOverlap + CLOSENESS_WEIGHTS.accords * accordsOverlap
      : hasNotes
        ? notesOverlap
        : hasAccords
          ? accordsOverlap
          : undefined;
  return overlap !== undefined && vector !== undefined
    ? CLOSENESS_WEIGHTS.overlap * overlap + CLOSENESS_WEIGHTS.vector * vector
    : (overlap ?? vector ?? 0);
}

function reasonsOf(
  terms: SourceTerms,
  candidate: CandidateTerms,
  shared: Shared,
  rarity: Rarity,
  vectorScore: number | undefined,
): Omit<SimilarReasons, 'summary'> {
  const pyramid = (tier: Tier) => shared.notes.filter((t) => terms.tierOf.get(t.key) === tier).map((t) => t.display);
  const sharedKeys = new Set([...shared.notes, ...shared.accords].map((t) => t.key));
  return {
    shared_notes: { top: pyramid('top'), heart: pyramid('heart'), base: pyramid('base') },
    shared_main_accords: shared.accords.filter((t) => terms.main.has(t.key)).map((t) => t.display),
    shared_accords: shared.accords.filter((t) => !terms.main.has(t.key)).map((t) => t.display),
    // Rarity alone (a main accord's double weight is for closeness, not for what is telling).
    distinctive: [...shared.notes, ...shared.accords.map((t) => ({ ...t, weight: idf(rarity, 'accords', t.key) }))]
      .sort(byRarity)
      .filter((t, i, all) => all.findIndex((u) => u.display === t.display) === i)
      .slice(0, 3)
      .map((t) => t.display),
    adds: {
      notes: [...candidate.notes]
        .filter(([key]) => !terms.noteDisplay.has(key) && !sharedKeys.has(key))
        .map(([, d]) => d)
        .slice(0, 5),
      accords: [...candidate.accords]
        .filter(([key]) => !terms.accords.some((t) => t.key === key))
        .map(([, d]) => d)
        .slice(0, 5),
    },
    vector_similarity: vectorScore === undefined ? null : round(vectorScore),
  };
}

/** Closest first, one per house first (in closeness order), then the rest in closeness order. */
function spreadAcrossHouses(scored: Scored[], limit: number): Scored[] {
  scored.sort((a, b) => b.closeness - a.closeness || a.order - b.order);
  const seen = new Set<string>();
  const first: Scored[] = [];
  const rest: Scored[] = [];
  for (const s of scored) {
    if (seen.has(s.brand)) rest.push(s);
    else {
      seen.add(s.brand);
      first.push(s);
    }
  }
  return [...first, ...rest].slice(0, limit);
}
