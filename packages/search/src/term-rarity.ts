import type { Client, estypes } from '@elastic/elasticsearch';
import { SEARCH_OBJECT } from './mapping.ts';
import type { Rarity } from './similar.ts';

/**
 * How often each note and accord occurs, per concrete index, for similar's reasons and
 * closeness. A catalogue has a few hundred to a few thousand distinct notes, so one terms
 * aggregation reads them all; holding the table saves every similar request a term-vectors round
 * trip. Frequencies move little between refreshes, and a new index (alias swap) gets its own table.
 */
export interface TermRarity {
  /** The table of `index` when it is loaded (a load is started otherwise). */
  tableOf: (index: string) => Rarity | undefined;
  /** The rarities of one record's notes and accords, read from Elasticsearch (used until the table is loaded). */
  ofRecord: (index: string, id: string) => Promise<Rarity>;
}

/** How long a table is used before it is read again (in the background). */
export const TERM_RARITY_TTL_MS = 10 * 60_000;
/** Terms read per field: rarer ones beyond it count as the rarest read. */
const MAX_TERMS = 50_000;
const FIELDS = { notes: `${SEARCH_OBJECT}.notes`, accords: `${SEARCH_OBJECT}.accords` } as const;
const KINDS = ['notes', 'accords'] as const;
/** Tables kept (the live index and the one it replaced). */
const MAX_TABLES = 4;

interface Entry {
  rarity?: Rarity;
  loadedAt: number;
  loading?: Promise<void>;
}

/** The table of `index`: one terms aggregation over its notes and accords. */
export async function readRarity(client: Client, index: string): Promise<Rarity> {
  const response = await client.search<never, Record<string, estypes.AggregationsStringTermsAggregate>>({
    index,
    size: 0,
    aggs: {
      ...Object.fromEntries(KINDS.map((kind) => [kind, { terms: { field: FIELDS[kind], size: MAX_TERMS } }])),
      ...Object.fromEntries(KINDS.map((kind) => [`${kind}_records`, { filter: { exists: { field: FIELDS[kind] } } }])),
    },
  });
  const counts = (kind: (typeof KINDS)[number]) => {
    const buckets = response.aggregations?.[kind]?.buckets;
    return new Map((Array.isArray(buckets) ? buckets : []).map((bucket) => [String(bucket.key), bucket.doc_count]));
  };
  // As term vectors count: the records that have the field (the larger of the two).
  const records = KINDS.map((kind) => (response.aggregations?.[`${kind}_records`] as { doc_count?: number } | undefined)?.doc_count ?? 0);
  return { documents: Math.max(1, ...records), notes: counts('notes'), accords: counts('accords') };
}

export function createTermRarity(client: Client, now: () => number = Date.now): TermRarity {
  const tables = new Map<string, Entry>();

  async function load(index: string, entry: Entry): Promise<void> {
    entry.rarity = await readRarity(client, index);
    entry.loadedAt = now();
  }

  function tableOf(index: string): Rarity | undefined {
    let entry = tables.get(index);
    if (!entry) {
      entry = { loadedAt: 0 };
      tables.set(index, entry);
      for (const old of [...tables.keys()].slice(0, Math.max(0, tables.size - MAX_TABLES))) tables.delete(old);
    }
    if (!entry.loading && now() - entry.loadedAt >= TERM_RARITY_TTL_MS) {
      const loading = load(index, entry)
        // A failed load leaves the previous table (or none: ofRecord answers) and is tried again next time.
        .catch(() => undefined)
        .finally(() => {
          if (entry.loading === loading) delete entry.loading;
        });
      entry.loading = loading;
    }
    return entry.rarity;
  }

  async function ofRecord(index: string, id: string): Promise<Rarity> {
    const response = await client.termvectors({
      index,
      id,
      fields: [FIELDS.notes, FIELDS.accords],
      term_statistics: true,
      field_statistics: true,
      positions: false,
      offsets: false,
      payloads: false,
    });
    let documents = 1;
    const counts = (kind: (typeof KINDS)[number]) => {
      const field = response.term_vectors?.[FIELDS[kind]];
      documents = Math.max(documents, field?.field_statistics?.doc_count ?? 0);
      return new Map(Object.entries(field?.terms ?? {}).map(([term, stats]) => [term, stats.doc_freq ?? 1]));
    };
    const notes = counts('notes');
    const accords = counts('accords');
    return { documents, notes, accords };
  }

  return { tableOf, ofRecord };
}
