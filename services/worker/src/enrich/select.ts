import type { SelectionRow } from '../catalogue.ts';

const empty = (value: unknown): boolean => value === null || value === undefined || (Array.isArray(value) && value.length === 0);

/**
 * Whether the nightly run should look at a row: a field enrichment fills is missing (accords,
 * perfumers, description, seasons, occasions), its AU check is older than `auStaleMs`, or the
 * run is `--full`, or (with embeddings on) its vector is missing or of another model. Rows missing only perfumers stay selected (no enricher invents perfumers).
 */
export function needsWork(
  row: SelectionRow,
  options: { asOf: string; auStaleMs: number; full: boolean; embeddingModel?: string | undefined },
): boolean {
  if (options.full) return true;
  // No vector yet, or one of another model (a new index, a changed record, a model upgrade).
  if (options.embeddingModel !== undefined && row.embedding?.model !== options.embeddingModel) return true;
  if (empty(row.accords) || empty(row.perfumers) || empty(row.description) || empty(row.seasons) || empty(row.occasions)) return true;
  const checked = row.au_availability?.checked_at;
  return !checked || Date.parse(options.asOf) - Date.parse(checked) >= options.auStaleMs;
}

/** Splits sorted ids into batches of `size` (sorted, so a re-planned run gets the same batches). */
export function toBatches(ids: readonly string[], size: number): string[][] {
  const sorted = [...ids].sort();
  const out: string[][] = [];
  for (let i = 0; i < sorted.length; i += size) out.push(sorted.slice(i, i + size));
  return out;
}
