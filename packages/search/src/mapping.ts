import type { estypes } from '@elastic/elasticsearch';
import { foldKey, type FragranceDetail } from '@fragrance/contracts';
import { brandAliases, brandParts, nameSpellings } from '@fragrance/vocabulary';
import { idSortKey, INDEX_SORT } from './sort.ts';
import { KEPT_NOT_INDEXED } from './store-index.ts';
import { encodeSummary } from './summary.ts';
import { EMBEDDING_MAPPING, EMBEDDING_OBJECT, type StoredEmbedding } from './vectors.ts';

/**
 * Version of the mapping and of the folding that fills `search`. Bump it with any change to
 * either: an index of another version no longer matches the queries and must be re-ingested
 * (`catalogue status` reports it; `npm start` re-ingests).
 */
export const INDEX_SCHEMA_VERSION = 8;

/** Helper fields computed at ingest; never returned to clients. */
export const SEARCH_OBJECT = 'search';

export interface SearchFields {
  name: string;
  brand: string;
  perfumers: string[];
  notes: string[];
  accords: string[];
  /** The name's other spellings (numbers in words, elisions joined, "no 5" …): nameSpellings. */
  name_spellings: string[];
  /** Other names of the brand (acronyms, short names): brandAliases. */
  brand_aliases: string[];
  /** Brand and name together, either order, under their other names and spellings: "caron lady", "ysl cinema". */
  full_names: string[];
}

/** What a search reads from doc values instead of `_source`: the id's sort key and the summary. */
export interface RecordKeys {
  /** idSortKey of the record id (sort.ts): the id's place in every order. */
  id_key: { hi: number; mid: number; lo: number };
  /** encodeSummary of the record (summary.ts): what a search hit returns. */
  summary: string;
}

export type IndexedFragrance = FragranceDetail & { search: SearchFields & RecordKeys; embedding?: StoredEmbedding };

/** Helper objects of the index (see SEARCH_OBJECT, EMBEDDING_OBJECT): left out of every record read. */
export const HELPER_OBJECTS = [SEARCH_OBJECT, EMBEDDING_OBJECT] as const;

/**
 * Folded copies of every searchable field. Anyone who changes an indexed record (e.g. a partial
 * update) must rewrite `search` from toIndexDocument, which adds the record's keys to these.
 */
export function searchFields(record: Pick<FragranceDetail, 'name' | 'brand' | 'perfumers' | 'notes' | 'accords'>): SearchFields {
  const notes = [...record.notes.top, ...record.notes.heart, ...record.notes.base].map(foldKey);
  return {
    name: foldKey(record.name),
    brand: foldKey(record.brand),
    perfumers: record.perfumers.map(foldKey),
    notes: [...new Set(notes)],
    accords: record.accords.map(foldKey),
    name_spellings: nameSpellings(record.name),
    brand_aliases: brandAliases(record.brand),
    full_names: fullNames(record.name, record.brand),
  };
}

/** Most brand spellings and name spellings combined into full names (8 × 4 × 2 orders at most). */
const FULL_NAME_BRANDS = 8;
const FULL_NAME_NAMES = 4;

/** The record's name with its brand before or after, each under its other names and spellings, folded. */
export function fullNames(name: string, brand: string): string[] {
  const brands = [foldKey(brand), ...brandParts(brand).map(foldKey), ...brandAliases(brand)].slice(0, FULL_NAME_BRANDS);
  const names = [foldKey(name), ...nameSpellings(name)].slice(0, FULL_NAME_NAMES);
  const out = new Set<string>();
  for (const b of new Set(brands)) for (const n of names) if (b && n) out.add(`${b} ${n}`).add(`${n} ${b}`);
  return [...out];
}

/** The document indexed for a record: the record, its folded fields and its keys (RecordKeys). */
export function toIndexDocument(record: FragranceDetail): IndexedFragrance {
  const key = idSortKey(record.id);
  // The contract's ids are UUIDs; anything else is a bug upstream of the index.
  if (!key) throw new Error(`record id ${JSON.stringify(record.id)} is not a UUID`);
  const [hi, mid, lo] = key;
  return { ...record, search: { ...searchFields(record), id_key: { hi, mid, lo }, summary: encodeSummary(record) } };
}

