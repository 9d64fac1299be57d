import { PROVENANCE_SOURCES, type FragranceDetail, type ProvenanceEntry, type ProvenanceSource } from '@fragrance/contracts';
import type { Supplied } from '../enrichers/types.ts';

/** JSON with sorted object keys: equal values compare equal whatever order Elasticsearch kept. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

export function fieldsOf(record: Pick<FragranceDetail, 'provenance'>, source: ProvenanceSource): Set<string> {
  return new Set(record.provenance.filter((p) => p.source === source).flatMap((p) => p.fields));
}

export interface Applied {
  record: FragranceDetail;
  /** Record fields whose value changed (provenance bookkeeping aside). */
  changed: string[];
  /** True when anything at all changed, provenance included. */
  modified: boolean;
}

/**
 * Merges what one source supplied into a record: skips fields an operator curated (only the
 * operator may overwrite those), skips equal values, and rewrites that source's provenance
 * entry with the fields it now supplies and the run's time. A source that changed nothing
 * leaves the record, its provenance and updated_at exactly as they were (idempotence).
 */
export function applySupplied(record: FragranceDetail, source: ProvenanceSource, supplied: Supplied, asOf: string): Applied {
  const curated = source === 'operator_curated' ? new Set<string>() : fieldsOf(record, 'operator_curated');
  const next: FragranceDetail = { ...record };
  const target = next as unknown as Record<string, unknown>;
  const current = record as unknown as Record<string, unknown>;
  const changed: string[] = [];
  for (const [field, value] of Object.entries(supplied.values)) {
    if (value === undefined || curated.has(field)) continue;
    if (stableJson(current[field]) === stableJson(value)) continue;
    target[field] = value;
    changed.push(field);
  }

  const suppliedFields = Object.keys(supplied.values).filter((f) => !curated.has(f));
  const own = record.provenance.find((p) => p.source === source);
  let provenance: ProvenanceEntry[] = record.provenance;
  if (supplied.stamp && changed.length > 0) {
    const fields = [...new Set([...(own?.fields ?? []), ...changed])].sort();
    const taken = new Set(changed);
    provenance = [
      // A field this source now supplies is no longer claimed by another (non-operator) source.
      ...record.provenance
        .filter((p) => p.source !== source)
        .map((p) => (p.source === 'operator_curated' ? p : { ...p, fields: p.fields.filter((f) => !taken.has(f)) }))
        .filter((p) => p.fields.length > 0),
      { source, fields, recorded_at: asOf },
    ];
  } else if (!supplied.stamp && own && own.fields.some((f) => suppliedFields.includes(f))) {
    // The source now supplies "nothing found": its claim on these fields goes.
    provenance = record.provenance
      .map((p) => (p.source === source ? { ...p, fields: p.fields.filter((f) => !suppliedFields.includes(f)) } : p))
      .filter((p) => p.fields.length > 0);
  }

  const provenanceChanged = provenance !== record.provenance;
  if (changed.length === 0 && !provenanceChanged) return { record, changed, modified: false };
  provenance = [...provenance].sort((a, b) => Date.parse(a.recorded_at) - Date.parse(b.recorded_at));
  const present = new Set(provenance.map((p) => p.source));
  next.provenance = provenance;
  next.provenance_tags = PROVENANCE_SOURCES.filter((s) => present.has(s));
  next.updated_at = Date.parse(record.updated_at) > Date.parse(asOf) ? record.updated_at : asOf;
  return { record: next, changed, modified: true };
}
