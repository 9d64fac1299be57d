import type { Client, estypes } from '@elastic/elasticsearch';
import { foldKey, slugOf, type Suggestion, type SuggestType } from '@fragrance/contracts';
import { brandAliases, nameSpellings } from '@fragrance/vocabulary';
import { INDEX_SCHEMA_VERSION } from './mapping.ts';
import { queryKey } from './normalise.ts';

/*
 * The suggestion index: one small document per fragrance (name and brand), brand, perfumer, note
 * and accord, built from a finished catalogue index right after it loads and swapped together with
 * it (`<version>-suggest` behind `<alias>-suggest`). It serves GET /v1/suggest (a prefix/fuzzy
 * query over ~80k short keys, no aggregation at request time) and the browse lists, which read
 * the entity documents with their precomputed counts.
 */

/** The suggestion index of a catalogue version, and the alias that follows the catalogue alias. */
export const suggestIndexOf = (index: string) => `${index}-suggest`;
export const suggestAliasOf = (alias: string) => `${alias}-suggest`;

export interface SuggestDocument {
  type: SuggestType;
  /** Display name. */
  text: string;
  /** Folded words matched by the query: name and brand of a fragrance, the name of the others. */
  key: string;
  /** Other folded names it is typed as: a brand's aliases, a fragrance's other spellings and its brand's aliases. */
  aliases?: string[];
  /** Folded name, for ordering by name. */
  sort_key: string;
  /** Votes of the fragrance, or summed over the fragrances of a brand, note, … */
  popularity: number;
  id?: string;
  brand?: string;
  slug?: string;
  count?: number;
  country?: string;
  top_accords?: string[];
}

const notIndexed: estypes.MappingProperty = { type: 'keyword', index: false, doc_values: false };

export const SUGGEST_MAPPING: estypes.MappingTypeMapping = {
  dynamic: 'strict',
  _meta: { schema_version: INDEX_SCHEMA_VERSION },
  properties: {
    type: { type: 'keyword' },
    text: notIndexed,
    key: {
      type: 'text',
      analyzer: 'standard',
      norms: false,
      copy_to: ['words'],
      fields: { exact: { type: 'keyword', ignore_above: 512 } },
    },
    aliases: { type: 'text', analyzer: 'standard', norms: false, copy_to: ['words'] },
    // The key and the aliases together, so "ysl cin" matches across both. Prefixes of 1–8
    // characters are indexed terms: the word being typed is one term lookup.
    words: { type: 'text', analyzer: 'standard', norms: false, index_prefixes: { min_chars: 1, max_chars: 8 } },
    sort_key: { type: 'keyword' },
    popularity: { type: 'long' },
    id: notIndexed,
    brand: notIndexed,
    slug: { type: 'keyword' },
    count: { type: 'integer' },
    country: { type: 'keyword' },
    top_accords: notIndexed,
  },
};

interface Bucket {
  key: string;
  doc_count: number;
}
interface TermsAgg<B> {
  buckets: B[];
}
type VotesBucket = Bucket & { votes: { value: number } };
type SpellingBucket = Bucket & { spelling: TermsAgg<Bucket> };

/** Most entities of one kind the index takes: far above any real catalogue's brands or notes. */
const MAX_ENTITIES = 20_000;