const keyword: estypes.MappingProperty = { type: 'keyword' };
/** Sorted on, never searched: doc values only. */
const sortOnlyLong: estypes.MappingProperty = { type: 'long', index: false };
const stored: estypes.MappingProperty = { type: 'keyword', index: false, doc_values: false };
/** A folded keyword (exact filters, facets of keys) with a text sub-field for scoring. */
const foldedKeyword = (): estypes.MappingProperty => ({
  type: 'keyword',
  copy_to: ['search_all'],
  fields: { text: { type: 'text', analyzer: 'standard' } },
});

/**
 * Explicit, strict mapping: every field of FragranceDetail is declared (a stray field is a
 * bulk error, not a silent new mapping). Only the server core is used: the standard analyzer,
 * keyword fields, and index_prefixes for fast prefix matching of the last query word;
 * accent and case folding happen in the application (see foldKey in the contracts).
 */
export const FRAGRANCE_MAPPING: estypes.MappingTypeMapping = {
  dynamic: 'strict',
  _meta: { schema_version: INDEX_SCHEMA_VERSION },
  properties: {
    id: keyword,
    name: stored,
    brand: keyword,
    country: keyword,
    concentration: keyword,
    gender: keyword,
    year_released: { type: 'integer' },
    rating: { properties: { average: { type: 'float' }, count: { type: 'integer' } } },
    main_accords: keyword,
    available_in_au: { type: 'boolean' },
    description: { type: 'text', index: false },
    notes: { properties: { top: keyword, heart: keyword, base: keyword } },
    accords: keyword,
    perfumers: keyword,
    seasons: keyword,
    occasions: keyword,
    provenance_tags: keyword,
    provenance: KEPT_NOT_INDEXED,
    au_availability: {
      properties: {
        available: { type: 'boolean' },
        price_min_aud: { type: 'float' },
        price_max_aud: { type: 'float' },
        checked_at: { type: 'date' },
      },
    },
    au_offers: KEPT_NOT_INDEXED,
    updated_at: { type: 'date' },
    search: {
      properties: {
        name: {
          type: 'text',
          analyzer: 'standard',
          // Name length says nothing about relevance; without norms, equal matches tie and
          // popularity decides.
          norms: false,
          copy_to: ['search_all'],
          fields: { exact: { type: 'keyword', ignore_above: 512 } },
        },
        brand: foldedKeyword(),
        // `exact`: the folded name as one term, for the `perfumer` filter and perfumer counts.
        perfumers: {
          type: 'text',
          analyzer: 'standard',
          copy_to: ['search_all'],
          fields: { exact: { type: 'keyword', ignore_above: 256 } },
        },
        notes: foldedKeyword(),
        accords: foldedKeyword(),
        // Other spellings of the name and names of the brand: matched like the name and the
        // brand (every query word must still match somewhere), `exact` for a whole-name match.
        name_spellings: {
          type: 'text',
          analyzer: 'standard',
          norms: false,
          copy_to: ['search_all'],
          fields: { exact: { type: 'keyword', ignore_above: 512 } },
        },
        brand_aliases: {
          type: 'text',
          analyzer: 'standard',
          norms: false,
          copy_to: ['search_all'],
          fields: { exact: { type: 'keyword', ignore_above: 256 } },
        },
        full_names: { type: 'keyword', ignore_above: 512 },
        id_key: { properties: { hi: sortOnlyLong, mid: sortOnlyLong, lo: sortOnlyLong } },
        summary: { type: 'binary', doc_values: true },
      },
    },
    // Everything a free-text query may match, for the "all words must match" condition. No
    // norms: how many notes a record lists should not change how well it matches.
    search_all: { type: 'text', analyzer: 'standard', norms: false, index_prefixes: { min_chars: 2, max_chars: 6 } },
    // The record's sentence embedding (vectors.ts), written by the worker's enrichment.
    [EMBEDDING_OBJECT]: EMBEDDING_MAPPING,
  },
};

export interface IndexSettingsOptions {
  shards?: number;
  replicas?: number;
}

/**
 * Settings of a new version while it loads: no refresh, no replicas, translog fsync in the
 * background rather than per bulk request (a failed load is thrown away anyway). Stored in the
 * default order (INDEX_SORT), which the settings of an index can only say at its creation.
 */
export function loadingSettings({ shards = 1 }: IndexSettingsOptions = {}): estypes.IndicesIndexSettings {
  return {
    number_of_shards: shards,
    number_of_replicas: 0,
    refresh_interval: '-1',
    translog: { durability: 'async' },
    max_result_window: 10_000,
    sort: INDEX_SORT,
  };
}
