import { PROVENANCE_SOURCES, type FragranceDetail, type ProvenanceEntry, type ProvenanceSource } from '@fragrance/contracts';
import type { Supplied } from '../enrichers/types.ts';

/** Structural equality of JSON values; object key order does not matter (Elasticsearch keeps whatever order it got). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameValue(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const key of ka) {
    if (!Object.hasOwn(b, key) || !sameValue((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  }
  return true;
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
    if (sameValue(current[field], value)) continue;
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
  } else if (!supplied.stamp && own?.fields.some((f) => suppliedFields.includes(f))) {
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