/** The entity documents (brands, perfumers, notes, accords) of a catalogue index, from aggregations. */
async function entityDocuments(client: Client, index: string): Promise<SuggestDocument[]> {
  const votes = { votes: { sum: { field: 'rating.count' } } };
  const spelling = (field: string) => ({ spelling: { terms: { field, size: 1 } } });
  const response = await client.search<unknown, Record<string, unknown>>({
    index,
    size: 0,
    aggs: {
      brands: {
        terms: { field: 'search.brand', size: MAX_ENTITIES },
        aggs: {
          ...votes,
          ...spelling('brand'),
          country: { terms: { field: 'country', size: 1 } },
          accords: { terms: { field: 'accords', size: 5 } },
        },
      },
      perfumers: { terms: { field: 'search.perfumers.exact', size: MAX_ENTITIES }, aggs: votes },
      perfumer_spellings: { terms: { field: 'perfumers', size: MAX_ENTITIES } },
      notes: { terms: { field: 'search.notes', size: MAX_ENTITIES }, aggs: votes },
      top_spellings: { terms: { field: 'notes.top', size: MAX_ENTITIES } },
      heart_spellings: { terms: { field: 'notes.heart', size: MAX_ENTITIES } },
      base_spellings: { terms: { field: 'notes.base', size: MAX_ENTITIES } },
      accords: { terms: { field: 'search.accords', size: MAX_ENTITIES }, aggs: votes },
      accord_spellings: { terms: { field: 'accords', size: MAX_ENTITIES } },
    },
  });
  const aggs = response.aggregations ?? {};
  const buckets = <B>(name: string) => (aggs[name] as TermsAgg<B> | undefined)?.buckets ?? [];

  /** Folded key → its most frequent original spelling. */
  const spellings = (...names: string[]) => {
    const best = new Map<string, { text: string; count: number }>();
    for (const bucket of names.flatMap((n) => buckets<Bucket>(n))) {
      const key = foldKey(bucket.key);
      const seen = best.get(key);
      if (!seen || bucket.doc_count > seen.count) best.set(key, { text: bucket.key, count: bucket.doc_count });
    }
    return (key: string) => best.get(key)?.text ?? key;
  };
  const entity = (type: SuggestType, key: string, text: string, bucket: VotesBucket): SuggestDocument => ({
    type,
    text,
    key,
    sort_key: key,
    popularity: Math.round(bucket.votes.value),
    slug: slugOf(key),
    count: bucket.doc_count,
  });

  const docs: SuggestDocument[] = [];
  for (const b of buckets<VotesBucket & SpellingBucket & { country: TermsAgg<Bucket>; accords: TermsAgg<Bucket> }>('brands')) {
    const spelling = b.spelling.buckets[0]?.key ?? b.key;
    docs.push({
      ...entity('brand', b.key, spelling, b),
      aliases: brandAliases(spelling),
      country: b.country.buckets[0]?.key ?? '',
      top_accords: b.accords.buckets.map((a) => a.key),
    });
  }
  const perfumer = spellings('perfumer_spellings');
  for (const b of buckets<VotesBucket>('perfumers')) docs.push(entity('perfumer', b.key, perfumer(b.key), b));
  const note = spellings('top_spellings', 'heart_spellings', 'base_spellings');
  for (const b of buckets<VotesBucket>('notes')) docs.push(entity('note', b.key, note(b.key), b));
  const accord = spellings('accord_spellings');
  for (const b of buckets<VotesBucket>('accords')) docs.push(entity('accord', b.key, accord(b.key), b));
  return docs;
}

interface FragranceSource {
  id: string;
  name: string;
  brand: string;
  rating: { count: number };
}

/** Every fragrance of a catalogue index as a suggestion document, a page at a time. */
async function* fragranceDocuments(client: Client, index: string): AsyncGenerator<SuggestDocument[]> {
  let after: estypes.SortResults | undefined;
  for (;;) {
    const response = await client.search<FragranceSource>({
      index,
      size: 5_000,
      sort: [{ id: 'asc' }],
      _source: { includes: ['id', 'name', 'brand', 'rating.count'] },
      ...(after ? { search_after: after } : {}),
    });
    const hits = response.hits.hits;
    if (hits.length === 0) return;
    yield hits.map(({ _source }) => {
      const f = _source!;
      const name = foldKey(f.name);
      return {
        type: 'fragrance',
        text: f.name,
        key: `${name} ${foldKey(f.brand)}`.trim(),
        aliases: [...nameSpellings(f.name), ...brandAliases(f.brand)],
        sort_key: name,
        popularity: f.rating.count,
        id: f.id,
        brand: f.brand,
      };
    });
    after = hits.at(-1)?.sort;
  }
}

const BULK_FILTER = 'errors,items.*.error.reason';

/**
 * Builds the suggestion index of catalogue index `index` (which must be refreshed), refreshed
 * and ready to be aliased, with `replicas` copies like its catalogue version: a suggestion index
 * without a replica turns the cluster red when its one node goes, though every catalogue shard
 * survives. Throws on any failure, after deleting what it built.
 */
export async function buildSuggestIndex(
  client: Client,
  index: string,
  { replicas = 0 }: { replicas?: number } = {},
): Promise<{ index: string; documents: number }> {
  const target = suggestIndexOf(index);
  await client.indices.create({
    index: target,
    // Stored most popular first: a query stops after MAX_CANDIDATES matches (terminate_after),
    // which are then the most popular ones, so a one-letter prefix does not score 30k documents.
    settings: { number_of_shards: 1, number_of_replicas: 0, refresh_interval: '-1', sort: { field: 'popularity', order: 'desc' } },
    mappings: SUGGEST_MAPPING,
  });
  let documents = 0;
  const send = async (docs: SuggestDocument[]) => {
    const body = docs
      .map((d) => `{"index":{"_id":${JSON.stringify(`${d.type}:${d.id ?? d.slug ?? d.key}`)}}}\n${JSON.stringify(d)}\n`)
      .join('');
    const response = await client.transport.request<{ errors: boolean; items?: Record<string, { error?: { reason: string } }>[] }>(
      { method: 'POST', path: `/${encodeURIComponent(target)}/_bulk`, querystring: { filter_path: BULK_FILTER }, bulkBody: body },
      { requestTimeout: 120_000, maxRetries: 2 },
    );
    if (response.errors) {
      const reason = response.items?.flatMap((item) => Object.values(item)).find((i) => i.error)?.error?.reason ?? 'unknown';
      throw new Error(`suggestion index ${target}: bulk rejected: ${reason}`);
    }
    documents += docs.length;
  };
  try {
    const entities = await entityDocuments(client, index);
    for (let i = 0; i < entities.length; i += 5_000) await send(entities.slice(i, i + 5_000));
    for await (const page of fragranceDocuments(client, index)) await send(page);
    await client.indices.putSettings({ index: target, settings: { refresh_interval: '1s', number_of_replicas: replicas } });
    await client.indices.refresh({ index: target });
  } catch (error) {
    await client.indices.delete({ index: target, ignore_unavailable: true }).catch(() => undefined);
    throw error;
  }
  return { index: target, documents };
}

/** Longest typed prefix whose swapped letters are tried: the index holds prefixes up to 8 characters. */
const MAX_SWAPPED_PREFIX = 8;

/**
 * The key with two neighbouring letters of its last word swapped, each way ("atleie" → "atelie"):
 * a prefix query takes no typo, so the word being typed would otherwise find nothing for the
 * commonest typo. From 4 letters (a shorter prefix matches too much anyway).
 */
export function transposedLastWord(key: string): string[] {
  const words = key.split(' ').filter(Boolean);
  const last = words.pop() ?? '';
  if (last.length < 4 || /\d/.test(last)) return [];
  const typed = last.slice(0, MAX_SWAPPED_PREFIX);
  const out = new Set<string>();
  for (let i = 0; i + 1 < typed.length; i++) {
    if (typed[i] === typed[i + 1]) continue;
    out.add([...words, typed.slice(0, i) + typed.charAt(i + 1) + typed.charAt(i) + typed.slice(i + 2)].join(' '));
  }
  return [...out];
}

/** Edits allowed per word, as in search: none up to 3 letters, one from 4, two from 7. */
const FUZZINESS = 'AUTO:4,7';

/**
 * The scoring query over suggestion keys: every word must match (fuzzy, the last also as a
 * prefix); the whole key equal to the text, all words exact and all words exact-or-prefix add
 * fixed amounts (no term statistics, so a rare brand and a common note compare fairly), and
 * popularity adds log10(1 + votes).
 */
export function suggestQuery(key: string, filter: estypes.QueryDslQueryContainer[]): estypes.QueryDslQueryContainer {
  const constant = (query: estypes.QueryDslQueryContainer, boost: number) => ({ constant_score: { filter: query, boost } });
  const swapped = transposedLastWord(key).map((text) => ({
    match_bool_prefix: { words: { query: text, operator: 'and' as const, fuzziness: FUZZINESS } },
  }));
  return {
    function_score: {
      query: {
        bool: {
          filter: [
            ...filter,
            {
              bool: {
                should: [
                  { match_bool_prefix: { words: { query: key, operator: 'and', fuzziness: FUZZINESS } } },
                  { match: { words: { query: key, operator: 'and', fuzziness: FUZZINESS } } },
                  ...swapped,
                ],
                minimum_should_match: 1,
              },
            },
          ],
          should: [
            constant({ term: { 'key.exact': key } }, 8),
            constant({ match: { words: { query: key, operator: 'and' } } }, 3),
            constant({ match_bool_prefix: { words: { query: key, operator: 'and' } } }, 2),
          ],
        },
      },
      functions: [{ field_value_factor: { field: 'popularity', modifier: 'log1p', missing: 0 } }],
      score_mode: 'sum',
      boost_mode: 'sum',
    },
  };
}

/** A suggestion as the API returns it. */
export function toSuggestion(doc: SuggestDocument): Suggestion {
  const out: Suggestion = { type: doc.type, text: doc.text };
  if (doc.id !== undefined) out.id = doc.id;
  if (doc.brand !== undefined) out.brand = doc.brand;
  if (doc.slug !== undefined) out.slug = doc.slug;
  if (doc.count !== undefined) out.count = doc.count;
  return out;
}

export const SUGGEST_SOURCE = ['type', 'text', 'id', 'brand', 'slug', 'count'];

/**
 * Most matches a suggestion query scores (per shard; the index has one). The index is sorted by
 * popularity, so these are the most popular matches: a short prefix matching tens of thousands
 * of names costs the same as a specific one, and what it drops are obscure names that only a
 * longer prefix would rank first anyway.
 */
export const MAX_CANDIDATES = 3_000;

/** The search body of GET /v1/suggest. */
export function buildSuggestRequest(q: string, types: readonly SuggestType[] | undefined, limit: number): estypes.SearchRequest {
  const filter: estypes.QueryDslQueryContainer[] = types?.length ? [{ terms: { type: [...types] } }] : [];
  return {
    query: suggestQuery(queryKey(q), filter),
    sort: ['_score', { popularity: 'desc' }, { sort_key: 'asc' }],
    size: limit,
    track_total_hits: false,
    terminate_after: MAX_CANDIDATES,
    _source: { includes: SUGGEST_SOURCE },
  };
}
